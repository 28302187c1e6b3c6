#include "onnx_extensions/transpose/perm.h"

#include <algorithm>
#include <set>

namespace onnxopt::onnx_transpose {

Perm SqueezePerm(const std::vector<std::int64_t>& removed, const Perm& perm) {
  const std::set<std::int64_t> gone(removed.begin(), removed.end());
  // rank[a] = number of kept axes below a.
  std::vector<std::int64_t> rank(perm.size(), 0);
  std::int64_t kept = 0;
  for (std::size_t a = 0; a < perm.size(); ++a) {
    rank[a] = kept;
    if (!gone.contains(static_cast<std::int64_t>(a))) ++kept;
  }
  Perm result;
  for (std::int64_t axis : perm)
    if (!gone.contains(axis)) result.push_back(rank[static_cast<std::size_t>(axis)]);
  return result;
}

Perm UnsqueezePerm(const std::vector<std::int64_t>& added, const Perm& perm) {
  const std::size_t rank = perm.size() + added.size();
  const std::set<std::int64_t> ones(added.begin(), added.end());
  std::vector<std::int64_t> kept_positions;
  for (std::size_t i = 0; i < rank; ++i)
    if (!ones.contains(static_cast<std::int64_t>(i))) kept_positions.push_back(static_cast<std::int64_t>(i));
  Perm result(rank);
  std::size_t next = 0;
  for (std::size_t i = 0; i < rank; ++i) {
    if (ones.contains(static_cast<std::int64_t>(i))) {
      result[i] = static_cast<std::int64_t>(i);
    } else {
      result[i] = kept_positions[static_cast<std::size_t>(perm[next++])];
    }
  }
  return result;
}

std::optional<Perm> ExplicitPerm(const NodeProto& transpose) {
  std::optional<std::vector<std::int64_t>> perm = core::builder::IntsAttr(transpose, "perm");
  if (!perm || !IsPermutation(*perm)) return std::nullopt;
  return perm;
}

std::optional<std::int64_t> NormalizedAxis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return axis < 0 ? axis + r : axis;
}

std::optional<std::vector<std::int64_t>> MapAxes(const std::vector<std::int64_t>& axes, const Perm& perm) {
  std::vector<std::int64_t> result;
  std::set<std::int64_t> seen;
  for (std::int64_t axis : axes) {
    const std::optional<std::int64_t> normalized = NormalizedAxis(axis, perm.size());
    if (!normalized || !seen.insert(*normalized).second) return std::nullopt;
    result.push_back(perm[static_cast<std::size_t>(*normalized)]);
  }
  return result;
}

}  // namespace onnxopt::onnx_transpose
