#include "onnx_extensions/patterns/attention/attention_matchers.h"

#include <algorithm>
#include <charconv>

#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::attention {

using core::builder::ConstantInts;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::KnownShape;
using core::builder::NormalizeAxis;
using core::builder::ProducerOf;
using core::shapes::SymDim;
using core::shapes::SymShape;

bool IsIntermediateCall(const NodeProto& node, std::string_view name) {
  return node.domain() == kIntermediateDomain && node.op_type() == name;
}

namespace {

enum class ModelFunction { kMissing, kSame, kOther };

// How the model's local function of `function`'s key compares with `function`: the
// comparison of GraphBuilder::GetOrAddFunction, so that kOther is exactly what it refuses.
ModelFunction CompareModelFunction(const GraphGraph& graph, const FunctionProto& function) {
  const FunctionProto* existing = graph.Builder().FindFunction(function.domain(), function.name());
  if (!existing) return ModelFunction::kMissing;
  return core::ir::SerializeDeterministic(*existing) == core::ir::SerializeDeterministic(function)
             ? ModelFunction::kSame
             : ModelFunction::kOther;
}

}  // namespace

std::string_view WhyNotAddable(const GraphGraph& graph, const FunctionProto& function) {
  if (CompareModelFunction(graph, function) == ModelFunction::kOther)
    return "the model already defines a local function of this name with another body";
  return {};
}

std::string_view WhyNotOwnFunction(const GraphGraph& graph, const FunctionProto& function) {
  switch (CompareModelFunction(graph, function)) {
    case ModelFunction::kMissing:
      return "the model does not define the called local function";
    case ModelFunction::kOther:
      return "the called local function is not the body onnxopt writes under this name";
    case ModelFunction::kSame:
      break;
  }
  return {};
}

std::string_view DuplicatedHalf(const GraphGraph& graph, std::string_view value, std::string_view* why) {
  const NodeProto* concat = ProducerOf(graph, value, "Concat");
  if (!concat) {
    *why = "a cache is not produced by a Concat";
    return {};
  }
  if (concat->input_size() != 2 || concat->input(0).empty() || concat->input(0) != concat->input(1)) {
    *why = "a cache Concat does not repeat one tensor twice";
    return {};
  }
  if (IntAttr(*concat, "axis") != -1) {
    *why = "a cache Concat is not on axis -1";
    return {};
  }
  return concat->input(0);
}

bool IsHeadExpandShape(const std::vector<std::int64_t>& e) {
  return e.size() == 5 && e[0] == 1 && e[1] == 1 && e[2] >= 1 && e[3] == 1 && e[4] == 1;
}

std::optional<GqaExpansion> MatchGqaExpansion(GraphGraph& graph, std::string_view value, std::string_view* why) {
  GqaExpansion chain;
  chain.merge = ProducerOf(graph, value, "Reshape");
  if (!chain.merge) chain.merge = ProducerOf(graph, value, "Squeeze");
  if (!chain.merge || chain.merge->input_size() != 2) {
    *why = "the keys or values are not produced by a Reshape or a Squeeze with two inputs";
    return std::nullopt;
  }
  chain.expand = ProducerOf(graph, chain.merge->input(0), "Expand");
  if (!chain.expand) {
    *why = "the head merge does not read an Expand";
    return std::nullopt;
  }
  chain.unsqueeze = ProducerOf(graph, chain.expand->input(0), "Unsqueeze");
  if (!chain.unsqueeze || chain.unsqueeze->input_size() != 2) {
    *why = "the Expand does not read an Unsqueeze with an axes input";
    return std::nullopt;
  }
  if (ConstantInts(graph, chain.unsqueeze->input(1)) != std::vector<std::int64_t>{2}) {
    *why = "the Unsqueeze axes are not the constant [2]";
    return std::nullopt;
  }
  auto e = ConstantInts(graph, chain.expand->input(1));
  if (!e || !IsHeadExpandShape(*e)) {
    *why = "the Expand shape is not a constant [1, 1, n, 1, 1]";
    return std::nullopt;
  }
  auto r = ConstantInts(graph, chain.merge->input(1));
  const std::size_t arity = chain.merge->op_type() == "Reshape" ? 4 : 1;
  if (!r || r->size() != arity) {
    *why = "the Reshape shape (4 elements) or the Squeeze axes (1 element) are not constant";
    return std::nullopt;
  }
  if (chain.merge->op_type() == "Reshape" && IntAttr(*chain.merge, "allowzero").value_or(0) != 0) {
    *why = "the Reshape sets allowzero";
    return std::nullopt;
  }
  for (const NodeProto* node : {chain.unsqueeze, chain.expand, chain.merge}) {
    if (!HasOneUse(graph, node->output(0))) {
      *why = "a node of the head expansion has another use";
      return std::nullopt;
    }
  }
  chain.expand_shape = std::move(*e);
  chain.merge_arg = std::move(*r);
  return chain;
}

