#include "onnx_extensions/patterns/algebra/same_children_from_input_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

MatchResult SameChildrenFromInputPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (core::builder::OptionalInput(node, 0).empty()) return NoMatch(node, "the node has no first input");
  const std::string& input = node.input(0);
  if (graph.NodeBefore(input)) return NoMatch(node, "the first input is produced by a node");
  const std::vector<const NodeProto*>& readers = graph.NextNodes(input);
  if (readers.size() < 2) return NoMatch(node, "the first input has a single reader");
  if (!core::builder::IsFirstReader(graph, input, node,
                                    [&](const NodeProto& reader) { return reader.input(0) == input; }))
    return NoMatch(node, "an earlier node reads the first input as its first input");
  algebra::DuplicateGroups found = algebra::FindDuplicateGroups(readers);
  if (found.groups.empty()) return NoMatch(node, found.why);
  const algebra::MergePlan plan(graph, std::move(found.groups));
  if (plan.Groups().empty()) return NoMatch(node, algebra::kNothingToMerge);
  return Matched(plan.Nodes(), plan.Groups().front().kept);
}

utils::RepeatedProtoField<NodeProto> SameChildrenFromInputPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  return algebra::MergeGroups(graph, kName, nodes);
}

}  // namespace onnxopt::onnx_patterns
