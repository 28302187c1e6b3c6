#include "onnx_extensions/patterns/attention/function_attention_pattern.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::LocalAttentionVariant;
using core::builder::ConstantInts;
using core::builder::ConstantScalar;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;

using Perm = std::vector<std::int64_t>;

// The positions of the matched nodes (null when the front end does not have the node).
enum Slot : std::size_t {
  kFinal,        // Y = MatMul(p, V)
  kGuard,        // p = Where(IsNaN(sm), 0, sm)
  kIsNaN,
  kSoftmax,
  kMasked,       // Add(qk, Where(mask, 0, -inf)) or Where(mask, qk, -inf) / Where(mask, -inf, qk)
  kScores,       // qk = MatMul or FusedMatMul
  kQueryMul,     // Mul(Q, s)
  kKeyMul,       // Mul(K, s), Mul(Unsqueeze(K, [2]), s) for GQA
  kKeyTranspose, // null for FusedMatMul
  kQueryReshape, kQueryTranspose, kKeyReshape,  // 3-D; kKeyReshape is also the GQA Reshape
  kKeyExpand, kKeyUnsqueeze,                     // GQA
  kValueReshape, kValueExpand, kValueUnsqueeze,  // GQA
  kSlots,
};
using Slots = std::vector<const NodeProto*>;

bool IsMinusInf(GraphGraph& graph, std::string_view value) {
  const std::optional<double> c = ConstantScalar(graph, value);
  return c && std::isinf(*c) && *c < 0;
}

bool IsFusedMatMul(const NodeProto& node) {
  return node.domain() == "com.microsoft" && node.op_type() == "FusedMatMul";
}

// Why the Softmax output is not guarded by p = Where(IsNaN(sm), 0, sm) feeding one MatMul.
std::string_view MatchNanGuard(GraphGraph& graph, const NodeProto& softmax, Slots& slots) {
  const std::string& sm = softmax.output(0);
  const std::vector<const NodeProto*>& readers = graph.NextNodes(sm);
  if (graph.IsOutput(sm) || graph.IsUsedBySubgraph(sm) || readers.size() != 2)
    return "the Softmax output is not read by exactly two nodes";
  const NodeProto* isnan = IsOp(*readers[0], "IsNaN") ? readers[0] : readers[1];
  const NodeProto* guard = isnan == readers[0] ? readers[1] : readers[0];
  if (!IsOp(*isnan, "IsNaN") || !IsOp(*guard, "Where")) return "the Softmax output is not read by an IsNaN and a Where";
  if (!HasOneUse(graph, isnan->output(0)) || guard->input(0) != isnan->output(0) || guard->input(2) != sm ||
      ConstantScalar(graph, guard->input(1)) != 0.0)
    return "the NaN guard is not Where(IsNaN(sm), 0, sm)";
  const NodeProto* final_matmul = core::builder::SoleConsumer(graph, guard->output(0), "MatMul");
  if (!final_matmul || final_matmul->input(0) != guard->output(0)) return "the NaN guard does not feed one MatMul";
  slots[kFinal] = final_matmul;
  slots[kGuard] = guard;
  slots[kIsNaN] = isnan;
  return {};
}

// Why the Softmax input is not the masked scores (add, keep or switched form); on success
// sets kMasked and returns the scores in `qk`.
std::string_view MatchMasking(GraphGraph& graph, std::string_view masked, Slots& slots, std::string* qk) {
  if (!HasOneUse(graph, masked)) return "the masked scores have another use";
  if (const NodeProto* add = ProducerOf(graph, masked, "Add")) {
    const NodeProto* bias = ProducerOf(graph, add->input(1), "Where");
    if (!bias) return "the second Add input is not produced by a Where";
    if (ConstantScalar(graph, bias->input(1)) != 0.0) return "the mask Where does not select 0 for kept positions";
    if (!IsMinusInf(graph, bias->input(2))) return "the mask Where does not select -inf for masked positions";
    *qk = add->input(0);
    slots[kMasked] = add;
    return {};
  }
  const NodeProto* where = ProducerOf(graph, masked, "Where");
  if (!where) return "the Softmax input is not produced by an Add or a Where";
  if (IsMinusInf(graph, where->input(2))) {
    *qk = where->input(1);
  } else if (IsMinusInf(graph, where->input(1))) {
    *qk = where->input(2);
  } else {
    return "no value of the mask Where is the constant -inf";
  }
  slots[kMasked] = where;
  return {};
}

