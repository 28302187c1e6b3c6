#include "onnx_extensions/patterns/canonicalization/not_not_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

MatchResult NotNotPattern::Match(GraphGraph& graph, const NodeProto& second) const {
  if (!core::builder::IsOp(second, "Not") || second.input_size() != 1 || second.output_size() != 1)
    return NoMatch(second, "the node is not a default-domain Not with one input and one output");
  const NodeProto* first = core::builder::ProducerOf(graph, second.input(0), "Not");
  if (!first) return NoMatch(second, "the input is not produced by a Not");
  if (first->input_size() != 1) return NoMatch(second, "the first Not does not have one input");
  return Matched({first, &second});
}

utils::RepeatedProtoField<NodeProto> NotNotPattern::Apply(GraphGraph& graph,
                                                          const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Not", "Not"});
  const NodeProto& first = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, first.output(0))) *replacement.Add() = first;
  canonicalization::AddIdentity(replacement, graph, kName, *nodes[1], first.input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
