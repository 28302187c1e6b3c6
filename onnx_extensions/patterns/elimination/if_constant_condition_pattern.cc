#include "onnx_extensions/patterns/elimination/if_constant_condition_pattern.h"

#include <algorithm>
#include <string>
#include <utility>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/renames.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantDoubles;
using core::builder::IsOp;
using core::builder::NumericConstant;

namespace {

// The branch a constant condition selects, when it can be inlined; null with the reason
// in `*why` otherwise.
const GraphProto* TakenBranch(GraphGraph& graph, const NodeProto& node, std::string_view* why) {
  *why = "";
  if (!IsOp(node, "If") || node.input_size() != 1) {
    *why = "the node is not a default-domain If with one input";
    return nullptr;
  }
  const std::optional<NumericConstant> condition = ConstantDoubles(graph, node.input(0));
  if (!condition) {
    *why = "the condition is not a constant";
    return nullptr;
  }
  if (condition->elements.size() != 1) {
    *why = "the condition does not hold a single element";
    return nullptr;
  }
  const std::string_view name = condition->elements[0] != 0 ? "then_branch" : "else_branch";
  const GraphProto* branch = nullptr;
  for (const AttributeProto& attr : node.attribute())
    if (attr.name() == name && attr.has_g()) branch = &attr.g();
  if (!branch) *why = "the If has no graph for the taken branch";
  else if (branch->output_size() != node.output_size())
    *why = "the taken branch does not have one output per If output";
  else if (branch->input_size() != 0)
    *why = "the taken branch has inputs";
  else if (branch->sparse_initializer_size() != 0)
    *why = "the taken branch has sparse initializers";
  else if (std::any_of(branch->output().begin(), branch->output().end(),
                       [](const ValueInfoProto& output) { return output.name().empty(); }))
    *why = "an output of the taken branch has no name";
  return why->empty() ? branch : nullptr;
}

}  // namespace

MatchResult IfConstantConditionPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  std::string_view why;
  if (!TakenBranch(graph, node, &why)) return NoMatch(node, why);
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> IfConstantConditionPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"If"});
  const NodeProto& node = *nodes[0];
  std::string_view why;
  const GraphProto* branch = TakenBranch(graph, node, &why);
  if (!branch) throw BuilderError(std::string(kName) + "::Apply: " + std::string(why));

  // New names, unique in the model, for every value the branch defines: a branch-local
  // name may also be defined by the enclosing graph (after the If) or elsewhere.
  core::ir::RenameMap renames;
  for (const TensorProto& initializer : branch->initializer())
    renames[initializer.name()] = graph.MakeInitializer(initializer.name(), initializer);
  utils::RepeatedProtoField<NodeProto> inlined_nodes = branch->node();
  for (NodeProto& inlined : inlined_nodes)
    for (std::string& output : *inlined.mutable_output())
      if (!output.empty()) output = renames[output] = graph.Builder().UniqueName(output);
  // The reads: the branch's own nodes and the graphs nested in them (a nested graph's own
  // definition of a renamed name keeps its meaning).
  core::ir::RenameReads(inlined_nodes, renames);

  utils::RepeatedProtoField<NodeProto> replacement;
  for (NodeProto& inlined : inlined_nodes) {
    inlined.set_name(core::builder::DerivedNodeName(graph, kName, inlined));
    *replacement.Add() = std::move(inlined);
  }
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty()) continue;
    const std::string& value = branch->output(i).name();
    const auto renamed_value = renames.find(value);
    *replacement.Add() = core::builder::IdentityNode(
        graph, kName, node, renamed_value == renames.end() ? value : renamed_value->second, node.output(i));
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
