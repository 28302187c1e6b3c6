#include "onnx_extensions/patterns/canonicalization/pad_conv_pattern.h"

#include <optional>
#include <string>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"
#include "onnx_extensions/patterns/pad_matchers.h"

namespace onnxopt::onnx_patterns {

MatchResult PadConvPattern::Match(GraphGraph& graph, const NodeProto& conv) const {
  if (!core::builder::IsOp(conv, "Conv") || conv.input_size() < 2)
    return NoMatch(conv, "the node is not a default-domain Conv with two inputs or more");
  if (core::builder::StringAttr(conv, "auto_pad").value_or("NOTSET") != "NOTSET")
    return NoMatch(conv, "the Conv has an auto_pad other than NOTSET");
  const NodeProto* pad = core::builder::ProducerOf(graph, conv.input(0), "Pad");
  if (!pad) return NoMatch(conv, "the Conv input is not produced by a Pad");
  if (!core::builder::HasOneUse(graph, pad->output(0))) return NoMatch(conv, "the padded tensor has another reader");
  std::string_view why;
  const std::optional<padding::SpatialConstantPad> spatial = padding::MatchSpatialConstantPad(graph, *pad, &why);
  if (!spatial) return NoMatch(conv, why);
  // The Conv pads with zeros.
  if (spatial->value != 0) return NoMatch(conv, "the padding value is not zero");
  if (const std::optional<std::string_view> unfit = padding::WhyPadsAttributeUnfit(conv, spatial->full))
    return NoMatch(conv, *unfit);
  // At the Conv: its weights and bias may be computed after the Pad.
  return Matched({pad, &conv}, &conv);
}

utils::RepeatedProtoField<NodeProto> PadConvPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Pad", "Conv"});
  const NodeProto& pad = *nodes[0];
  const NodeProto& conv = *nodes[1];
  std::string_view why;
  const std::optional<padding::Pads> full = padding::FullPads(graph, pad, &why);
  if (!full) throw BuilderError(std::string(kName) + "::Apply: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = canonicalization::AddDerivedNode(replacement, graph, kName, conv, "Conv");
  node.set_domain(conv.domain());
  node.add_input(pad.input(0));
  for (int i = 1; i < conv.input_size(); ++i) node.add_input(conv.input(i));
  node.add_output(conv.output(0));
  node.set_doc_string(conv.doc_string());
  for (const AttributeProto& attr : conv.attribute())
    if (attr.name() != "pads") *node.add_attribute() = attr;
  core::builder::AddIntsAttribute(node, "pads", padding::MergedPads(conv, *full));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
