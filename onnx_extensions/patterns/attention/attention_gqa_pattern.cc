#include "onnx_extensions/patterns/attention/attention_gqa_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/function_attention_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::EmitNode;
using attention::ParseLocalGqaName;
using core::builder::ConstantInts;
using core::builder::ExpectedNode;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::shapes::SymShape;

bool IsLocalGqaCall(const NodeProto& node) {
  return node.domain() == attention::kIntermediateDomain && ParseLocalGqaName(node.op_type()).has_value();
}

bool IsStandardAttention(const NodeProto& node) { return IsOp(node, "Attention"); }

// Why the new Attention would not read `mask` as `node` (whose keys after the cache are
// `keys`, of shape [B, H, T, D]) does; empty when it reads it the same. Attention's mask
// broadcasts to [B, Hq, Sq, T] without growing it, where the function's Where broadcasts
// both ways; a shorter last dim is padding there. onnxruntime 1.23 also wants Sq itself and
// a head dim of 1 or of the key-value heads (here 1 serves every case).
std::string_view WhyNotFusedMask(const GraphGraph& graph, const NodeProto& node, std::string_view keys) {
  const std::string_view mask = core::builder::OptionalInput(node, 3);
  if (mask.empty()) return {};
  const SymShape* shape = KnownShape(graph, mask);
  const SymShape* k = KnownShape(graph, keys);
  if (!shape || !k || k->Rank() != 4 || shape->Dims().back() != (*k)[2]) return "the mask does not span every key";
  const SymShape* q = KnownShape(graph, node.input(0));
  const std::size_t rank = shape->Rank();
  const std::vector<core::shapes::SymDim>& m = shape->Dims();
  const core::shapes::SymDim one(1);
  if (!q || q->Rank() != 4 || rank > 4 || m[rank - 2] != (*q)[2] || (rank >= 3 && m[rank - 3] != one) ||
      (rank == 4 && m[0] != one && m[0] != (*q)[0]))
    return "the mask is not [Sq, T], [1, Sq, T] or [1 or B, 1, Sq, T] for the query [B, H, Sq, D]";
  return {};
}

// The only attributes of a form-A Attention the new node reproduces.
bool IsKeptAttribute(const AttributeProto& attr) { return attr.name() == "scale" || attr.name() == "is_causal"; }

}  // namespace

std::set<std::string> AttentionGQAPattern::FastOpType() const {
  std::set<std::string> ops = attention::LocalGqaOpTypes();
  ops.insert("Attention");
  return ops;
}

MatchResult AttentionGQAPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  const bool form_a = IsStandardAttention(node);
  if (!form_a && !IsLocalGqaCall(node))
    return NoMatch(node, "the node is neither an Attention nor an intermediate LocalAttentionGQA call");
  if (core::builder::OnnxOpset(graph) < attention::kFusedAttentionOpset)
    return NoMatch(node, "the main opset is below 23");
  if (node.output_size() > 1) return NoMatch(node, "the node has more than one output");
  if (node.input_size() > 3 && !node.input(3).empty()) {
    const std::optional<std::size_t> rank = core::builder::RankOf(graph, node.input(3));
    if (!rank || *rank < 2) return NoMatch(node, "the mask rank is not known to be at least 2");
  }
  if (core::builder::RankOf(graph, node.input(0)) != 4) return NoMatch(node, "the query is not known to be 4-D");
  return form_a ? MatchFormA(graph, node) : MatchFormB(graph, node);
}

MatchResult AttentionGQAPattern::MatchFormA(GraphGraph& graph, const NodeProto& attention) const {
  if (attention.input_size() > 4) return NoMatch(attention, "the Attention already has past inputs");
  if (!std::all_of(attention.attribute().begin(), attention.attribute().end(), IsKeptAttribute))
    return NoMatch(attention, "the Attention sets an attribute other than scale and is_causal");
  if (IntAttr(attention, "is_causal").value_or(0) != 0) return NoMatch(attention, "the Attention is causal");
  std::string_view why;
  const auto keys = attention::MatchGqaExpansion(graph, attention.input(1), &why);
  if (!keys) return NoMatch(attention, why);
  const auto values = attention::MatchGqaExpansion(graph, attention.input(2), &why);
  if (!values) return NoMatch(attention, why);
  if (keys->merge->op_type() != values->merge->op_type() || keys->expand_shape != values->expand_shape ||
      keys->merge_arg != values->merge_arg)
    return NoMatch(attention, "the keys and values expansions differ");
  MatchResult caches =
      MatchCaches(graph, attention, keys->unsqueeze->input(0), values->unsqueeze->input(0), keys->expand_shape,
                  keys->merge_arg, keys->merge->op_type() == "Squeeze",
                  {keys->unsqueeze, keys->expand, keys->merge, values->unsqueeze, values->expand, values->merge});
  if (!caches) return caches;
  if (!(why = WhyNotFusedMask(graph, attention, attention.input(1))).empty()) return NoMatch(attention, why);
  return caches;
}

