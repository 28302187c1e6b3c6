#include "onnx_extensions/patterns/attention/function_causal_mask_mul_add_pattern.h"

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantInts;
using core::builder::ConstantScalarInt;
using core::builder::HasOneUse;
using core::builder::ProducerOf;
using attention::AddBodyConstant;
using attention::AddBodyNode;
using core::builder::IntTensor;

constexpr std::string_view kFunction = "CausalMaskMulAdd";

// The 2-input Unsqueeze producing `value`, used once.
const NodeProto* GridUnsqueeze(GraphGraph& graph, std::string_view value) {
  const NodeProto* unsqueeze = ProducerOf(graph, value, "Unsqueeze");
  if (!unsqueeze || unsqueeze->input_size() != 2 || !HasOneUse(graph, value)) return nullptr;
  return unsqueeze;
}

// Why the Range producing `value` is not an int64 Range(0, Squeeze(x), 1) used once;
// empty when it is.
std::string_view WhyNotZeroBasedRange(GraphGraph& graph, std::string_view value) {
  const NodeProto* range = ProducerOf(graph, value, "Range");
  if (!range || range->input_size() != 3) return "an Unsqueeze input is not produced by a Range";
  if (!HasOneUse(graph, value)) return "a Range has another use";
  if (graph.GetType(value) != TensorProto::INT64) return "a Range is not int64";
  if (ConstantScalarInt(graph, range->input(0)) != 0) return "a Range start is not the constant 0";
  if (ConstantScalarInt(graph, range->input(2)) != 1) return "a Range delta is not the constant 1";
  const NodeProto* squeeze = ProducerOf(graph, range->input(1), "Squeeze");
  if (!squeeze || squeeze->input_size() != 1) return "a Range limit is not produced by a Squeeze without axes";
  return {};
}

FunctionProto CausalMaskMulAddFunction(std::int64_t opset) {
  FunctionProto f = attention::NewLocalFunction(kFunction, {"A", "B", "C"}, {"mask"}, opset);
  AddBodyNode(f, "Squeeze", {"A"}, {"sA"});
  AddBodyNode(f, "Squeeze", {"B"}, {"sB"});
  AddBodyConstant(f, "zero", IntTensor({0}, {}));
  AddBodyConstant(f, "one", IntTensor({1}, {}));
  AddBodyNode(f, "Range", {"zero", "sA", "one"}, {"rg1"});
  AddBodyNode(f, "Range", {"zero", "sB", "one"}, {"rg2"});
  AddBodyConstant(f, "ax1", IntTensor({0, 1, 2}));
  AddBodyConstant(f, "ax2", IntTensor({1, 2, 3}));
  AddBodyNode(f, "Unsqueeze", {"rg1", "ax1"}, {"u1"});
  AddBodyNode(f, "Unsqueeze", {"rg2", "ax2"}, {"u2"});
  AddBodyNode(f, "Mul", {"u2", "C"}, {"m"});
  AddBodyNode(f, "Add", {"m", "u1"}, {"mask"});
  return f;
}

}  // namespace

MatchResult FunctionCausalMaskMulAddPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!core::builder::IsOp(node, "Add") || node.input_size() != 2) return NoMatch(node, "the node is not a binary Add");
  const NodeProto* u1 = GridUnsqueeze(graph, node.input(0));
  if (!u1) return NoMatch(node, "the first Add input is not an Unsqueeze with an axes input used once");
  const NodeProto* mul = ProducerOf(graph, node.input(1), "Mul");
  if (!mul) return NoMatch(node, "the second Add input is not produced by a Mul");
  if (!HasOneUse(graph, mul->output(0))) return NoMatch(node, "the Mul has another use");
  const NodeProto* u2 = GridUnsqueeze(graph, mul->input(0));
  if (!u2) return NoMatch(node, "the first Mul input is not an Unsqueeze with an axes input used once");
  if (ConstantInts(graph, u1->input(1)) != std::vector<std::int64_t>{0, 1, 2})
    return NoMatch(node, "the first Unsqueeze axes are not the constant (0, 1, 2)");
  if (ConstantInts(graph, u2->input(1)) != std::vector<std::int64_t>{1, 2, 3})
    return NoMatch(node, "the second Unsqueeze axes are not the constant (1, 2, 3)");
  for (const NodeProto* unsqueeze : {u1, u2}) {
    const std::string_view why = WhyNotZeroBasedRange(graph, unsqueeze->input(0));
    if (!why.empty()) return NoMatch(node, why);
  }
  const FunctionProto body = CausalMaskMulAddFunction(core::builder::OnnxOpset(graph));
  if (const std::string_view why = attention::WhyNotAddable(graph, body); !why.empty()) return NoMatch(node, why);
  // At the Add: C may be computed after the Ranges.
  return Matched({ProducerOf(graph, u1->input(0), "Range"), ProducerOf(graph, u2->input(0), "Range"), u1, u2, mul,
                  &node},
                 &node);
}

utils::RepeatedProtoField<NodeProto> FunctionCausalMaskMulAddPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Range", "Range", "Unsqueeze", "Unsqueeze", "Mul", "Add"});
  const NodeProto& r1 = *nodes[0];
  const NodeProto& r2 = *nodes[1];
  const NodeProto& mul = *nodes[4];
  const NodeProto& add = *nodes[5];
  const std::string a = ProducerOf(graph, r1.input(1), "Squeeze")->input(0);
  const std::string b = ProducerOf(graph, r2.input(1), "Squeeze")->input(0);
  utils::RepeatedProtoField<NodeProto> out;
  *out.Add() = attention::CallLocalFunction(graph, kName, add,
                                            CausalMaskMulAddFunction(core::builder::OnnxOpset(graph)),
                                            {a, b, mul.input(1)}, {add.output(0)});
  return out;
}

}  // namespace onnxopt::onnx_patterns
