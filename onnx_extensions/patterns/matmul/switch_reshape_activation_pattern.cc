#include "onnx_extensions/patterns/matmul/switch_reshape_activation_pattern.h"

#include <algorithm>
#include <set>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::NormalizeAxis;
using core::builder::RankOf;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

const std::set<std::string>& Activations() {
  static const std::set<std::string> kActivations = {"Cos",       "Cosh",  "Elu",  "Erf",  "Exp",     "Gelu",
                                                     "LeakyRelu", "PRelu", "Relu", "Selu", "Sin",     "Sinh",
                                                     "Softmax",   "Softplus", "Tan", "Tanh"};
  return kActivations;
}

bool IsActivation(const NodeProto& node) {
  if (!IsOp(node, node.op_type()) || !Activations().contains(node.op_type()) || node.output_size() != 1) return false;
  return node.input_size() == (node.op_type() == "PRelu" ? 2 : 1);
}

bool IsLayout(const NodeProto& node) {
  return (IsOp(node, "Transpose") && node.input_size() == 1) || (IsOp(node, "Reshape") && node.input_size() == 2);
}

// The Softmax axis of the layout node's input that holds the axis `softmax` normalizes
// in its output, as the attribute to write (negative when the original is); nullopt with
// `why` set when the layout node moves that axis or regroups the axes after it.
std::optional<std::int64_t> AxisBefore(GraphGraph& graph, const NodeProto& layout, const NodeProto& softmax,
                                       std::string_view* why) {
  const auto reject = [why](std::string_view reason) {
    *why = reason;
    return std::nullopt;
  };
  if (core::builder::OnnxOpset(graph) < 13)
    return reject("Softmax normalizes the flattened trailing axes before opset 13");
  const std::int64_t attribute = IntAttr(softmax, "axis").value_or(-1);
  const SymShape* out = KnownShape(graph, layout.output(0));
  const SymShape* in = KnownShape(graph, layout.input(0));
  if (!out || !in) return reject("the shapes around the Reshape or Transpose are not known");
  const std::optional<std::int64_t> axis = NormalizeAxis(attribute, out->Rank());
  if (!axis) return reject("the Softmax axis is out of range");
  const std::size_t trailing = out->Rank() - static_cast<std::size_t>(*axis);
  if (layout.op_type() == "Transpose") {
    const std::optional<matmul::Ints> perm = matmul::TransposePermutation(graph, layout);
    if (!perm || perm->size() != out->Rank() || (*perm)[*axis] != *axis)
      return reject("the Transpose moves the Softmax axis");
    return attribute;
  }
  if (in->Rank() < trailing ||
      !std::equal(out->Dims().end() - trailing, out->Dims().end(), in->Dims().end() - trailing))
    return reject("the Reshape changes the Softmax axis or an axis after it");
  const std::int64_t from_end = -static_cast<std::int64_t>(trailing);
  return attribute < 0 ? from_end : static_cast<std::int64_t>(in->Rank()) + from_end;
}

// Why the activation cannot move before `layout` (empty when it can).
std::string_view WhyNotMovable(GraphGraph& graph, const NodeProto& layout, const NodeProto& activation) {
  std::string_view why;
  if (activation.op_type() == "Softmax") {
    AxisBefore(graph, layout, activation, &why);
    return why;
  }
  if (activation.op_type() == "PRelu") {
    const SymShape* slope = KnownShape(graph, activation.input(1));
    if (!slope || !std::all_of(slope->Dims().begin(), slope->Dims().end(), [](const SymDim& d) { return d == 1; }))
      return "the PRelu slope is not known to have a single element";
    const std::optional<std::size_t> rank = RankOf(graph, layout.input(0));
    if (!rank || slope->Rank() > *rank) return "the PRelu slope may have more dimensions than the product";
  }
  return {};
}

}  // namespace

std::set<std::string> SwitchReshapeActivationPattern::FastOpType() const { return Activations(); }

MatchResult SwitchReshapeActivationPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsActivation(node)) return NoMatch(node, "the node is not one of the default-domain activations");
  const NodeProto* layout = graph.NodeBefore(node.input(0));
  if (!layout || !IsLayout(*layout))
    return NoMatch(node, "the input of the activation is not produced by a Reshape or a Transpose");
  if (!HasOneUse(graph, node.input(0))) return NoMatch(node, "the Reshape or Transpose output has other readers");
  const NodeProto* product = graph.NodeBefore(layout->input(0));
  if (!product || !(matmul::IsMatMul(*product) || matmul::IsGemm(*product)))
    return NoMatch(node, "the Reshape or Transpose does not read the output of a MatMul or a Gemm");
  if (!HasOneUse(graph, layout->input(0))) return NoMatch(node, "the output of the product has other readers");
  const std::string_view why = WhyNotMovable(graph, *layout, node);
  if (!why.empty()) return NoMatch(node, why);
  // At the activation: the PRelu slope and the Reshape shape are defined before it.
  return Matched({layout, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> SwitchReshapeActivationPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"Reshape or Transpose", IsLayout}, {"activation", IsActivation}});
  const NodeProto& layout = *nodes[0];
  const NodeProto& activation = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = *replacement.Add() = activation;
  moved.set_name(core::builder::DerivedNodeName(graph, kName, activation));
  moved.set_input(0, layout.input(0));
  moved.set_output(0, graph.Builder().UniqueName(kName));
  if (activation.op_type() == "Softmax") {
    std::string_view why;
    const std::int64_t axis = *AxisBefore(graph, layout, activation, &why);
    if (axis != IntAttr(activation, "axis").value_or(-1)) core::builder::SetIntAttribute(moved, "axis", axis);
  }
  NodeProto& after = *replacement.Add() = layout;
  after.set_name(core::builder::DerivedNodeName(graph, kName, layout));
  after.set_input(0, moved.output(0));
  after.set_output(0, activation.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
