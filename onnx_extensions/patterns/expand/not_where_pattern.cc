#include "onnx_extensions/patterns/expand/not_where_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::IsOp;
using core::builder::SoleConsumer;

MatchResult NotWherePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Not") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Not with one input");
  const NodeProto* where = SoleConsumer(graph, node.output(0), "Where");
  if (!where) return NoMatch(node, "the output of the Not is not read by a Where alone");
  if (where->input_size() != 3 || where->input(0) != node.output(0))
    return NoMatch(node, "the Not is not the condition of the Where");
  if (where->input(1) == node.output(0) || where->input(2) == node.output(0))
    return NoMatch(node, "the Not is also a value branch of the Where");
  // The branches may be defined between the Not and the Where.
  return Matched({&node, where}, where);
}

utils::RepeatedProtoField<NodeProto> NotWherePattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Not", "Where"});
  const NodeProto& negation = *nodes[0];
  const NodeProto& where = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = where;
  node.set_name(DerivedNodeName(graph, kName, where));
  node.set_input(0, negation.input(0));
  node.set_input(1, where.input(2));
  node.set_input(2, where.input(1));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
