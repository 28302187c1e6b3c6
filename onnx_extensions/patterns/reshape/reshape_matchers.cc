#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::reshape {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::ConstantInts;
using core::builder::IsOp;

bool IsPlainReshape(const NodeProto& node) { return WhyNotPlainReshape(node).empty(); }

std::string_view WhyNotPlainReshape(const NodeProto& node) {
  if (!IsOp(node, "Reshape") || node.input_size() != 2 || node.output_size() != 1)
    return "the node is not a default-domain Reshape with two inputs";
  if (IntAttr(node, "allowzero").value_or(0) != 0) return "the Reshape has allowzero=1";
  return {};
}

NodeProto IdentityOf(GraphGraph& graph, std::string_view pattern, const NodeProto& reshape) {
  NodeProto node;
  node.set_op_type("Identity");
  node.set_name(DerivedNodeName(graph, pattern, reshape));
  node.add_input(reshape.input(0));
  node.add_output(reshape.output(0));
  return node;
}

const std::set<std::string>& ReshapableBinaryOps() {
  static const std::set<std::string> kOps = {"Add", "And", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
                                             "Div", "Max", "Mean",       "Min",       "Mod",
                                             "Mul", "Or",  "Sub",        "Sum",       "Xor"};
  return kOps;
}

bool IsReshapableBinary(const NodeProto& node) {
  return core::builder::IsOnnxDomain(node.domain()) && ReshapableBinaryOps().contains(node.op_type()) &&
         node.input_size() == 2 && node.output_size() == 1;
}

std::optional<std::vector<SymDim>> ShapeValue(GraphGraph& graph, std::string_view value) {
  if (const auto ints = ConstantInts(graph, value)) return std::vector<SymDim>(ints->begin(), ints->end());
  if (!graph.HasShape(value)) return std::nullopt;
  const core::shapes::SymTensor& tensor = graph.GetShape(value);
  if (!tensor.HasValue() || !tensor.shape.HasRank() || tensor.shape.Rank() != 1) return std::nullopt;
  return tensor.value;
}

}  // namespace onnxopt::onnx_patterns::reshape
