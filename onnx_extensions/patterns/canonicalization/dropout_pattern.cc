#include "onnx_extensions/patterns/canonicalization/dropout_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::OptionalInput;

MatchResult DropoutPattern::Match(GraphGraph& graph, const NodeProto& dropout) const {
  if (!core::builder::IsOp(dropout, "Dropout") || dropout.input_size() < 1 || dropout.output_size() < 1)
    return NoMatch(dropout, "the node is not a default-domain Dropout");
  for (int i = 1; i < dropout.output_size(); ++i)
    if (!dropout.output(i).empty() && graph.IsUsed(dropout.output(i)))
      return NoMatch(dropout, "the mask output is used");
  if (core::builder::OnnxOpset(graph) < 7) {
    if (core::builder::IntAttr(dropout, "is_test").value_or(0) == 0)
      return NoMatch(dropout, "the Dropout runs in training mode (is_test is 0)");
    return Matched({&dropout});
  }
  const std::string_view ratio = OptionalInput(dropout, 1);
  if (!ratio.empty() && graph.IsConstantScalar(ratio, 0.0)) return Matched({&dropout});
  const std::string_view training_mode = OptionalInput(dropout, 2);
  if (training_mode.empty()) return Matched({&dropout});
  const std::optional<core::builder::NumericConstant> training =
      core::builder::ConstantDoubles(graph, training_mode);
  if (!training || training->elements.size() != 1) return NoMatch(dropout, "training_mode is not a constant");
  if (training->elements[0] != 0) return NoMatch(dropout, "training_mode is true");
  return Matched({&dropout});
}

utils::RepeatedProtoField<NodeProto> DropoutPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Dropout"});
  utils::RepeatedProtoField<NodeProto> replacement;
  canonicalization::AddIdentity(replacement, graph, kName, *nodes[0], nodes[0]->input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
