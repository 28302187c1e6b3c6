#include "onnx_extensions/patterns/attention/function_causal_mask_pattern.h"

#include <vector>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/local_function_builder.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::AddBodyInt64Constant;
using attention::AddBodyNode;
using core::builder::ConstantInts;
using core::builder::ConstantScalarInt;
using core::builder::IsOp;
using core::builder::ProducerOf;

// CausalMask (A, B) => (mask), or ShiftedCausalMask (A, B, shift) => (mask) when `shifted`.
FunctionProto CausalMaskBody(bool shifted, std::int64_t opset) {
  FunctionProto f = shifted ? attention::NewLocalFunction("ShiftedCausalMask", {"A", "B", "shift"}, {"mask"}, opset)
                            : attention::NewLocalFunction("CausalMask", {"A", "B"}, {"mask"}, opset);
  AddBodyNode(f, "Squeeze", {"A"}, {"sA"});
  AddBodyNode(f, "Squeeze", {"B"}, {"sB"});
  AddBodyInt64Constant(f, "zero", {0}, {});
  AddBodyInt64Constant(f, "one", {1}, {});
  AddBodyNode(f, "Range", {"zero", "sB", "one"}, {"rg1"});
  AddBodyNode(f, "Range", {"sA", "sB", "one"}, {"rg2"});
  AddBodyInt64Constant(f, "ax1", {0, 1, 2}, {3});
  AddBodyInt64Constant(f, "ax2", {0, 1, 3}, {3});
  AddBodyNode(f, "Unsqueeze", {"rg1", "ax1"}, {"u1"});
  AddBodyNode(f, "Unsqueeze", {"rg2", "ax2"}, {"u2"});
  if (shifted) {
    AddBodyNode(f, "Sub", {"u2", "shift"}, {"d"});
    AddBodyNode(f, "Greater", {"u1", "d"}, {"mask"});
  } else {
    AddBodyNode(f, "LessOrEqual", {"u1", "u2"}, {"mask"});
  }
  return f;
}

// The two-input Unsqueeze producing `value`, or null.
const NodeProto* AxesUnsqueeze(const GraphGraph& graph, std::string_view value) {
  const NodeProto* unsqueeze = ProducerOf(graph, value, "Unsqueeze");
  return unsqueeze && unsqueeze->input_size() == 2 ? unsqueeze : nullptr;
}

// The three-input Range producing the input of `unsqueeze`, or null.
const NodeProto* RangeOf(const GraphGraph& graph, const NodeProto& unsqueeze) {
  const NodeProto* range = ProducerOf(graph, unsqueeze.input(0), "Range");
  return range && range->input_size() == 3 ? range : nullptr;
}

// The input of the one-input Squeeze producing `value`, or empty.
std::string_view SqueezedInput(const GraphGraph& graph, std::string_view value) {
  const NodeProto* squeeze = ProducerOf(graph, value, "Squeeze");
  return squeeze && squeeze->input_size() == 1 ? std::string_view(squeeze->input(0)) : std::string_view();
}

// Why the two Range nodes do not count 0..T-1 and P..T-1 in int64 steps of 1; empty when they do.
std::string_view WhyNotRanges(GraphGraph& graph, const NodeProto& r1, const NodeProto& r2) {
  if (r1.input(1) != r2.input(1)) return "the two Range nodes have different limits";
  if (SqueezedInput(graph, r2.input(0)).empty()) return "the second Range start is not produced by a one-input Squeeze";
  if (SqueezedInput(graph, r1.input(1)).empty()) return "the Range limit is not produced by a one-input Squeeze";
  if (ConstantScalarInt(graph, r1.input(0)) != 0) return "the first Range start is not the constant 0";
  if (ConstantScalarInt(graph, r1.input(2)) != 1 || ConstantScalarInt(graph, r2.input(2)) != 1)
    return "a Range delta is not the constant 1";
  for (const NodeProto* range : {&r1, &r2})
    for (const std::string& input : range->input())
      if (graph.GetType(input) != TensorProto::INT64) return "the Range inputs are not int64";
  return {};
}

}  // namespace

MatchResult FunctionCausalMaskPattern::Match(GraphGraph& graph, const NodeProto& cmp) const {
  const bool shifted = IsOp(cmp, "Greater");
  if (!shifted && !IsOp(cmp, "LessOrEqual")) return NoMatch(cmp, "the node is neither LessOrEqual nor Greater");
  const NodeProto* u1 = AxesUnsqueeze(graph, cmp.input(0));
  if (!u1) return NoMatch(cmp, "the first compared input is not produced by a two-input Unsqueeze");
  const NodeProto* sub = ProducerOf(graph, cmp.input(1), "Sub");
  if (shifted && !sub)
    return NoMatch(cmp, "a Greater does not compare with a Sub (only ShiftedCausalMask uses Greater)");
  if (!shifted && sub) return NoMatch(cmp, "a LessOrEqual compares with a Sub (only CausalMask uses LessOrEqual)");
  const NodeProto* u2 = AxesUnsqueeze(graph, sub ? sub->input(0) : cmp.input(1));
  if (!u2) return NoMatch(cmp, "the second compared value is not produced by a two-input Unsqueeze");
  if (ConstantInts(graph, u1->input(1)) != std::vector<std::int64_t>{0, 1, 2})
    return NoMatch(cmp, "the first Unsqueeze axes are not (0, 1, 2)");
  if (ConstantInts(graph, u2->input(1)) != std::vector<std::int64_t>{0, 1, 3})
    return NoMatch(cmp, "the second Unsqueeze axes are not (0, 1, 3)");
  const NodeProto* r1 = RangeOf(graph, *u1);
  const NodeProto* r2 = RangeOf(graph, *u2);
  if (!r1 || !r2) return NoMatch(cmp, "an Unsqueeze input is not produced by a three-input Range");
  if (const std::string_view why = WhyNotRanges(graph, *r1, *r2); !why.empty()) return NoMatch(cmp, why);
  const FunctionProto body = CausalMaskBody(shifted, core::builder::OnnxOpset(graph));
  if (const std::string_view why = attention::WhyNotAddable(graph, body); !why.empty()) return NoMatch(cmp, why);
  return Matched({&cmp});
}

utils::RepeatedProtoField<NodeProto> FunctionCausalMaskPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  const core::builder::ExpectedNode comparison{
      "LessOrEqual or Greater", [](const NodeProto& n) { return IsOp(n, "LessOrEqual") || IsOp(n, "Greater"); }};
  core::builder::ExpectMatchedNodes(*this, nodes, {comparison});
  const NodeProto& cmp = *nodes[0];
  const bool shifted = IsOp(cmp, "Greater");
  const NodeProto* sub = shifted ? graph.NodeBefore(cmp.input(1)) : nullptr;
  const NodeProto& u1 = *graph.NodeBefore(cmp.input(0));
  const NodeProto& u2 = *graph.NodeBefore(sub ? sub->input(0) : cmp.input(1));
  const NodeProto& r1 = *graph.NodeBefore(u1.input(0));
  const NodeProto& r2 = *graph.NodeBefore(u2.input(0));
  std::vector<std::string_view> inputs{SqueezedInput(graph, r2.input(0)), SqueezedInput(graph, r1.input(1))};
  if (sub) inputs.push_back(sub->input(1));
  utils::RepeatedProtoField<NodeProto> out;
  *out.Add() = attention::CallLocalFunction(graph, kName, cmp, CausalMaskBody(shifted, core::builder::OnnxOpset(graph)),
                                            inputs, {cmp.output(0)});
  return out;
}

}  // namespace onnxopt::onnx_patterns
