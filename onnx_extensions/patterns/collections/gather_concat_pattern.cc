#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"

#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::ProducerOf;
using core::builder::StaticDim;

// The only non-constant input of the Concat; -1 when there is none or several.
int SoleVariablePiece(GraphGraph& graph, const NodeProto& concat) {
  int found = -1;
  for (int k = 0; k < concat.input_size(); ++k) {
    if (graph.IsConstant(concat.input(k))) continue;
    if (found >= 0) return -1;
    found = k;
  }
  return found;
}

// The total length of the constant pieces before `piece`; nullopt when one cannot be computed.
std::optional<std::int64_t> OffsetOf(GraphGraph& graph, const NodeProto& concat, int piece) {
  std::int64_t offset = 0;
  for (int k = 0; k < piece; ++k) {
    const TensorProto* value = graph.GetComputedConstant(concat.input(k));
    if (!value || value->dims_size() != 1) return std::nullopt;
    offset += value->dims(0);
  }
  return offset;
}

}  // namespace

MatchResult GatherConcatPattern::Match(GraphGraph& graph, const NodeProto& gather) const {
  if (!core::builder::IsOp(gather, "Gather") || gather.input_size() != 2)
    return NoMatch(gather, "the node is not a default-domain Gather with two inputs");
  if (IntAttr(gather, "axis").value_or(0) != 0) return NoMatch(gather, "the Gather axis is not 0");
  const TensorProto* index = graph.GetComputedConstant(gather.input(1));
  if (!index) return NoMatch(gather, "the index is not constant");
  if (!collections::IsIndexType(*index))
    return NoMatch(gather, "the index is not of type int64 or int32");
  if (index->dims_size() > 1) return NoMatch(gather, "the index has a rank above 1");
  const NodeProto* concat = ProducerOf(graph, gather.input(0), "Concat");
  if (!concat) return NoMatch(gather, "the data input is not produced by a Concat");
  if (IntAttr(*concat, "axis") != std::int64_t{0}) return NoMatch(gather, "the Concat axis is not 0");
  const int piece = SoleVariablePiece(graph, *concat);
  if (piece < 0) return NoMatch(gather, "the Concat does not have exactly one non-constant input");
  const std::string& x = concat->input(piece);
  if (core::builder::RankOf(graph, x) != std::size_t{1})
    return NoMatch(gather, "the non-constant Concat input does not have a known rank of 1");
  const std::optional<std::int64_t> offset = OffsetOf(graph, *concat, piece);
  if (!offset) return NoMatch(gather, "a constant Concat input cannot be computed");
  const std::optional<std::int64_t> length = StaticDim(graph, x, 0);
  if (piece + 1 < concat->input_size() && !length)
    return NoMatch(gather, "the non-constant Concat input has a symbolic length and is not last");
  const std::vector<std::int64_t> indices = *core::builder::ConstantInts(graph, gather.input(1));
  for (std::int64_t i : indices)
    if (i < *offset || (length && i >= *offset + *length))
      return NoMatch(gather, "an index does not address the non-constant Concat input");
  return Matched({concat, &gather});
}

utils::RepeatedProtoField<NodeProto> GatherConcatPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat", "Gather"});
  const NodeProto& concat = *nodes[0];
  const NodeProto& gather = *nodes[1];
  const int piece = SoleVariablePiece(graph, concat);
  const std::int64_t offset = *OffsetOf(graph, concat, piece);
  const TensorProto& index = *graph.GetComputedConstant(gather.input(1));
  std::vector<std::int64_t> shifted = *core::builder::ConstantInts(graph, gather.input(1));
  for (std::int64_t& i : shifted) i -= offset;

  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, concat.output(0))) *replacement.Add() = concat;
  NodeProto& node = *replacement.Add();
  node = gather;
  node.set_name(DerivedNodeName(graph, kName, gather));
  node.set_input(0, concat.input(piece));
  const std::vector<std::int64_t> dims(index.dims().begin(), index.dims().end());
  node.set_input(1, graph.MakeInitializer(kName, IntTensor(shifted, dims, index.data_type())));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