// Why the FusedMatMul does not compute q * transpose(k) over the last two axes.
std::string_view WhyNotTransposedB(const NodeProto& fused) {
  if (IntAttr(fused, "transA").value_or(0) != 0 || IntAttr(fused, "transB") != 1)
    return "the FusedMatMul is not transA=0, transB=1";
  if (IntAttr(fused, "transBatchA").value_or(0) != 0 || IntAttr(fused, "transBatchB").value_or(0) != 0)
    return "the FusedMatMul transposes a batch";
  if (core::builder::FloatAttr(fused, "alpha").value_or(1.0f) != 1.0f) return "the FusedMatMul alpha is not 1";
  return {};
}

// The node producing `value` when it is a default-domain Transpose with `perm`.
const NodeProto* TransposeWith(const GraphGraph& graph, std::string_view value, const Perm& perm) {
  const NodeProto* transpose = ProducerOf(graph, value, "Transpose");
  return transpose && IntsAttr(*transpose, "perm") == perm ? transpose : nullptr;
}

// The 4-element constant shape of a Reshape without allowzero; nullopt otherwise.
std::optional<std::vector<std::int64_t>> ReshapeShape(GraphGraph& graph, const NodeProto& reshape) {
  if (reshape.input_size() != 2 || IntAttr(reshape, "allowzero").value_or(0) != 0) return std::nullopt;
  auto shape = ConstantInts(graph, reshape.input(1));
  if (!shape || shape->size() != 4) return std::nullopt;
  return shape;
}

// Why the query side is not Mul(Q, s) (4-D) or Transpose<0,2,1,3>(Reshape(Mul(Q, s))) (3-D).
std::string_view MatchQuery(GraphGraph& graph, std::string_view q, Slots& slots) {
  if ((slots[kQueryMul] = ProducerOf(graph, q, "Mul"))) return {};
  slots[kQueryTranspose] = TransposeWith(graph, q, {0, 2, 1, 3});
  if (slots[kQueryTranspose]) slots[kQueryReshape] = ProducerOf(graph, slots[kQueryTranspose]->input(0), "Reshape");
  if (slots[kQueryReshape]) slots[kQueryMul] = ProducerOf(graph, slots[kQueryReshape]->input(0), "Mul");
  if (!slots[kQueryMul]) return "the query is not scaled by a Mul";
  return {};
}

// Why kt is not Transpose(Reshape(Expand(Mul(Unsqueeze(K, [2]), s), E), R)) with the values
// expanded by the same E and R.
std::string_view MatchGqaKeys(GraphGraph& graph, const NodeProto& reshape, Slots& slots) {
  slots[kKeyReshape] = &reshape;
  slots[kKeyExpand] = ProducerOf(graph, reshape.input(0), "Expand");
  if (!slots[kKeyExpand]) return "the keys Reshape does not read an Expand";
  slots[kKeyMul] = ProducerOf(graph, slots[kKeyExpand]->input(0), "Mul");
  if (!slots[kKeyMul]) return "the keys Expand does not read a Mul";
  slots[kKeyUnsqueeze] = ProducerOf(graph, slots[kKeyMul]->input(0), "Unsqueeze");
  const NodeProto* unsqueeze = slots[kKeyUnsqueeze];
  if (!unsqueeze || unsqueeze->input_size() != 2 ||
      ConstantInts(graph, unsqueeze->input(1)) != std::vector<std::int64_t>{2})
    return "the scaled keys are not Unsqueeze(K, [2])";
  const auto e = ConstantInts(graph, slots[kKeyExpand]->input(1));
  if (!e || !attention::IsHeadExpandShape(*e)) return "the keys Expand shape is not a constant [1, 1, n, 1, 1]";
  const auto r = ReshapeShape(graph, reshape);
  if (!r) return "the keys Reshape shape is not a constant with 4 elements";
  std::string_view why;
  const auto values = attention::MatchGqaExpansion(graph, slots[kFinal]->input(1), &why);
  if (!values) return why;
  if (values->merge->op_type() != "Reshape" || values->expand_shape != *e || values->merge_arg != *r)
    return "the values are not expanded like the keys";
  slots[kValueReshape] = values->merge;
  slots[kValueExpand] = values->expand;
  slots[kValueUnsqueeze] = values->unsqueeze;
  if (!(why = attention::WhyNotSameDims(graph, unsqueeze->input(0), reshape.output(0))).empty()) return why;
  return attention::WhyNotSameDims(graph, values->unsqueeze->input(0), values->merge->output(0));
}

