#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::ProducerOf;
using collections::IsIndexType;

// i1[i2]; nullopt when an i2 value is outside [-len(i1), len(i1)).
std::optional<std::vector<std::int64_t>> ComposeIndices(const std::vector<std::int64_t>& i1,
                                                        const std::vector<std::int64_t>& i2) {
  const auto n = static_cast<std::int64_t>(i1.size());
  std::vector<std::int64_t> i3;
  for (std::int64_t i : i2) {
    if (i < -n || i >= n) return std::nullopt;
    i3.push_back(i1[static_cast<std::size_t>(i < 0 ? i + n : i)]);
  }
  return i3;
}

}  // namespace

MatchResult GatherGatherPattern::Match(GraphGraph& graph, const NodeProto& outer) const {
  if (!core::builder::IsOp(outer, "Gather") || outer.input_size() != 2)
    return NoMatch(outer, "the node is not a default-domain Gather with two inputs");
  if (IntAttr(outer, "axis").value_or(0) != 0) return NoMatch(outer, "the outer Gather axis is not 0");
  const TensorProto* i2 = graph.GetComputedConstant(outer.input(1));
  if (!i2) return NoMatch(outer, "the outer index is not constant");
  if (!IsIndexType(*i2)) return NoMatch(outer, "the outer index is not of type int64 or int32");
  const NodeProto* inner = ProducerOf(graph, outer.input(0), "Gather");
  if (!inner) return NoMatch(outer, "the data input is not produced by a Gather");
  if (IntAttr(*inner, "axis").value_or(0) != 0) return NoMatch(outer, "the inner Gather axis is not 0");
  const TensorProto* i1 = graph.GetComputedConstant(inner->input(1));
  if (!i1) return NoMatch(outer, "the inner index is not constant");
  if (!IsIndexType(*i1)) return NoMatch(outer, "the inner index is not of type int64 or int32");
  if (i1->dims_size() != 1) return NoMatch(outer, "the inner index is not 1-D");
  if (!ComposeIndices(*core::builder::ConstantInts(graph, inner->input(1)),
                      *core::builder::ConstantInts(graph, outer.input(1))))
    return NoMatch(outer, "an outer index is out of the range of the inner index");
  return Matched({inner, &outer});
}

utils::RepeatedProtoField<NodeProto> GatherGatherPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Gather", "Gather"});
  const NodeProto& inner = *nodes[0];
  const NodeProto& outer = *nodes[1];
  const std::vector<std::int64_t> i3 = *ComposeIndices(*core::builder::ConstantInts(graph, inner.input(1)),
                                                       *core::builder::ConstantInts(graph, outer.input(1)));
  const TensorProto& i2 = *graph.GetComputedConstant(outer.input(1));
  const std::vector<std::int64_t> dims(i2.dims().begin(), i2.dims().end());

  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, inner.output(0))) *replacement.Add() = inner;
  NodeProto& node = *replacement.Add();
  node = outer;
  node.set_name(DerivedNodeName(graph, kName, outer));
  node.set_input(0, inner.input(0));
  node.set_input(1, graph.MakeInitializer(kName, IntTensor(i3, dims)));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
