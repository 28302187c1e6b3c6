#include "onnx_extensions/patterns/fusion/div_power_of_two_pattern.h"

#include <algorithm>
#include <cmath>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/fusion/fusion_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

bool IsDiv(const NodeProto& node) { return core::builder::IsOp(node, "Div"); }

// Whether 1/value is exact in `elem_type`: value = ±2^k and 2^-k is normal there.
bool HasExactReciprocal(double value, int elem_type) {
  int exponent = 0;
  return std::isfinite(value) && std::abs(std::frexp(value, &exponent)) == 0.5 &&
         core::builder::IsNormalIn(1.0 / value, elem_type);
}

}  // namespace

MatchResult DivPowerOfTwoPattern::Match(GraphGraph& graph, const NodeProto& div) const {
  if (!IsDiv(div) || div.input_size() != 2 || div.output_size() != 1)
    return NoMatch(div, "the node is not a default-domain Div with two inputs");
  // Before opset 7, a Mul broadcasts only with broadcast=1 (and `axis`), which the new Mul
  // does not carry.
  if (!core::builder::BroadcastsMultidirectionally(graph)) return NoMatch(div, "the opset is older than 7");
  const int elem_type = graph.GetType(div.input(1));
  if (!fusion::IsFloatType(elem_type)) return NoMatch(div, "the divisor is not of a float type");
  const std::optional<core::builder::NumericConstant> divisor = core::builder::ConstantDoubles(graph, div.input(1));
  if (!divisor) return NoMatch(div, "the divisor is not a constant");
  if (!std::all_of(divisor->elements.begin(), divisor->elements.end(),
                   [&](double value) { return HasExactReciprocal(value, elem_type); }))
    return NoMatch(div, "an element of the divisor is not a power of two with an exact reciprocal");
  return Matched({&div});
}

utils::RepeatedProtoField<NodeProto> DivPowerOfTwoPattern::Apply(GraphGraph& graph,
                                                                 const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Div"});
  const NodeProto& div = *nodes[0];
  core::builder::NumericConstant divisor = *core::builder::ConstantDoubles(graph, div.input(1));
  for (double& value : divisor.elements) value = 1.0 / value;
  const std::string reciprocal =
      graph.MakeInitializer(kName, fusion::FloatTensor(graph.GetType(div.input(1)), divisor.dims, divisor.elements));
  utils::RepeatedProtoField<NodeProto> replacement;
  core::builder::AddNode(replacement, graph, kName, div, "Mul", {div.input(0), reciprocal}, div.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
