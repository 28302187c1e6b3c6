#include "onnx_extensions/patterns/canonicalization/conv_bias_null_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

MatchResult ConvBiasNullPattern::Match(GraphGraph& graph, const NodeProto& conv) const {
  if (!core::builder::IsOp(conv, "Conv") || conv.output_size() != 1)
    return NoMatch(conv, "the node is not a default-domain Conv with one output");
  if (core::builder::OptionalInput(conv, 2).empty()) return NoMatch(conv, "the Conv has no bias input");
  const std::optional<core::builder::NumericConstant> bias = core::builder::ConstantDoubles(graph, conv.input(2));
  if (!bias) return NoMatch(conv, "the bias is not a computable constant");
  if (!std::all_of(bias->elements.begin(), bias->elements.end(), [](double v) { return v == 0; }))
    return NoMatch(conv, "the bias has a non-zero element");
  return Matched({&conv});
}

utils::RepeatedProtoField<NodeProto> ConvBiasNullPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Conv"});
  const NodeProto& conv = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = canonicalization::AddDerivedNode(replacement, graph, kName, conv, "Conv");
  node.set_domain(conv.domain());
  node.add_input(conv.input(0));
  node.add_input(conv.input(1));
  node.add_output(conv.output(0));
  *node.mutable_attribute() = conv.attribute();
  node.set_doc_string(conv.doc_string());
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