std::string_view WhyNotHeadRepeat(const GraphGraph& graph, std::string_view kv, const std::vector<std::int64_t>& e,
                                  const std::vector<std::int64_t>& r, bool squeeze, std::string_view query) {
  const SymShape* shape = KnownShape(graph, kv);
  if (!shape || shape->Rank() != 4) return "the shape of the keys or values is not known with rank 4";
  if (!IsHeadExpandShape(e)) return "the expand shape is not [1, 1, n, 1, 1]";
  const SymShape* q = KnownShape(graph, query);
  if (!q || q->Rank() != 4) return "the shape of the query is not known with rank 4";
  const std::int64_t n = e[2];
  const std::vector<SymDim>& d = shape->Dims();
  const std::vector<SymDim> expanded = {d[0], d[1], SymDim(n), d[2], d[3]};
  const std::vector<SymDim> target = {d[0], d[1] * SymDim(n), d[2], d[3]};
  if ((*q)[0] != d[0]) return "the query and the keys or values differ in batch";
  if ((*q)[1] != target[1]) return "the query heads are not the repeated key-value heads";
  if (squeeze) {
    if (r.size() != 1 || NormalizeAxis(r[0], 5) != 2 || n != 1)
      return "the Squeeze does not remove the repetition axis of size 1";
    return {};
  }
  if (r.size() != 4) return "the reshape shape does not have 4 elements";
  if (r[1] <= 0) return "the head count of the reshape is not explicit";
  if (std::count(r.begin(), r.end(), -1) > 1) return "the reshape shape has more than one -1";
  // With at most one -1 (the element count fixes it) every other dim must be the target's.
  for (std::size_t i = 0; i < 4; ++i) {
    const bool same = r[i] == -1 || (r[i] == 0 && expanded[i] == target[i]) || (r[i] > 0 && target[i] == SymDim(r[i]));
    if (!same) return "the reshape does not merge the key-value heads with their repetitions";
  }
  return {};
}

const NodeProto* KvCacheConcat(const GraphGraph& graph, std::string_view value, std::string_view* why) {
  const NodeProto* concat = ProducerOf(graph, value, "Concat");
  if (!concat || concat->input_size() != 2 || concat->input(0).empty() || concat->input(1).empty()) {
    *why = "the keys or values are not produced by a Concat with two inputs";
    return nullptr;
  }
  const std::optional<std::int64_t> axis = IntAttr(*concat, "axis");
  const bool sequence_axis = axis == 2 || (axis == -2 && core::builder::RankOf(graph, value) == 4);
  if (!sequence_axis) {
    *why = "the cache Concat is not on the sequence axis 2";
    return nullptr;
  }
  return concat;
}

// onnxruntime 1.23 also wants Sq itself in the mask and a head dim of 1 or of the key-value
// heads (here 1 serves every case).
std::string_view WhyNotFusedMask(const GraphGraph& graph, const NodeProto& node, std::string_view keys) {
  const std::string_view mask = core::builder::OptionalInput(node, 3);
  if (mask.empty()) return {};
  const SymShape* shape = KnownShape(graph, mask);
  const SymShape* k = KnownShape(graph, keys);
  if (!shape || !k || k->Rank() != 4 || shape->Dims().back() != (*k)[2]) return "the mask does not span every key";
  const SymShape* q = KnownShape(graph, node.input(0));
  const std::size_t rank = shape->Rank();
  const std::vector<SymDim>& m = shape->Dims();
  const SymDim one(1);
  if (!q || q->Rank() != 4 || rank > 4 || m[rank - 2] != (*q)[2] || (rank >= 3 && m[rank - 3] != one) ||
      (rank == 4 && m[0] != one && m[0] != (*q)[0]))
    return "the mask is not [Sq, T], [1, Sq, T] or [1 or B, 1, Sq, T] for the query [B, H, Sq, D]";
  return {};
}

