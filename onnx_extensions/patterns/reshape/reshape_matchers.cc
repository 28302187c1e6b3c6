#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::reshape {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::IsOp;

NodeProto IdentityOf(GraphGraph& graph, std::string_view pattern, const NodeProto& reshape) {
  return core::builder::IdentityNode(graph, pattern, reshape, reshape.input(0), reshape.output(0));
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

const NodeProto* ShapeConcat(const GraphGraph& graph, const NodeProto& reshape, std::string_view* why) {
  const NodeProto* concat = core::builder::ProducerOf(graph, reshape.input(1), "Concat");
  if (!concat || concat->output_size() != 1) {
    *why = "the shape input is not produced by a Concat";
    return nullptr;
  }
  if (const auto axis = IntAttr(*concat, "axis"); axis != 0 && axis != -1) {
    *why = "the Concat does not concatenate along axis 0";
    return nullptr;
  }
  return concat;
}

const NodeProto* InferredPieceInsertAt(const GraphGraph& graph, const NodeProto& concat, const NodeProto& reshape,
                                       std::string_view* why) {
  if (core::builder::HasOneUse(graph, concat.output(0))) return &reshape;
  const NodeProto* data = graph.NodeBefore(reshape.input(0));
  if (data && graph.Position(*data) > graph.Position(concat)) {
    *why = "the Concat has other readers and the data input of the Reshape is computed after it";
    return nullptr;
  }
  return &concat;
}

std::string_view WhyMinusOneNotInferable(const GraphGraph& graph, const NodeProto& reshape, std::size_t position) {
  // The dim at `position` itself may be unknown: the -1 stands for it.
  const core::shapes::SymTensor* output = graph.FindShape(reshape.output(0));
  if (!output) return "the rank of the output is not known";
  if (!core::builder::MinusOneInferableAt(output->shape, position))
    return "another dim of the output may be 0 (an empty tensor), where a -1 cannot be inferred";
  return {};
}

utils::RepeatedProtoField<NodeProto> InferPiece(GraphGraph& graph, std::string_view pattern, const NodeProto& concat,
                                                const NodeProto& reshape, int piece) {
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, concat.output(0))) *replacement.Add() = concat;
  NodeProto& shape = *replacement.Add() = concat;
  shape.set_name(DerivedNodeName(graph, pattern, concat));
  shape.set_input(piece, graph.MakeInitializer(pattern, IntTensor({-1})));
  shape.set_output(0, graph.Builder().UniqueName(pattern));
  NodeProto& node = *replacement.Add() = reshape;
  node.set_name(DerivedNodeName(graph, pattern, reshape));
  node.set_input(1, shape.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns::reshape
