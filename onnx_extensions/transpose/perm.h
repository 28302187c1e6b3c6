#pragma once
// Permutation arithmetic of the transpose optimizer (transpose-optimizer.md
// section 4.12). Convention: Transpose(X, perm=P) gives Y with Y.shape[i] =
// X.shape[P[i]].

#include <cstdint>
#include <optional>
#include <vector>

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_transpose {

using Perm = std::vector<std::int64_t>;

// IsPermutation, IsIdentityPermutation, InversePermutation, ComposePermutations,
// ComposesToIdentity
// ("first A, then B": result[i] = A[B[i]]) come from onnx_core/optimizer/match.h.
using core::builder::ComposePermutations;
using core::builder::ComposesToIdentity;
using core::builder::InversePermutation;
using core::builder::IsIdentityPermutation;
using core::builder::IsPermutation;

// The perm of a copy after a node removed the axes `removed` (sorted, in the
// untransposed tensor): walk `perm`, drop the removed entries, renumber the
// others by rank.
Perm SqueezePerm(const std::vector<std::int64_t>& removed, const Perm& perm);
// The perm of a copy after a node inserted 1-axes at the output positions
// `added` (sorted): those positions map to themselves, the others take `perm`
// re-indexed.
Perm UnsqueezePerm(const std::vector<std::int64_t>& added, const Perm& perm);
// A per-axis vector (pads half, repeats, scales) of the transposed tensor moved
// to the untransposed one: result[i] = values[P⁻¹[i]].
template <class T>
std::vector<T> PermuteVector(const std::vector<T>& values, const Perm& perm) {
  const Perm inverse = InversePermutation(perm);
  std::vector<T> result;
  result.reserve(values.size());
  for (std::int64_t from : inverse) result.push_back(values[static_cast<std::size_t>(from)]);
  return result;
}
// The valid explicit perm of a Transpose node, or nullopt (absent or not a
// permutation). PushGraph::TransposePerm caches it per node.
std::optional<Perm> ExplicitPerm(const NodeProto& transpose);
// `axis` (negative counts from the end) as an index below `rank`, or nullopt.
std::optional<std::int64_t> NormalizedAxis(std::int64_t axis, std::size_t rank);
// Axes normalized against `rank` and mapped through `perm` (axis a becomes
// perm[a]), order kept; nullopt when one is out of range or two are equal.
std::optional<std::vector<std::int64_t>> MapAxes(const std::vector<std::int64_t>& axes, const Perm& perm);

}  // namespace onnxopt::onnx_transpose
