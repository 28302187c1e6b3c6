#include "onnx_extensions/patterns/normalization/rms_normalization_mul_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::SoleConsumer;
using normalization::OtherInput;

std::set<std::string> RMSNormalizationMulPattern::FastOpType() const { return {"RMSNormalization"}; }

MatchResult RMSNormalizationMulPattern::Match(GraphGraph& graph, const NodeProto& rms) const {
  if (!IsOp(rms, "RMSNormalization") || rms.input_size() < 2)
    return NoMatch(rms, "the node is not a default-domain RMSNormalization with a scale");
  if (!normalization::OpsetAtLeast(graph, 23)) return NoMatch(rms, "the main opset is below 23 (RMSNormalization)");
  const NodeProto* mul = SoleConsumer(graph, rms.output(0), "Mul");
  if (!mul) return NoMatch(rms, "the output is not read by a single Mul");
  const std::string_view g = OtherInput(*mul, rms.output(0));
  if (g.empty()) return NoMatch(rms, "the Mul multiplies the output by itself");
  const auto* shape_w = KnownShape(graph, rms.input(1));
  const auto* shape_g = KnownShape(graph, g);
  if (!shape_w || !shape_g || shape_w->Dims() != shape_g->Dims())
    return NoMatch(rms, "the scale and the other input of the Mul do not have the same known shape");
  if (!graph.IsConstant(rms.input(1)) || !graph.IsConstant(g))
    return NoMatch(rms, "the scale or the other input of the Mul is not a constant");
  // n*(w*g) where the model computed (n*w)*g: w*g may overflow float16 where n*w did not.
  if (core::builder::RegroupedProductMayOverflow(graph, graph.GetType(rms.output(0)), rms.input(1), g))
    return NoMatch(rms, "the element type is float16, where the product of the two scales can overflow");
  return Matched({&rms, mul}, mul);
}

// (n*w)*g = n*(w*g): w*g is a constant the driver folds into an initializer.
utils::RepeatedProtoField<NodeProto> RMSNormalizationMulPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"RMSNormalization", "Mul"});
  const NodeProto& rms = *nodes[0];
  const NodeProto& mul = *nodes[1];
  utils::RepeatedProtoField<NodeProto> out;
  const std::string wg =
      normalization::AddNode(out, graph, kName, rms, "Mul", {rms.input(1), std::string(OtherInput(mul, rms.output(0)))})
          .output(0);
  NodeProto& fused = *out.Add() = rms;
  fused.set_name(core::builder::DerivedNodeName(graph, kName, rms));
  fused.set_input(1, wg);
  fused.set_output(0, mul.output(0));
  return out;
}

}  // namespace onnxopt::onnx_patterns
