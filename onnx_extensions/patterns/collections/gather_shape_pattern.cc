#include "onnx_extensions/patterns/collections/gather_shape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::ProducerOf;

// The slice [start, start + length) of X's dims that Shape<start, end>(X) returns; without
// the rank of X, length is end - start, an upper bound (Shape clamps end to the rank).
struct ShapeSlice {
  std::int64_t start;
  std::int64_t length;
};

std::optional<ShapeSlice> SliceOf(const GraphGraph& graph, const NodeProto& shape) {
  const std::optional<std::int64_t> start = IntAttr(shape, "start");
  const std::optional<std::int64_t> end = IntAttr(shape, "end");
  if (const std::optional<std::size_t> rank = core::builder::RankOf(graph, shape.input(0))) {
    const auto r = static_cast<std::int64_t>(*rank);
    auto clamp = [r](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + r : v, 0, r); };
    const std::int64_t s = clamp(start.value_or(0)), e = clamp(end.value_or(r));
    return ShapeSlice{s, std::max<std::int64_t>(0, e - s)};
  }
  if (start.value_or(0) < 0 || !end || *end < 0) return std::nullopt;
  return ShapeSlice{start.value_or(0), std::max<std::int64_t>(0, *end - start.value_or(0))};
}

// The normalized indices when they are in [0, length) and consecutive.
std::optional<std::vector<std::int64_t>> RangeOf(std::vector<std::int64_t> indices, std::int64_t length) {
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0) indices[k] += length;
    if (indices[k] < 0 || indices[k] >= length) return std::nullopt;
    if (k > 0 && indices[k] != indices[k - 1] + 1) return std::nullopt;
  }
  return indices;
}

}  // namespace

MatchResult GatherShapePattern::Match(GraphGraph& graph, const NodeProto& gather) const {
  if (!core::builder::IsOp(gather, "Gather") || gather.input_size() != 2)
    return NoMatch(gather, "the node is not a default-domain Gather with two inputs");
  if (IntAttr(gather, "axis").value_or(0) != 0) return NoMatch(gather, "the Gather axis is not 0");
  const TensorProto* index = graph.GetComputedConstant(gather.input(1));
  if (!index) return NoMatch(gather, "the index is not constant");
  if (index->data_type() != TensorProto::INT64) return NoMatch(gather, "the index is not of type int64");
  if (index->dims_size() > 1 || (index->dims_size() == 1 && index->dims(0) == 0))
    return NoMatch(gather, "the index is neither a scalar nor a non-empty 1-D tensor");
  const NodeProto* shape = ProducerOf(graph, gather.input(0), "Shape");
  if (!shape) return NoMatch(gather, "the data input is not produced by a Shape");
  if (core::builder::OnnxOpset(graph) < 15) return NoMatch(gather, "Shape with start and end needs opset 15");
  const std::optional<ShapeSlice> slice = SliceOf(graph, *shape);
  if (!slice) return NoMatch(gather, "the length of the Shape output is unknown");
  const std::vector<std::int64_t> indices = *core::builder::ConstantInts(graph, gather.input(1));
  // Without the rank, end - start only bounds the length (end may exceed the rank): a
  // negative index, counted from the real end, cannot be placed.
  if (!core::builder::RankOf(graph, shape->input(0)) &&
      std::any_of(indices.begin(), indices.end(), [](std::int64_t i) { return i < 0; }))
    return NoMatch(gather, "a negative index needs the rank of the Shape's input");
  const bool in_range = std::all_of(indices.begin(), indices.end(),
                                    [&](std::int64_t i) { return i >= -slice->length && i < slice->length; });
  if (!in_range) return NoMatch(gather, "an index is out of range");
  if (!RangeOf(indices, slice->length)) return NoMatch(gather, "the indices are not consecutive");
  return Matched({shape, &gather});
}

utils::RepeatedProtoField<NodeProto> GatherShapePattern::Apply(GraphGraph& graph,
                                                               const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Shape", "Gather"});
  const NodeProto& shape = *nodes[0];
  const NodeProto& gather = *nodes[1];
  const ShapeSlice slice = *SliceOf(graph, shape);
  const std::vector<std::int64_t> range =
      *RangeOf(*core::builder::ConstantInts(graph, gather.input(1)), slice.length);
  const bool scalar = graph.GetComputedConstant(gather.input(1))->dims_size() == 0;

  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, shape.output(0))) *replacement.Add() = shape;
  NodeProto& node = *replacement.Add();
  node.set_op_type("Shape");
  node.set_name(DerivedNodeName(graph, kName, gather));
  node.add_input(shape.input(0));
  node.add_output(scalar ? graph.Builder().UniqueName(kName) : gather.output(0));
  core::builder::AddIntAttribute(node, "start", slice.start + range.front());
  core::builder::AddIntAttribute(node, "end", slice.start + range.back() + 1);
  // A scalar index drops the dimension: Y stays a scalar.
  if (scalar) collections::AddSqueeze(graph, kName, gather, replacement, node.output(0), gather.output(0), 0);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