MatchResult AttentionGQAPattern::MatchFormB(GraphGraph& graph, const NodeProto& call) const {
  const attention::LocalGqaName name = *ParseLocalGqaName(call.op_type());
  if (call.input_size() != 7) return NoMatch(call, "the call does not have seven inputs");
  if (call.input(3).empty()) return NoMatch(call, "the call has no mask");
  if (graph.GetType(call.input(3)) != TensorProto::BOOL) return NoMatch(call, "the mask is not boolean");
  const std::optional<double> scale = core::builder::ConstantScalar(graph, call.input(4));
  if (!scale) return NoMatch(call, "the scale is not a constant scalar");
  // Attention's scale is s * s, which it requires above 0.
  if (!core::builder::IsNormalIn(*scale * *scale, TensorProto::FLOAT))
    return NoMatch(call, "the scale squared is not a normal float (Attention takes a scale above 0)");
  const auto e = ConstantInts(graph, call.input(5));
  if (!e || !attention::IsHeadExpandShape(*e)) return NoMatch(call, "the expand shape is not a constant [1, 1, n, 1, 1]");
  const auto r = ConstantInts(graph, call.input(6));
  if (!r) return NoMatch(call, "the reshape shape or squeeze axes are not constant");
  if (const std::string_view why = WhyNotFusedMask(graph, call, call.input(1)); !why.empty()) return NoMatch(call, why);
  // Only these types have a body (its -inf and 0 constants); LocalAttentionFunction throws on others.
  if (!attention::IsAttentionElementType(name.elem_type))
    return NoMatch(call, "the function element type is not float, float16, double or bfloat16");
  // onnxruntime 1.23's Attention on double drops the batch dim of Y ([4, 3, 8] for [1, 4, 3, 8]).
  if (name.elem_type == TensorProto::DOUBLE)
    return NoMatch(call, "the function element type is double, on which onnxruntime's Attention is wrong");
  MatchResult caches = MatchCaches(graph, call, call.input(1), call.input(2), *e, *r, name.squeeze, {});
  if (!caches) return caches;
  // The name alone does not tell what the call computes: a model may define another body under it.
  const FunctionProto body = attention::LocalAttentionFunction(
      {.switched = name.switched, .gqa = true, .squeeze = name.squeeze, .elem_type = name.elem_type},
      core::builder::OnnxOpset(graph));
  if (const std::string_view why = attention::WhyNotOwnFunction(graph, body); !why.empty()) return NoMatch(call, why);
  return caches;
}

