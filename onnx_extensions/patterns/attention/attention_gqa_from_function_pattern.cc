#include "onnx_extensions/patterns/attention/attention_gqa_from_function_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::ParseLocalGqaName;
using core::builder::ExpectedNode;
using core::builder::IsOp;

bool IsLocalGqaCall(const NodeProto& node) {
  return node.domain() == attention::kIntermediateDomain && ParseLocalGqaName(node.op_type()).has_value();
}

}  // namespace

std::set<std::string> AttentionGQAFromFunctionPattern::FastOpType() const { return attention::LocalGqaOpTypes(); }

MatchResult AttentionGQAFromFunctionPattern::Match(GraphGraph& graph, const NodeProto& call) const {
  if (!IsLocalGqaCall(call)) return NoMatch(call, "the node is not an intermediate LocalAttentionGQA call");
  if (core::builder::OnnxOpset(graph) < attention::kFusedAttentionOpset)
    return NoMatch(call, "the main opset is below 23");
  if (call.output_size() > 1) return NoMatch(call, "the node has more than one output");
  if (call.input_size() != 7) return NoMatch(call, "the call does not have seven inputs");
  if (call.input(3).empty()) return NoMatch(call, "the call has no mask");
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, call.input(3));
  if (!rank || *rank < 2) return NoMatch(call, "the mask rank is not known to be at least 2");
  if (core::builder::RankOf(graph, call.input(0)) != 4) return NoMatch(call, "the query is not known to be 4-D");
  const attention::LocalGqaName name = *ParseLocalGqaName(call.op_type());
  if (graph.GetType(call.input(3)) != TensorProto::BOOL) return NoMatch(call, "the mask is not boolean");
  const std::optional<double> scale = core::builder::ConstantScalar(graph, call.input(4));
  if (!scale) return NoMatch(call, "the scale is not a constant scalar");
  // Attention's scale is s * s, which it requires above 0.
  if (!core::builder::IsNormalIn(*scale * *scale, TensorProto::FLOAT))
    return NoMatch(call, "the scale squared is not a normal float (Attention takes a scale above 0)");
  const auto e = core::builder::ConstantInts(graph, call.input(5));
  if (!e || !attention::IsHeadExpandShape(*e)) return NoMatch(call, "the expand shape is not a constant [1, 1, n, 1, 1]");
  const auto r = core::builder::ConstantInts(graph, call.input(6));
  if (!r) return NoMatch(call, "the reshape shape or squeeze axes are not constant");
  if (const std::string_view why = attention::WhyNotFusedMask(graph, call, call.input(1)); !why.empty())
    return NoMatch(call, why);
  // Only these types have a body (its -inf and 0 constants); LocalAttentionFunction throws on others.
  if (!attention::IsAttentionElementType(name.elem_type))
    return NoMatch(call, "the function element type is not float, float16, double or bfloat16");
  // onnxruntime 1.23's Attention on double drops the batch dim of Y ([4, 3, 8] for [1, 4, 3, 8]).
  if (name.elem_type == TensorProto::DOUBLE)
    return NoMatch(call, "the function element type is double, on which onnxruntime's Attention is wrong");
  std::string_view why;
  const auto caches =
      attention::MatchKvCaches(graph, call, call.input(1), call.input(2), *e, *r, name.squeeze, {}, &why);
  if (!caches) return NoMatch(call, why);
  // The name alone does not tell what the call computes: a model may define another body under it.
  const FunctionProto body = attention::LocalAttentionFunction(
      {.switched = name.switched, .gqa = true, .squeeze = name.squeeze, .elem_type = name.elem_type},
      core::builder::OnnxOpset(graph));
  if (!(why = attention::WhyNotOwnFunction(graph, body)).empty()) return NoMatch(call, why);
  return Matched({&call, caches->keys, caches->values}, &call);
}

utils::RepeatedProtoField<NodeProto> AttentionGQAFromFunctionPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  const ExpectedNode concat{"Concat", [](const NodeProto& n) { return IsOp(n, "Concat"); }};
  core::builder::ExpectMatchedNodes(*this, nodes, {{"LocalAttentionGQA call", IsLocalGqaCall}, concat, concat});
  const NodeProto& call = *nodes[0];
  utils::RepeatedProtoField<NodeProto> out;
  std::string mask = call.input(3);
  if (ParseLocalGqaName(call.op_type())->switched) {
    const std::string kept = graph.Builder().UniqueName(kName);
    attention::EmitNode(out, graph, kName, call, "Not", {mask}, {kept});
    mask = kept;
  }
  // The function scales both Q and K by s.
  const double s = *core::builder::ConstantScalar(graph, call.input(4));
  attention::EmitCachedAttention(out, graph, kName, call, {nodes[1], nodes[2]}, mask, static_cast<float>(s * s));
  return out;
}

}  // namespace onnxopt::onnx_patterns
