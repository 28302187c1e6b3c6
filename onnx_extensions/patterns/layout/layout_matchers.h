#pragma once
// Helpers shared by the layout patterns (../../../../shared/docs/patterns/layout.md): the
// axes of Squeeze and Unsqueeze, the permutations of Transpose, the slice a Shape takes, and
// the quantized constants the DequantizeLinear patterns move layout nodes onto.
// Like the core matchers, the queries return nullopt / false instead of throwing.
//
// Conventions: a permutation `p` is a Transpose's perm, output axis i being input axis
// p[i]. Axes are normalized against the rank of the tensor they index: the input of a
// Squeeze, the output of an Unsqueeze.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::onnx_patterns::layout {

using core::builder::GraphGraph;
using Ints = std::vector<std::int64_t>;

using core::builder::AddNode;
using core::builder::Reject;

// --- Axes -------------------------------------------------------------------------------

// The elements of a computable integer constant of rank 1, the form of the axes input of
// Squeeze and Unsqueeze from opset 13; nullopt for anything else (a scalar included).
std::optional<Ints> ConstantAxes(GraphGraph& graph, std::string_view value);

// Whether an axis is negative: normalizing it needs the rank.
bool HasNegativeAxis(const Ints& axes);

// `axes` in the same order with `rank` added to the negative ones; nullopt when one is
// outside [-rank, rank) or two are the same axis. Without a rank, negative axes are
// refused and the non-negative ones have no upper bound.
std::optional<Ints> NormalizeAxes(const Ints& axes, std::optional<std::size_t> rank);

// The axes a Squeeze removes, as written (not normalized): its constant axes input or,
// without one, the positions of the 1s of its input, whose shape must then be static (a
// symbolic dim may be 1 at run time). Nullopt with the reason in `*why` for axes that are
// not constant, or empty: an empty axes input means "every 1" to our kernel and to some
// runtimes, and "none" to others.
std::optional<Ints> SqueezedAxes(GraphGraph& graph, const NodeProto& squeeze, std::string_view* why);

// The positions, sorted, of the dims Unsqueeze(Unsqueeze(x, a1), a2) inserts into its
// output. `a1` and `a2` are normalized (against rank(x) + |a1| and rank(x) + |a1| + |a2|):
// the second Unsqueeze puts its 1s exactly at a2, and the k-th dim of its input (the
// first Unsqueeze's output) lands on the k-th position outside a2. Nullopt when that
// position is beyond int64 (axes of an input of unknown rank are not bounded by it).
std::optional<Ints> ComposeUnsqueezeAxes(const Ints& a1, const Ints& a2);

// --- Permutations -----------------------------------------------------------------------

// IsPermutation, IsIdentityPermutation, InversePermutation, ComposePermutations,
// ComposesToIdentity: in onnx_core/optimizer/match.h (the transpose optimizer uses them
// too).
using core::builder::ComposePermutations;
using core::builder::ComposesToIdentity;
using core::builder::InversePermutation;
using core::builder::IsIdentityPermutation;
using core::builder::IsPermutation;

// The perm attribute of a Transpose (with one input and one output) when it is a
// permutation of its input's axes (of its own length when the input rank is unknown);
// nullopt with the reason in `*why` otherwise. Without perm the Transpose reverses the
// axes: the patterns of this family do not fire then (layout.md allows either that or
// materializing the default).
std::optional<Ints> TransposePerm(const GraphGraph& graph, const NodeProto& transpose, std::string_view* why);

// --- Shape ------------------------------------------------------------------------------

// The dims [start, end) Shape<start, end> returns from a tensor of rank `rank`.
struct AxisRange {
  std::int64_t start = 0;
  std::int64_t end = 0;
  bool Empty() const { return start >= end; }
};
// The attributes resolved as the operator does: defaults 0 and rank, `rank` added to
// negative values, then both clamped to [0, rank].
AxisRange ShapeRange(const NodeProto& shape, std::int64_t rank);

// --- Quantized constants ----------------------------------------------------------------

// The DequantizeLinear that computes `node`'s first input from a constant, when moving
// `node` onto that constant would let folding store the result in the quantized type: the
// DequantizeLinear has no other reader (its constant would be stored twice) and its
// constant is small enough to fold. Nullptr with the reason in `*why` otherwise.
const NodeProto* DequantizedConstantInput(GraphGraph& graph, const NodeProto& node, std::string_view* why);

// How a DequantizeLinear of a rank-`rank` input quantizes: `axis` (normalized) for a
// per-axis one, nullopt for a per-tensor one. Nullopt with the reason in `*why` for
// blocked quantization (block_size, opset 21: the scale has the data's rank), a scale of
// unknown rank, or an axis out of range.
struct Quantization {
  std::optional<std::int64_t> axis;
};
std::optional<Quantization> QuantizationOf(GraphGraph& graph, const NodeProto& dequantize, std::size_t rank,
                                           std::string_view* why);

// --- Graph ------------------------------------------------------------------------------

// The readers of `value` that are default-domain `op_type` nodes reading it as their first
// input, in graph order.
std::vector<const NodeProto*> DataConsumers(const GraphGraph& graph, std::string_view value, std::string_view op_type);

// Whether `value` exists when `node` runs: it is not produced by a node of this graph (a
// graph input, an initializer, an outer value) or its producer comes before `node`. A
// rewrite places all its nodes at one position; this tells whether a value may be read
// there.
bool DefinedBefore(const GraphGraph& graph, std::string_view value, const NodeProto& node);

}  // namespace onnxopt::onnx_patterns::layout