MatchResult AttentionGQAPattern::MatchCaches(GraphGraph& graph, const NodeProto& node, std::string_view keys,
                                             std::string_view values, const std::vector<std::int64_t>& e,
                                             const std::vector<std::int64_t>& r, bool squeeze,
                                             const std::vector<const NodeProto*>& chain) const {
  std::string_view why;
  const NodeProto* key_cache = attention::KvCacheConcat(graph, keys, &why);
  if (!key_cache) return NoMatch(node, why);
  const NodeProto* value_cache = attention::KvCacheConcat(graph, values, &why);
  if (!value_cache) return NoMatch(node, why);
  if (key_cache == value_cache) return NoMatch(node, "the keys and values come from one Concat");
  // The new node defines both caches: none of its inputs may be one of them (the value cache
  // concatenating the key cache, say).
  const std::string_view inputs[] = {node.input(0), key_cache->input(0), key_cache->input(1), value_cache->input(0),
                                     value_cache->input(1), core::builder::OptionalInput(node, 3)};
  for (const NodeProto* cache : {key_cache, value_cache})
    if (std::find(std::begin(inputs), std::end(inputs), cache->output(0)) != std::end(inputs))
      return NoMatch(node, "an input of the attention is a cache it would define");
  // Attention takes one past length and one new length for both caches: a Concat of 2 + 3
  // keys and one of 3 + 2 values are equal in the model only after concatenation.
  for (int i = 0; i < 2; ++i) {
    const SymShape* k = KnownShape(graph, key_cache->input(i));
    const SymShape* v = KnownShape(graph, value_cache->input(i));
    if (!k || !v || k->Rank() != 4 || v->Rank() != 4 || (*k)[0] != (*v)[0] || (*k)[1] != (*v)[1] ||
        (*k)[2] != (*v)[2])
      return NoMatch(node, "the past or new keys and values are not known to agree in batch, heads and length");
  }
  for (const std::string_view kv : {keys, values})
    if (!(why = attention::WhyNotHeadRepeat(graph, kv, e, r, squeeze, node.input(0))).empty())
      return NoMatch(node, why);
  // Runtimes disagree on which key-value head serves which query head when Attention
  // broadcasts several of them: the ONNX reference repeats each one in a row (onnx PR 7274,
  // 2025), as the matched expansion does, while onnxruntime 1.23's CPU kernel cycles through
  // them (tiling). One key-value head, or none repeated, reads the same either way; any other
  // fusion would make the result depend on the runtime (tests/ort/compare_rewrites.js showed it).
  if (e[2] != 1 && (*KnownShape(graph, keys))[1] != core::shapes::SymDim(1))
    return NoMatch(node, "several key-value heads are repeated: runtimes broadcast them to the query heads differently");
  std::vector<const NodeProto*> nodes = {&node, key_cache, value_cache};
  nodes.insert(nodes.end(), chain.begin(), chain.end());
  // The new Attention defines the cache outputs where `node` is: nobody may read them before.
  for (const NodeProto* cache : {key_cache, value_cache}) {
    if (graph.IsUsedBySubgraph(cache->output(0))) return NoMatch(node, "a cache Concat output is read by a subgraph");
    for (const NodeProto* reader : graph.NextNodes(cache->output(0)))
      if (std::find(nodes.begin(), nodes.end(), reader) == nodes.end() && graph.Position(*reader) < graph.Position(node))
        return NoMatch(node, "a cache Concat output is read before the attention");
  }
  return Matched(std::move(nodes), &node);
}

utils::RepeatedProtoField<NodeProto> AttentionGQAPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  const ExpectedNode concat{"Concat", [](const NodeProto& n) { return IsOp(n, "Concat"); }};
  const bool form_a = !nodes.empty() && nodes[0] && IsStandardAttention(*nodes[0]);
  if (form_a) {
    const ExpectedNode unsqueeze{"Unsqueeze", [](const NodeProto& n) { return IsOp(n, "Unsqueeze"); }};
    const ExpectedNode expand{"Expand", [](const NodeProto& n) { return IsOp(n, "Expand"); }};
    const ExpectedNode merge{"Reshape or Squeeze", [](const NodeProto& n) { return IsOp(n, "Reshape") || IsOp(n, "Squeeze"); }};
    core::builder::ExpectMatchedNodes(*this, nodes, {{"Attention", IsStandardAttention}, concat, concat, unsqueeze,
                                                     expand, merge, unsqueeze, expand, merge});
  } else {
    core::builder::ExpectMatchedNodes(*this, nodes, {{"LocalAttentionGQA call", IsLocalGqaCall}, concat, concat});
  }
  const NodeProto& node = *nodes[0];
  const NodeProto& key_cache = *nodes[1];
  const NodeProto& value_cache = *nodes[2];
  utils::RepeatedProtoField<NodeProto> out;
  std::string mask(core::builder::OptionalInput(node, 3));
  std::optional<float> scale = core::builder::FloatAttr(node, "scale");
  if (!form_a) {
    // The function scales both Q and K by s.
    const double s = *core::builder::ConstantScalar(graph, node.input(4));
    scale = static_cast<float>(s * s);
    if (ParseLocalGqaName(node.op_type())->switched) {
      const std::string kept = graph.Builder().UniqueName(kName);
      EmitNode(out, graph, kName, node, "Not", {mask}, {kept});
      mask = kept;
    }
  }
  NodeProto& fused = EmitNode(out, graph, kName, node, "Attention",
                              {node.input(0), key_cache.input(1), value_cache.input(1), mask, key_cache.input(0),
                               value_cache.input(0)},
                              {node.output(0), key_cache.output(0), value_cache.output(0)});
  if (scale) {
    AttributeProto& attr = *fused.add_attribute();
    attr.set_name("scale");
    attr.set_type(AttributeProto::FLOAT);
    attr.set_f(*scale);
  }
  core::builder::AddIntAttribute(fused, "is_causal", 0);
  return out;
}

}  // namespace onnxopt::onnx_patterns
