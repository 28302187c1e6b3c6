#include "onnx_extensions/patterns/elimination/dequantize_linear_quantize_linear_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ExpectMatchedNodes;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;

MatchResult DequantizeLinearQuantizeLinearPattern::Match(GraphGraph& graph, const NodeProto& quantize) const {
  if (!IsOp(quantize, "QuantizeLinear") || quantize.input_size() < 2 || quantize.output_size() != 1)
    return NoMatch(quantize, "the node is not a default-domain QuantizeLinear");
  const NodeProto* dequantize = ProducerOf(graph, quantize.input(0), "DequantizeLinear");
  if (!dequantize || dequantize->output_size() != 1)
    return NoMatch(quantize, "the input is not produced by a DequantizeLinear");
  if (dequantize->input_size() != quantize.input_size())
    return NoMatch(quantize, "the two nodes do not share their scale and zero point");
  for (int i = 1; i < quantize.input_size(); ++i)
    if (dequantize->input(i) != quantize.input(i))
      return NoMatch(quantize, "the two nodes do not share their scale and zero point");
  if (IntAttr(*dequantize, "axis").value_or(1) != IntAttr(quantize, "axis").value_or(1) ||
      IntAttr(*dequantize, "block_size").value_or(0) != IntAttr(quantize, "block_size").value_or(0))
    return NoMatch(quantize, "the two nodes quantize along other axes or blocks");
  const int quantized_type = graph.GetType(dequantize->input(0));
  if (quantized_type == 0 || graph.GetType(quantize.output(0)) != quantized_type)
    return NoMatch(quantize, "the QuantizeLinear does not produce the type the DequantizeLinear reads");
  const TensorProto* scale = graph.GetComputedConstant(quantize.input(1));
  if (!scale) return NoMatch(quantize, "the scale is not a constant");
  if (!core::builder::QuantizationRoundTripsExactly(quantized_type, *scale))
    return NoMatch(quantize, "the round trip may change a value (the data or the scale is not of a type and range "
                             "that keep it)");
  return Matched({&quantize});
}

utils::RepeatedProtoField<NodeProto> DequantizeLinearQuantizeLinearPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"QuantizeLinear"});
  const NodeProto& quantize = *nodes[0];
  const NodeProto& dequantize = *graph.NodeBefore(quantize.input(0));
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, kName, quantize, dequantize.input(0), quantize.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