// Why the keys side does not match the query side (slots[kQueryReshape] tells 3-D).
std::string_view MatchKeys(GraphGraph& graph, const NodeProto& scores, Slots& slots) {
  const bool three_d = slots[kQueryReshape] != nullptr;
  if (IsFusedMatMul(scores)) {
    if (three_d) return "a FusedMatMul reads a 3-D query";
    if (core::builder::RankOf(graph, scores.input(1)) != 4) return "the FusedMatMul keys are not known 4-D";
    slots[kKeyMul] = ProducerOf(graph, scores.input(1), "Mul");
    return slots[kKeyMul] ? std::string_view{} : "the keys are not scaled by a Mul";
  }
  slots[kKeyTranspose] = TransposeWith(graph, scores.input(1), three_d ? Perm{0, 2, 3, 1} : Perm{0, 1, 3, 2});
  if (!slots[kKeyTranspose]) return "the keys Transpose does not swap the last two axes of the heads";
  const std::string& behind = slots[kKeyTranspose]->input(0);
  if ((slots[kKeyMul] = ProducerOf(graph, behind, "Mul"))) return three_d ? "the 3-D keys are not reshaped" : "";
  const NodeProto* reshape = ProducerOf(graph, behind, "Reshape");
  if (!reshape) return "the keys are not scaled by a Mul";
  if (!three_d) return MatchGqaKeys(graph, *reshape, slots);
  slots[kKeyReshape] = reshape;
  slots[kKeyMul] = ProducerOf(graph, reshape->input(0), "Mul");
  if (!slots[kKeyMul]) return "the keys are not scaled by a Mul";
  const auto q_shape = ReshapeShape(graph, *slots[kQueryReshape]);
  if (!q_shape || q_shape != ReshapeShape(graph, *reshape))
    return "the 3-D query and keys are not reshaped by one constant 4-element shape";
  return {};
}

// Why the query and keys are not scaled by one constant scalar of a float type.
std::string_view WhyNotOneScale(GraphGraph& graph, const Slots& slots) {
  const std::string& s = slots[kQueryMul]->input(1);
  const std::optional<double> value = ConstantScalar(graph, s);
  if (!value) return "the query scale is not a constant scalar";
  if (!attention::IsAttentionElementType(graph.GetType(s)))
    return "the scale is not float, float16, double or bfloat16";
  const std::string& k = slots[kKeyMul]->input(1);
  if (k != s && ConstantScalar(graph, k) != value) return "the query and keys scales differ";
  return {};
}

// The variant of the function the matched nodes call.
LocalAttentionVariant VariantOf(GraphGraph& graph, const Slots& slots) {
  const NodeProto& masked = *slots[kMasked];
  return {.switched = IsOp(masked, "Where") && masked.input(2) == slots[kScores]->output(0),
          .fused = IsFusedMatMul(*slots[kScores]),
          .gqa = slots[kKeyUnsqueeze] != nullptr,
          .elem_type = graph.GetType(slots[kQueryMul]->input(1))};
}

}  // namespace

