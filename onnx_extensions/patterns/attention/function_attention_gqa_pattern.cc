#include "onnx_extensions/patterns/attention/function_attention_gqa_pattern.h"

#include <string>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::LocalAttentionVariant;
using core::builder::IsOp;

bool IsLocalAttentionCall(const NodeProto& node) {
  return node.domain() == attention::kIntermediateDomain && attention::ParseLocalAttentionName(node.op_type());
}

// The GQA function variant for the call `call` whose expansions end with `merge`.
LocalAttentionVariant GqaVariant(const NodeProto& call, const NodeProto& merge) {
  LocalAttentionVariant variant = *attention::ParseLocalAttentionName(call.op_type());
  variant.gqa = true;
  variant.squeeze = IsOp(merge, "Squeeze");
  variant.fused = false;
  return variant;
}

}  // namespace

std::set<std::string> FunctionAttentionGQAPattern::FastOpType() const { return attention::LocalAttentionOpTypes(); }

MatchResult FunctionAttentionGQAPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsLocalAttentionCall(node)) return NoMatch(node, "the node is not a non-GQA intermediate LocalAttention call");
  if (core::builder::OnnxOpset(graph) < 18) return NoMatch(node, "the main opset is below 18");
  if (node.input_size() < 3 || node.input_size() > 5 || node.output_size() != 1)
    return NoMatch(node, "the call does not have three to five inputs and one output");
  if (node.input(1) == node.input(2)) return NoMatch(node, "the keys and values are one tensor");
  std::string_view why;
  const auto keys = attention::MatchGqaExpansion(graph, node.input(1), &why);
  if (!keys) return NoMatch(node, why);
  const auto values = attention::MatchGqaExpansion(graph, node.input(2), &why);
  if (!values) return NoMatch(node, why);
  if (keys->merge->op_type() != values->merge->op_type() || keys->expand_shape != values->expand_shape ||
      keys->merge_arg != values->merge_arg)
    return NoMatch(node, "the keys and values expansions differ");
  for (const auto* side : {&*keys, &*values})
    if (!(why = attention::WhyNotSameDims(graph, side->unsqueeze->input(0), side->merge->output(0))).empty())
      return NoMatch(node, why);
  const LocalAttentionVariant called = *attention::ParseLocalAttentionName(node.op_type());
  if (graph.GetType(keys->unsqueeze->input(0)) != called.elem_type)
    return NoMatch(node, "the keys element type is not the type of the function");
  // Only these types have a body (its -inf and 0 constants); the check also keeps
  // LocalAttentionFunction from throwing on a name such as LocalAttention_to7.
  if (!attention::IsAttentionElementType(called.elem_type))
    return NoMatch(node, "the function element type is not float, float16, double or bfloat16");
  // The name alone does not tell what the call computes: a model may define another body under it.
  const std::int64_t opset = core::builder::OnnxOpset(graph);
  if (!(why = attention::WhyNotOwnFunction(graph, attention::LocalAttentionFunction(called, opset))).empty())
    return NoMatch(node, why);
  const FunctionProto gqa = attention::LocalAttentionFunction(GqaVariant(node, *keys->merge), opset);
  if (!(why = attention::WhyNotAddable(graph, gqa)).empty()) return NoMatch(node, why);
  return Matched({&node, keys->unsqueeze, keys->expand, keys->merge, values->unsqueeze, values->expand, values->merge},
                 &node);
}

utils::RepeatedProtoField<NodeProto> FunctionAttentionGQAPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  const core::builder::ExpectedNode unsqueeze{"Unsqueeze", [](const NodeProto& n) { return IsOp(n, "Unsqueeze"); }};
  const core::builder::ExpectedNode expand{"Expand", [](const NodeProto& n) { return IsOp(n, "Expand"); }};
  const core::builder::ExpectedNode merge{
      "Reshape or Squeeze", [](const NodeProto& n) { return IsOp(n, "Reshape") || IsOp(n, "Squeeze"); }};
  core::builder::ExpectMatchedNodes(
      *this, nodes,
      {{"LocalAttention call", IsLocalAttentionCall}, unsqueeze, expand, merge, unsqueeze, expand, merge});
  const NodeProto& call = *nodes[0];
  const LocalAttentionVariant variant = GqaVariant(call, *nodes[3]);
  utils::RepeatedProtoField<NodeProto> out;
  *out.Add() = attention::CallLocalFunction(
      graph, kName, call, attention::LocalAttentionFunction(variant, core::builder::OnnxOpset(graph)),
      {call.input(0), nodes[1]->input(0), nodes[4]->input(0), core::builder::OptionalInput(call, 3),
       core::builder::OptionalInput(call, 4), nodes[2]->input(1), nodes[3]->input(1)},
      {call.output(0)});
  return out;
}

}  // namespace onnxopt::onnx_patterns
