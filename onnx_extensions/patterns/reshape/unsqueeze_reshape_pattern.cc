#include "onnx_extensions/patterns/reshape/unsqueeze_reshape_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntTensor;
using core::builder::NormalizeAxis;
using core::builder::ProducerOf;
using core::builder::RankOf;

MatchResult UnsqueezeReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  const auto shape = ConstantInts(graph, node.input(1));
  if (!shape) return NoMatch(node, "the shape input is not constant");
  const NodeProto* unsqueeze = ProducerOf(graph, node.input(0), "Unsqueeze");
  if (!unsqueeze || unsqueeze->output_size() != 1)
    return NoMatch(node, "the data input is not produced by an Unsqueeze");
  if (!HasOneUse(graph, node.input(0))) return NoMatch(node, "the output of the Unsqueeze has other readers");
  const std::optional<std::size_t> rank = RankOf(graph, unsqueeze->input(0));
  if (!rank) return NoMatch(node, "the rank of the input of the Unsqueeze is not known");
  if (*rank + 1 != shape->size()) return NoMatch(node, "the shape does not have one entry more than the rank of x");
  const auto axes = unsqueeze->input_size() == 2 ? ConstantInts(graph, unsqueeze->input(1)) : std::nullopt;
  if (!axes) return NoMatch(node, "the Unsqueeze does not have a constant axes input");
  if (axes->size() != 1 || NormalizeAxis(axes->front(), *rank + 1) != 2 ||
      *shape != std::vector<std::int64_t>{0, 1, -1, 0})
    return NoMatch(node, "the axes and the shape are not the handled case (2) and (0, 1, -1, 0)");
  return Matched({unsqueeze, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> UnsqueezeReshapePattern::Apply(GraphGraph& graph,
                                                                    const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Unsqueeze", "Reshape"});
  const NodeProto& unsqueeze = *nodes[0];
  const NodeProto& reshape = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = unsqueeze;
  node.set_name(DerivedNodeName(graph, kName, unsqueeze));
  node.set_input(1, graph.MakeInitializer(kName, IntTensor({1})));
  node.set_output(0, reshape.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
