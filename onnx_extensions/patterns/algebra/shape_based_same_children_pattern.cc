#include "onnx_extensions/patterns/algebra/shape_based_same_children_pattern.h"

#include <unordered_map>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;
using core::builder::KnownShape;
using core::shapes::SymShape;

namespace {

bool IsShapingNode(const NodeProto& node) {
  return (IsOp(node, "Expand") || IsOp(node, "Reshape")) && node.input_size() == 2 && node.output_size() == 1;
}

// The first `op_type` readers of `data` (as data) with one known output shape, at least
// two, earliest first; empty when no two have the same shape. Readers are bucketed by the
// text of their shape (equal shapes print the same), so that n readers of n different
// shapes cost n lookups, not n^2 / 2 comparisons.
std::vector<const NodeProto*> SameShapeGroup(const GraphGraph& graph, const std::string& data,
                                             std::string_view op_type) {
  std::vector<const NodeProto*> candidates;
  std::unordered_map<std::string, std::vector<std::size_t>> by_text;
  for (const NodeProto* reader : graph.NextNodes(data))
    if (reader->op_type() == op_type && IsShapingNode(*reader) && reader->input(0) == data &&
        KnownShape(graph, reader->output(0))) {
      by_text[KnownShape(graph, reader->output(0))->ToString()].push_back(candidates.size());
      candidates.push_back(reader);
    }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const SymShape& shape = *KnownShape(graph, candidates[i]->output(0));
    std::vector<const NodeProto*> group = {candidates[i]};
    for (std::size_t j : by_text.at(shape.ToString()))
      if (j > i && *KnownShape(graph, candidates[j]->output(0)) == shape) group.push_back(candidates[j]);
    if (group.size() > 1) return group;
  }
  return {};
}

}  // namespace

MatchResult ShapeBasedSameChildrenPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsShapingNode(node)) return NoMatch(node, "the node is not a default-domain Expand or Reshape with two inputs");
  if (graph.NextNodes(node.input(0)).size() < 2) return NoMatch(node, "the data input has a single reader");
  // One match per data value: from its first Expand or Reshape (every other one would find
  // the same group, n times n comparisons).
  if (!core::builder::IsFirstReader(graph, node.input(0), node, [&](const NodeProto& reader) {
        return IsShapingNode(reader) && reader.input(0) == node.input(0);
      }))
    return NoMatch(node, "an earlier Expand or Reshape reads the same data");
  for (std::string_view op_type : {"Expand", "Reshape"}) {
    std::vector<const NodeProto*> group = SameShapeGroup(graph, node.input(0), op_type);
    // The first node of the group is the earliest: the replacement goes there.
    if (!group.empty()) return Matched(group, group.front());
  }
  return NoMatch(node, "no two Expand or Reshape nodes of the data give the same known shape");
}

utils::RepeatedProtoField<NodeProto> ShapeBasedSameChildrenPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  if (nodes.size() < 2) throw BuilderError(std::string(kName) + "::Apply expects two nodes or more");
  const core::builder::ExpectedNode shaping{"default-domain Expand or Reshape", IsShapingNode};
  for (const NodeProto* node : nodes) core::builder::ExpectMatchedNodes(*this, {node}, {shaping});
  utils::RepeatedProtoField<NodeProto> replacement;
  algebra::KeepAndAlias(replacement, graph, kName, *nodes.front(), {nodes.begin() + 1, nodes.end()});
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