std::optional<KvCaches> MatchKvCaches(const GraphGraph& graph, const NodeProto& node, std::string_view keys,
                                      std::string_view values, const std::vector<std::int64_t>& e,
                                      const std::vector<std::int64_t>& r, bool squeeze,
                                      const std::vector<const NodeProto*>& chain, std::string_view* why) {
  const auto fail = [why](std::string_view reason) {
    *why = reason;
    return std::nullopt;
  };
  const NodeProto* key_cache = KvCacheConcat(graph, keys, why);
  if (!key_cache) return std::nullopt;
  const NodeProto* value_cache = KvCacheConcat(graph, values, why);
  if (!value_cache) return std::nullopt;
  if (key_cache == value_cache) return fail("the keys and values come from one Concat");
  // The new node defines both caches: none of its inputs may be one of them (the value cache
  // concatenating the key cache, say).
  const std::string_view inputs[] = {node.input(0), key_cache->input(0), key_cache->input(1), value_cache->input(0),
                                     value_cache->input(1), core::builder::OptionalInput(node, 3)};
  for (const NodeProto* cache : {key_cache, value_cache})
    if (std::find(std::begin(inputs), std::end(inputs), cache->output(0)) != std::end(inputs))
      return fail("an input of the attention is a cache it would define");
  // Attention takes one past length and one new length for both caches: a Concat of 2 + 3
  // keys and one of 3 + 2 values are equal in the model only after concatenation.
  for (int i = 0; i < 2; ++i) {
    const SymShape* k = KnownShape(graph, key_cache->input(i));
    const SymShape* v = KnownShape(graph, value_cache->input(i));
    if (!k || !v || k->Rank() != 4 || v->Rank() != 4 || (*k)[0] != (*v)[0] || (*k)[1] != (*v)[1] ||
        (*k)[2] != (*v)[2])
      return fail("the past or new keys and values are not known to agree in batch, heads and length");
  }
  for (const std::string_view kv : {keys, values})
    if (const std::string_view reason = WhyNotHeadRepeat(graph, kv, e, r, squeeze, node.input(0)); !reason.empty())
      return fail(reason);
  // Runtimes disagree on which key-value head serves which query head when Attention
  // broadcasts several of them: the ONNX reference repeats each one in a row (onnx PR 7274,
  // 2025), as the matched expansion does, while onnxruntime 1.23's CPU kernel cycles through
  // them (tiling). One key-value head, or none repeated, reads the same either way; any other
  // fusion would make the result depend on the runtime (tests/ort/compare_rewrites.js showed it).
  if (e[2] != 1 && (*KnownShape(graph, keys))[1] != SymDim(1))
    return fail("several key-value heads are repeated: runtimes broadcast them to the query heads differently");
  // The new Attention defines the cache outputs where `node` is: nobody may read them before.
  for (const NodeProto* cache : {key_cache, value_cache}) {
    if (graph.IsUsedBySubgraph(cache->output(0))) return fail("a cache Concat output is read by a subgraph");
    for (const NodeProto* reader : graph.NextNodes(cache->output(0))) {
      const bool matched = reader == &node || reader == key_cache || reader == value_cache ||
                           std::find(chain.begin(), chain.end(), reader) != chain.end();
      if (!matched && graph.Position(*reader) < graph.Position(node))
        return fail("a cache Concat output is read before the attention");
    }
  }
  return KvCaches{key_cache, value_cache};
}

std::optional<LocalGqaName> ParseLocalGqaName(std::string_view op_type) {
  constexpr std::string_view prefix = "LocalAttentionGQA";
  if (!op_type.starts_with(prefix)) return std::nullopt;
  std::string_view rest = op_type.substr(prefix.size());
  LocalGqaName name;
  if (rest.starts_with("SW")) {
    name.switched = true;
    rest.remove_prefix(2);
  }
  if (rest.starts_with("sQ")) {
    name.squeeze = true;
    rest.remove_prefix(2);
  }
  if (!rest.starts_with("_to") || rest.size() == 3) return std::nullopt;
  rest.remove_prefix(3);
  if (!std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  // from_chars, unlike stoi, reports an overflow instead of throwing.
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), name.elem_type);
  if (error != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
  return name;
}

std::set<std::string> LocalGqaOpTypes() {
  std::set<std::string> names;
  for (const char* variant : {"", "SW", "sQ", "SWsQ"})
    for (const char* type : {"1", "10", "11", "16"})
      names.insert(std::string("LocalAttentionGQA") + variant + "_to" + type);
  return names;
}

NodeProto& EmitNode(utils::RepeatedProtoField<NodeProto>& nodes, GraphGraph& graph, std::string_view pattern,
                    const NodeProto& origin, std::string_view op_type, std::initializer_list<std::string_view> inputs,
                    std::initializer_list<std::string_view> outputs) {
  NodeProto& node = *nodes.Add();
  node.set_op_type(std::string(op_type));
  node.set_name(core::builder::DerivedNodeName(graph, pattern, origin));
  for (const std::string_view input : inputs) node.add_input(std::string(input));
  for (const std::string_view output : outputs) node.add_output(std::string(output));
  return node;
}

void EmitCachedAttention(utils::RepeatedProtoField<NodeProto>& nodes, GraphGraph& graph, std::string_view pattern,
                         const NodeProto& node, const KvCaches& caches, std::string_view mask,
                         std::optional<float> scale) {
  NodeProto& fused = EmitNode(nodes, graph, pattern, node, "Attention",
                              {node.input(0), caches.keys->input(1), caches.values->input(1), mask,
                               caches.keys->input(0), caches.values->input(0)},
                              {node.output(0), caches.keys->output(0), caches.values->output(0)});
  if (scale) {
    AttributeProto& attr = *fused.add_attribute();
    attr.set_name("scale");
    attr.set_type(AttributeProto::FLOAT);
    attr.set_f(*scale);
  }
  core::builder::AddIntAttribute(fused, "is_causal", 0);
}

}  // namespace onnxopt::onnx_patterns::attention
