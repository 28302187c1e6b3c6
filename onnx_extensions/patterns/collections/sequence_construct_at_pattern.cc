#include "onnx_extensions/patterns/collections/sequence_construct_at_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalarInt;

MatchResult SequenceConstructAtPattern::Match(GraphGraph& graph, const NodeProto& construct) const {
  if (!core::builder::IsOp(construct, "SequenceConstruct"))
    return NoMatch(construct, "the node is not a default-domain SequenceConstruct");
  const std::string& seq = construct.output(0);
  if (graph.IsOutput(seq) || graph.IsUsedBySubgraph(seq))
    return NoMatch(construct, "the sequence is a graph output or read by a subgraph");
  const std::vector<const NodeProto*>& users = graph.NextNodes(seq);
  for (const NodeProto* user : users)
    if (!core::builder::IsOp(*user, "SequenceAt")) return NoMatch(construct, "a reader of the sequence is not a SequenceAt");
  if (users.size() != static_cast<std::size_t>(construct.input_size()))
    return NoMatch(construct, "the sequence does not have one SequenceAt per element");
  std::vector<bool> seen(users.size(), false);
  for (const NodeProto* user : users) {
    const std::optional<std::int64_t> p = ConstantScalarInt(graph, user->input(1));
    if (!p) return NoMatch(construct, "a position is not a constant scalar");
    if (*p < 0 || *p >= static_cast<std::int64_t>(users.size()) || seen[static_cast<std::size_t>(*p)])
      return NoMatch(construct, "the positions are not 0, 1, ..., n-1");
    seen[static_cast<std::size_t>(*p)] = true;
  }
  std::vector<const NodeProto*> nodes = {&construct};
  nodes.insert(nodes.end(), users.begin(), users.end());
  return Matched(nodes);
}

utils::RepeatedProtoField<NodeProto> SequenceConstructAtPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, {nodes.front()}, {"SequenceConstruct"});
  const NodeProto& construct = *nodes.front();
  utils::RepeatedProtoField<NodeProto> replacement;
  for (std::size_t k = 1; k < nodes.size(); ++k) {
    core::builder::ExpectMatchedNodes(*this, {nodes[k]}, {"SequenceAt"});
    const std::int64_t p = *ConstantScalarInt(graph, nodes[k]->input(1));
    *replacement.Add() = core::builder::IdentityNode(graph, kName, *nodes[k], construct.input(static_cast<int>(p)),
                                                     nodes[k]->output(0));
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
