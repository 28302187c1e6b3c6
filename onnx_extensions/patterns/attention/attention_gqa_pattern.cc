#include "onnx_extensions/patterns/attention/attention_gqa_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ExpectedNode;
using core::builder::IsOp;

// The only attributes of the Attention the new node reproduces.
bool IsKeptAttribute(const AttributeProto& attr) { return attr.name() == "scale" || attr.name() == "is_causal"; }

}  // namespace

MatchResult AttentionGQAPattern::Match(GraphGraph& graph, const NodeProto& attention) const {
  if (!IsOp(attention, "Attention")) return NoMatch(attention, "the node is not an Attention");
  if (core::builder::OnnxOpset(graph) < attention::kFusedAttentionOpset)
    return NoMatch(attention, "the main opset is below 23");
  if (attention.output_size() > 1) return NoMatch(attention, "the node has more than one output");
  if (attention.input_size() > 3 && !attention.input(3).empty()) {
    const std::optional<std::size_t> rank = core::builder::RankOf(graph, attention.input(3));
    if (!rank || *rank < 2) return NoMatch(attention, "the mask rank is not known to be at least 2");
  }
  if (core::builder::RankOf(graph, attention.input(0)) != 4)
    return NoMatch(attention, "the query is not known to be 4-D");
  if (attention.input_size() > 4) return NoMatch(attention, "the Attention already has past inputs");
  if (!std::all_of(attention.attribute().begin(), attention.attribute().end(), IsKeptAttribute))
    return NoMatch(attention, "the Attention sets an attribute other than scale and is_causal");
  if (core::builder::IntAttr(attention, "is_causal").value_or(0) != 0)
    return NoMatch(attention, "the Attention is causal");
  std::string_view why;
  const auto keys = attention::MatchGqaExpansion(graph, attention.input(1), &why);
  if (!keys) return NoMatch(attention, why);
  const auto values = attention::MatchGqaExpansion(graph, attention.input(2), &why);
  if (!values) return NoMatch(attention, why);
  if (keys->merge->op_type() != values->merge->op_type() || keys->expand_shape != values->expand_shape ||
      keys->merge_arg != values->merge_arg)
    return NoMatch(attention, "the keys and values expansions differ");
  const std::vector<const NodeProto*> chain = {keys->unsqueeze,   keys->expand,   keys->merge,
                                               values->unsqueeze, values->expand, values->merge};
  const auto caches =
      attention::MatchKvCaches(graph, attention, keys->unsqueeze->input(0), values->unsqueeze->input(0),
                               keys->expand_shape, keys->merge_arg, keys->merge->op_type() == "Squeeze", chain, &why);
  if (!caches) return NoMatch(attention, why);
  if (!(why = attention::WhyNotFusedMask(graph, attention, attention.input(1))).empty())
    return NoMatch(attention, why);
  std::vector<const NodeProto*> nodes = {&attention, caches->keys, caches->values};
  nodes.insert(nodes.end(), chain.begin(), chain.end());
  return Matched(std::move(nodes), &attention);
}

utils::RepeatedProtoField<NodeProto> AttentionGQAPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  const ExpectedNode concat{"Concat", [](const NodeProto& n) { return IsOp(n, "Concat"); }};
  const ExpectedNode unsqueeze{"Unsqueeze", [](const NodeProto& n) { return IsOp(n, "Unsqueeze"); }};
  const ExpectedNode expand{"Expand", [](const NodeProto& n) { return IsOp(n, "Expand"); }};
  const ExpectedNode merge{"Reshape or Squeeze", [](const NodeProto& n) { return IsOp(n, "Reshape") || IsOp(n, "Squeeze"); }};
  const ExpectedNode attention{"Attention", [](const NodeProto& n) { return IsOp(n, "Attention"); }};
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {attention, concat, concat, unsqueeze, expand, merge, unsqueeze, expand, merge});
  const NodeProto& node = *nodes[0];
  utils::RepeatedProtoField<NodeProto> out;
  attention::EmitCachedAttention(out, graph, kName, node, {nodes[1], nodes[2]}, core::builder::OptionalInput(node, 3),
                                 core::builder::FloatAttr(node, "scale"));
  return out;
}

}  // namespace onnxopt::onnx_patterns
