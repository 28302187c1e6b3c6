#include "onnx_extensions/patterns/collections/slices_split_pattern.h"

#include <algorithm>
#include <limits>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantScalarInt;
using core::builder::DerivedNodeName;
using core::builder::NormalizeAxis;
using core::builder::StaticDim;

// A Slice of X along one axis with step 1 and constant bounds, normalized to [0, D].
struct Piece {
  std::int64_t start, end;
  const NodeProto* slice;
};

std::int64_t Normalize(std::int64_t bound, std::int64_t dim) {
  return std::clamp<std::int64_t>(bound < 0 ? bound + dim : bound, 0, dim);
}

// The axis a Slice works on when its form is Slice(X, s, e, {a}[, {1}]); nullopt otherwise.
std::optional<std::int64_t> SingleAxis(GraphGraph& graph, const NodeProto& slice) {
  if (slice.input_size() != 4 && slice.input_size() != 5) return std::nullopt;
  if (slice.input_size() == 5 && ConstantScalarInt(graph, slice.input(4)) != std::int64_t{1})
    return std::nullopt;
  return ConstantScalarInt(graph, slice.input(3));
}

// The pieces sorted by start; empty when a bound is not constant.
std::vector<Piece> PiecesOf(GraphGraph& graph, const std::vector<const NodeProto*>& slices, std::int64_t dim) {
  std::vector<Piece> pieces;
  for (const NodeProto* slice : slices) {
    const auto start = ConstantScalarInt(graph, slice->input(1));
    const auto end = ConstantScalarInt(graph, slice->input(2));
    if (!start || !end) return {};
    pieces.push_back(Piece{Normalize(*start, dim), Normalize(*end, dim), slice});
  }
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.start < b.start; });
  return pieces;
}

// Non-empty pieces, each starting where the previous one ends, covering [0, dim).
bool Partitions(const std::vector<Piece>& pieces, std::int64_t dim) {
  std::int64_t next = 0;
  for (const Piece& piece : pieces) {
    if (piece.start != next || piece.end <= piece.start) return false;
    next = piece.end;
  }
  return next == dim;
}

bool IsSliceOf(const NodeProto& node, const std::string& x) {
  return core::builder::IsOp(node, "Slice") && node.input(0) == x;
}

std::vector<const NodeProto*> SlicesOf(const GraphGraph& graph, const std::string& x) {
  std::vector<const NodeProto*> slices;
  for (const NodeProto* user : graph.NextNodes(x))
    if (IsSliceOf(*user, x)) slices.push_back(user);
  return slices;
}

}  // namespace

MatchResult SlicesSplitPattern::Match(GraphGraph& graph, const NodeProto& anchor) const {
  if (!core::builder::IsOp(anchor, "Slice")) return NoMatch(anchor, "the node is not a default-domain Slice");
  const std::string& x = anchor.input(0);
  if (!core::builder::RankOf(graph, x)) return NoMatch(anchor, "the rank of the data input is unknown");
  // One match per data value: every Slice of it would look at all of them (n^2).
  if (!core::builder::IsFirstReader(graph, x, anchor, [&](const NodeProto& reader) { return IsSliceOf(reader, x); }))
    return NoMatch(anchor, "an earlier Slice reads the same data");
  const std::vector<const NodeProto*> slices = SlicesOf(graph, x);
  if (slices.size() < 2) return NoMatch(anchor, "the data input has fewer than two Slice consumers");
  std::optional<std::int64_t> axis;
  for (const NodeProto* slice : slices) {
    const std::optional<std::int64_t> a = SingleAxis(graph, *slice);
    if (!a) return NoMatch(anchor, "a Slice is not on one constant axis with step 1");
    const std::optional<std::int64_t> normalized = NormalizeAxis(*a, *core::builder::RankOf(graph, x));
    if (!normalized) return NoMatch(anchor, "a Slice axis is out of range");
    if (axis && *axis != *normalized) return NoMatch(anchor, "the Slices use different axes");
    axis = normalized;
  }
  const std::optional<std::int64_t> dim = StaticDim(graph, x, *axis);
  if (!dim) return NoMatch(anchor, "the dimension along the axis is not static");
  const std::vector<Piece> pieces = PiecesOf(graph, slices, *dim);
  if (pieces.empty()) return NoMatch(anchor, "a Slice bound is not a constant scalar");
  if (!Partitions(pieces, *dim)) return NoMatch(anchor, "the Slices do not partition the axis into contiguous pieces");
  if (core::builder::OnnxOpset(graph) < 13) return NoMatch(anchor, "Split with a split input needs opset 13");
  std::vector<const NodeProto*> nodes;
  for (const Piece& piece : pieces) nodes.push_back(piece.slice);
  return Matched(nodes);
}

utils::RepeatedProtoField<NodeProto> SlicesSplitPattern::Apply(GraphGraph& graph,
                                                               const std::vector<const NodeProto*>& nodes) const {
  for (const NodeProto* node : nodes) core::builder::ExpectMatchedNodes(*this, {node}, {"Slice"});
  const std::string& x = nodes.front()->input(0);
  const std::int64_t axis = *NormalizeAxis(*SingleAxis(graph, *nodes.front()), *core::builder::RankOf(graph, x));
  const std::vector<Piece> pieces = PiecesOf(graph, nodes, *StaticDim(graph, x, axis));
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& split = *replacement.Add();
  split.set_op_type("Split");
  split.set_name(DerivedNodeName(graph, kName, *nodes.front()));
  split.add_input(x);
  core::builder::AddIntAttribute(split, "axis", axis);
  std::vector<std::int64_t> sizes;
  for (const Piece& piece : pieces) {
    sizes.push_back(piece.end - piece.start);
    split.add_output(piece.slice->output(0));
  }
  collections::SetSplitSizes(graph, kName, split, sizes);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
