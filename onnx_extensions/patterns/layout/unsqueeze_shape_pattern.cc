#include "onnx_extensions/patterns/layout/unsqueeze_shape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntAttribute;
using core::builder::IsOp;
using core::builder::OnnxOpset;
using core::builder::RankOf;

namespace {

// The sorted positions of the inserted 1s in U; nullopt when the axes are not constant,
// the rank of X is unknown, or an axis is invalid.
std::optional<layout::Ints> InsertedAxes(GraphGraph& graph, const NodeProto& unsqueeze) {
  const std::optional<layout::Ints> axes = layout::ConstantAxes(graph, unsqueeze.input(1));
  const std::optional<std::size_t> rank = RankOf(graph, unsqueeze.input(0));
  if (!axes || !rank) return std::nullopt;
  std::optional<layout::Ints> normalized = layout::NormalizeAxes(*axes, *rank + axes->size());
  if (normalized) std::sort(normalized->begin(), normalized->end());
  return normalized;
}

// One piece of Shape<start, end>(U): an inserted 1, or the dims [start, end) of X.
struct Piece {
  bool inserted;
  std::int64_t start = 0, end = 0;
};

// The pieces of the positions [range.start, range.end) of U, in order; `axes` are the
// sorted positions of the inserted 1s in U, of rank `rank`.
std::vector<Piece> Pieces(const layout::Ints& axes, std::int64_t rank, layout::AxisRange range) {
  std::vector<Piece> pieces;
  // Positions [position, next) of U hold dims [x, x + next - position) of X.
  for (std::int64_t position = 0, x = 0; position < rank;) {
    if (std::binary_search(axes.begin(), axes.end(), position)) {
      if (position >= range.start && position < range.end) pieces.push_back(Piece{true, 0, 0});
      ++position;
      continue;
    }
    const auto after = std::upper_bound(axes.begin(), axes.end(), position);
    const std::int64_t next = after == axes.end() ? rank : *after;
    const std::int64_t from = std::max(position, range.start), to = std::min(next, range.end);
    if (from < to) pieces.push_back(Piece{false, x + from - position, x + to - position});
    x += next - position;
    position = next;
  }
  return pieces;
}

}  // namespace

MatchResult UnsqueezeShapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Unsqueeze") || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Unsqueeze with one output");
  if (OnnxOpset(graph) < 13) return NoMatch(node, "the axes are an attribute before opset 13");
  if (OnnxOpset(graph) < 15) return NoMatch(node, "Shape with start and end needs opset 15");
  if (node.input_size() != 2) return NoMatch(node, "the Unsqueeze has no axes input");
  const std::vector<const NodeProto*> shapes = layout::DataConsumers(graph, node.output(0), "Shape");
  if (shapes.empty()) return NoMatch(node, "no Shape reads the output");
  const std::optional<layout::Ints> axes = layout::ConstantAxes(graph, node.input(1));
  if (!axes) return NoMatch(node, "the axes are not a constant 1-D tensor");
  if (axes->empty()) return NoMatch(node, "the axes are empty");
  const std::optional<std::size_t> rank = RankOf(graph, node.input(0));
  if (!rank) return NoMatch(node, "the rank of the input is unknown");
  if (!InsertedAxes(graph, node)) return NoMatch(node, "the axes are out of range or repeated");
  if (layout::ShapeRange(*shapes.front(), static_cast<std::int64_t>(*rank + axes->size())).Empty())
    return NoMatch(node, "the Shape selects no dimension");
  return Matched({&node, shapes.front()});
}

utils::RepeatedProtoField<NodeProto> UnsqueezeShapePattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Unsqueeze", "Shape"});
  const NodeProto& unsqueeze = *nodes[0];
  const NodeProto& shape = *nodes[1];
  const layout::Ints axes = *InsertedAxes(graph, unsqueeze);
  const auto rank = static_cast<std::int64_t>(*RankOf(graph, unsqueeze.input(0)) + axes.size());
  const layout::AxisRange range = layout::ShapeRange(shape, rank);
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, unsqueeze.output(0))) *replacement.Add() = unsqueeze;
  std::vector<std::string> pieces;
  std::string one;  // the constant [1], made on first use
  for (const Piece& piece : Pieces(axes, rank, range)) {
    if (piece.inserted) {
      if (one.empty()) one = graph.MakeInitializer(kName, core::builder::IntTensor({1}));
      pieces.push_back(one);
      continue;
    }
    pieces.push_back(graph.Builder().UniqueName(kName));
    NodeProto& slice = layout::AddNode(replacement, graph, kName, shape, "Shape", {unsqueeze.input(0)}, pieces.back());
    AddIntAttribute(slice, "start", piece.start);
    AddIntAttribute(slice, "end", piece.end);
  }
  NodeProto& concat = layout::AddNode(replacement, graph, kName, shape, "Concat", pieces, shape.output(0));
  AddIntAttribute(concat, "axis", 0);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
