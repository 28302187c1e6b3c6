#include "onnx_extensions/patterns/algebra/same_children_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using algebra::NodePair;

namespace {

// Upstream's chain extension below the single pair of `plan`: readers of the kept output
// and of its duplicate that are duplicates of each other, given the pairs found so far,
// are paired in turn (the last found first). A node with several outputs, or a reader
// already paired, ends the extension.
void ExtendChain(const GraphGraph& graph, algebra::MergePlan& plan) {
  const algebra::DuplicateGroup& single = plan.Groups().front();
  std::vector<NodePair> pending = {{single.kept, single.duplicates.front()}};
  while (!pending.empty()) {
    const NodePair pair = pending.back();
    pending.pop_back();
    if (pair.first->output_size() != 1 || pair.second->output_size() != 1) return;
    for (const NodeProto* m1 : graph.NextNodes(pair.first->output(0))) {
      if (m1->op_type() == "Identity") continue;
      for (const NodeProto* m2 : graph.NextNodes(pair.second->output(0))) {
        if (m1 == m2 || !algebra::WhyNotDuplicates(*m1, *m2, &plan.PairedOutputs()).empty()) continue;
        if (plan.Paired(*m1) || plan.Paired(*m2)) return;
        if (plan.Add({m1, {m2}})) pending.push_back({m1, m2});
      }
    }
  }
}

}  // namespace

MatchResult SameChildrenPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  std::string_view why;
  for (const std::string& output : node.output()) {
    if (output.empty()) continue;
    const std::vector<const NodeProto*>& readers = graph.NextNodes(output);
    if (readers.size() < 2) continue;
    algebra::DuplicateGroups found = algebra::FindDuplicateGroups(readers);
    if (found.groups.empty()) {
      // The next output is tried only when this one gives no pair (upstream's order).
      if (why.empty()) why = found.why;
      continue;
    }
    const bool single = found.groups.size() == 1 && found.groups.front().duplicates.size() == 1;
    algebra::MergePlan plan(graph, std::move(found.groups));
    if (plan.Groups().empty()) return NoMatch(node, algebra::kNothingToMerge);
    if (single) ExtendChain(graph, plan);
    return Matched(plan.Nodes(), plan.Groups().front().kept);
  }
  return NoMatch(node, why.empty() ? "no output of the node has two readers" : why);
}

utils::RepeatedProtoField<NodeProto> SameChildrenPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  return algebra::MergeGroups(graph, kName, nodes);
}

}  // namespace onnxopt::onnx_patterns