MatchResult FunctionAttentionPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Softmax")) return NoMatch(node, "the node is not a Softmax");
  if (core::builder::OnnxOpset(graph) < 18) return NoMatch(node, "the main opset is below 18");
  if (IntAttr(node, "axis").value_or(-1) != -1) return NoMatch(node, "the Softmax axis is not -1");
  Slots slots(kSlots, nullptr);
  slots[kSoftmax] = &node;
  std::string_view why;
  if (!(why = MatchNanGuard(graph, node, slots)).empty()) return NoMatch(node, why);
  std::string qk;
  if (!(why = MatchMasking(graph, node.input(0), slots, &qk)).empty()) return NoMatch(node, why);
  slots[kScores] = graph.NodeBefore(qk);
  if (!slots[kScores] || !(IsOp(*slots[kScores], "MatMul") || IsFusedMatMul(*slots[kScores])))
    return NoMatch(node, "the scores are not produced by a MatMul or a FusedMatMul");
  if (!HasOneUse(graph, qk)) return NoMatch(node, "the scores have another use");
  if (IsFusedMatMul(*slots[kScores]) && !(why = WhyNotTransposedB(*slots[kScores])).empty()) return NoMatch(node, why);
  if (!(why = MatchQuery(graph, slots[kScores]->input(0), slots)).empty()) return NoMatch(node, why);
  if (!(why = MatchKeys(graph, *slots[kScores], slots)).empty()) return NoMatch(node, why);
  if (!(why = WhyNotOneScale(graph, slots)).empty()) return NoMatch(node, why);
  for (const std::size_t slot : {kQueryMul, kKeyMul, kKeyTranspose, kQueryReshape, kQueryTranspose, kKeyReshape,
                                 kKeyExpand, kKeyUnsqueeze})
    if (slots[slot] && !HasOneUse(graph, slots[slot]->output(0)))
      return NoMatch(node, "a node of the query or keys side has another use");
  const FunctionProto body = attention::LocalAttentionFunction(VariantOf(graph, slots), core::builder::OnnxOpset(graph));
  if (!(why = attention::WhyNotAddable(graph, body)).empty()) return NoMatch(node, why);
  const NodeProto* final_matmul = slots[kFinal];
  return Matched(std::move(slots), final_matmul);
}

utils::RepeatedProtoField<NodeProto> FunctionAttentionPattern::Apply(GraphGraph& graph,
                                                                     const std::vector<const NodeProto*>& nodes) const {
  if (nodes.size() != kSlots || !nodes[kFinal] || !nodes[kGuard] || !nodes[kIsNaN] || !nodes[kSoftmax] ||
      !nodes[kMasked] || !nodes[kScores] || !nodes[kQueryMul] || !nodes[kKeyMul])
    throw BuilderError(Name() + "::Apply: expected the " + std::to_string(kSlots) +
                       " slots of a match (MatMul, Where, IsNaN, Softmax, Add or Where, scores, two Mul, ...), got " +
                       std::to_string(nodes.size()) + " nodes");
  const LocalAttentionVariant variant = VariantOf(graph, nodes);
  const NodeProto& masked = *nodes[kMasked];
  const std::string mask = IsOp(masked, "Add") ? graph.NodeBefore(masked.input(1))->input(0) : masked.input(0);
  std::string query = nodes[kQueryMul]->input(0);
  std::string keys = variant.gqa ? nodes[kKeyUnsqueeze]->input(0) : nodes[kKeyMul]->input(0);
  const std::string values = variant.gqa ? nodes[kValueUnsqueeze]->input(0) : nodes[kFinal]->input(1);
  utils::RepeatedProtoField<NodeProto> out;
  if (nodes[kQueryReshape]) {
    // 3-D: the heads are split and moved before the call, the scaling inside.
    const std::string shape = nodes[kQueryReshape]->input(1);
    for (std::string* side : {&query, &keys}) {
      const std::string reshaped = graph.Builder().UniqueName(kName);
      const std::string heads = graph.Builder().UniqueName(kName);
      attention::EmitNode(out, graph, kName, *nodes[kQueryReshape], "Reshape", {*side, shape}, {reshaped});
      core::builder::AddIntsAttribute(
          attention::EmitNode(out, graph, kName, *nodes[kQueryTranspose], "Transpose", {reshaped}, {heads}), "perm",
          {0, 2, 1, 3});
      *side = heads;
    }
  }
  const std::string& scale = nodes[kQueryMul]->input(1);
  const FunctionProto body = attention::LocalAttentionFunction(variant, core::builder::OnnxOpset(graph));
  if (variant.gqa) {
    *out.Add() = attention::CallLocalFunction(graph, kName, *nodes[kFinal], body,
                                              {query, keys, values, mask, scale, nodes[kKeyExpand]->input(1),
                                               nodes[kKeyReshape]->input(1)},
                                              {nodes[kFinal]->output(0)});
  } else {
    *out.Add() = attention::CallLocalFunction(graph, kName, *nodes[kFinal], body, {query, keys, values, mask, scale},
                                              {nodes[kFinal]->output(0)});
  }
  return out;
}

}  // namespace onnxopt::onnx_patterns
