#include "onnx_extensions/patterns/normalization/layer_normalization_scale_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::OptionalInput;
using core::builder::SoleConsumer;
using normalization::AddNode;
using normalization::OtherInput;

namespace {

bool SameKnownShape(const GraphGraph& graph, std::string_view a, std::string_view b) {
  const auto* sa = KnownShape(graph, a);
  const auto* sb = KnownShape(graph, b);
  return sa && sb && sa->Dims() == sb->Dims();
}

// The Add after the Mul that is folded too: the only reader of the Mul's output, adding
// a value of the scale's shape; null when there is none to fold.
const NodeProto* FoldedAdd(const GraphGraph& graph, const NodeProto& mul) {
  const NodeProto* add = SoleConsumer(graph, mul.output(0), "Add");
  return add && !OtherInput(*add, mul.output(0)).empty() ? add : nullptr;
}

}  // namespace

std::set<std::string> LayerNormalizationScalePattern::FastOpType() const { return {"LayerNormalization"}; }

MatchResult LayerNormalizationScalePattern::Match(GraphGraph& graph, const NodeProto& ln) const {
  if (!IsOp(ln, "LayerNormalization") || ln.input_size() < 2)
    return NoMatch(ln, "the node is not a default-domain LayerNormalization with a scale");
  // Below opset 17 the node is no ONNX operator: nothing says which types its inputs take.
  if (!normalization::OpsetAtLeast(graph, 17)) return NoMatch(ln, "the main opset is below 17 (LayerNormalization)");
  for (int i = 1; i < ln.output_size(); ++i)
    if (!ln.output(i).empty()) return NoMatch(ln, "the LayerNormalization declares its Mean or InvStdDev output");
  const NodeProto* mul = SoleConsumer(graph, ln.output(0), "Mul");
  if (!mul) return NoMatch(ln, "the output is not read by a single Mul");
  const std::string_view s = OtherInput(*mul, ln.output(0));
  if (s.empty()) return NoMatch(ln, "the Mul multiplies the output by itself");
  if (!SameKnownShape(graph, s, ln.input(1)))
    return NoMatch(ln, "the other input of the Mul does not have the known shape of the scale");
  // n*(g*s) where the model computed (n*g)*s: g*s may overflow float16 where n*g did not.
  if (core::builder::RegroupedProductMayOverflow(graph, graph.GetType(ln.output(0)), ln.input(1), s))
    return NoMatch(ln, "the element type is float16, where the product of the two scales can overflow");
  const NodeProto* add = FoldedAdd(graph, *mul);
  if (add && !SameKnownShape(graph, OtherInput(*add, mul->output(0)), ln.input(1)))
    return NoMatch(ln, "the other input of the Add does not have the known shape of the scale");
  // At the last node: s and c may be computed after the normalization.
  return Matched({&ln, mul, add}, add ? add : mul);
}

// n*g*s + b*s + c = n*(g*s) + (b*s + c).
utils::RepeatedProtoField<NodeProto> LayerNormalizationScalePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"LayerNormalization", "Mul", ""});
  const NodeProto& ln = *nodes[0];
  const NodeProto& mul = *nodes[1];
  const NodeProto* add = nodes[2];
  const std::string s(OtherInput(mul, ln.output(0)));
  const std::string_view b = OptionalInput(ln, 2);
  utils::RepeatedProtoField<NodeProto> out;
  // g and s have the same shape: a g of ones makes g*s exactly s.
  const std::string scale = core::builder::IsConstantFilledWith(graph, ln.input(1), 1.0)
                                ? s
                                : AddNode(out, graph, kName, ln, "Mul", {ln.input(1), s}).output(0);
  std::string bias;
  if (!b.empty()) bias = AddNode(out, graph, kName, ln, "Mul", {s, std::string(b)}).output(0);
  if (add) {
    const std::string c(OtherInput(*add, mul.output(0)));
    bias = bias.empty() ? c : AddNode(out, graph, kName, ln, "Add", {bias, c}).output(0);
  }
  NodeProto& fused = *out.Add() = ln;
  fused.set_name(core::builder::DerivedNodeName(graph, kName, ln));
  fused.clear_input();
  fused.add_input(ln.input(0));
  fused.add_input(scale);
  if (!bias.empty()) fused.add_input(bias);
  fused.set_output(0, add ? add->output(0) : mul.output(0));
  return out;
}

}  // namespace onnxopt::onnx_patterns
