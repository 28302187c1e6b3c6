#include "onnx_extensions/patterns/attention/rotary_embedding_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/local_function_builder.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::EmitNode;
using core::builder::AddIntAttribute;
using core::builder::ConstantInts;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::KnownShape;
using core::builder::ProducerOf;
using core::builder::StaticDim;
using core::shapes::SymDim;
using core::shapes::SymShape;

bool IsHalfRotaryCall(const NodeProto& node) { return attention::IsIntermediateCall(node, "HalfRotaryEmbedding"); }

// Why the partial form's Split and final Concat around `call` do not fit: the Split on the
// last axis with two constant sizes, X its first output, and the rotated part concatenated
// back before the Split's second output; empty when they do.
std::string_view WhyNotPartial(GraphGraph& graph, const NodeProto& call, const NodeProto& split,
                               const NodeProto* last) {
  if (split.input_size() != 2 || split.output_size() != 2 || split.output(0) != call.input(0))
    return "X is not the first of two outputs of a Split with sizes";
  const auto sizes = ConstantInts(graph, split.input(1));
  if (!sizes || sizes->size() != 2) return "the Split sizes are not a constant of two elements";
  const std::int64_t axis = IntAttr(split, "axis").value_or(0);
  if (axis != -1 && axis != 3) return "the Split is not on the last axis";
  if (!last) return "the rotated part is not read only by a Concat";
  if (IntAttr(*last, "axis") != -1) return "the final Concat is not on axis -1";
  if (last->input_size() != 2 || last->input(0) != call.output(0) || last->input(1) != split.output(1))
    return "the final Concat does not take the rotated part then the rest of the Split";
  return {};
}

}  // namespace

MatchResult RotaryEmbeddingPattern::Match(GraphGraph& graph, const NodeProto& call) const {
  if (!IsHalfRotaryCall(call)) return NoMatch(call, "the node is not an intermediate HalfRotaryEmbedding call");
  if (core::builder::OnnxOpset(graph) < attention::kFusedAttentionOpset)
    return NoMatch(call, "the main opset is below 23");
  if (call.input_size() != 3 || call.output_size() != 1)
    return NoMatch(call, "the call does not have three inputs and one output");
  if (core::builder::RankOf(graph, call.input(0)) != 4) return NoMatch(call, "the rank of X is not known to be 4");
  const int type = graph.GetType(call.input(0));
  if (type != TensorProto::FLOAT && type != TensorProto::FLOAT16 && type != TensorProto::BFLOAT16)
    return NoMatch(call, "X is not float, float16 or bfloat16 (the types of RotaryEmbedding)");
  const SymShape* cos = KnownShape(graph, call.input(1));
  const SymShape* sin = KnownShape(graph, call.input(2));
  if (!cos || !sin || !(*cos == *sin)) return NoMatch(call, "the cache shapes are not known and equal");
  if (cos->Rank() != 4 || (*cos)[1] != SymDim(1))
    return NoMatch(call, "the caches are not of rank 4 with dimension 1 equal to 1");
  std::string_view why;
  if (attention::DuplicatedHalf(graph, call.input(1), &why).empty() ||
      attention::DuplicatedHalf(graph, call.input(2), &why).empty())
    return NoMatch(call, why);
  if (!core::builder::HasOneUse(graph, call.input(0))) return NoMatch(call, "X has another use");
  const NodeProto* split = ProducerOf(graph, call.input(0), "Split");
  const NodeProto* last = split ? core::builder::SoleConsumer(graph, call.output(0), "Concat") : nullptr;
  if (split && !(why = WhyNotPartial(graph, call, *split, last)).empty()) return NoMatch(call, why);
  const std::string& x_main = split ? split->input(0) : call.input(0);
  if (!StaticDim(graph, x_main, 1)) return NoMatch(call, "the number of heads is not a known integer");
  const std::vector<SymDim>& x = graph.GetShape(x_main).shape.Dims();
  const SymDim width = split ? SymDim(ConstantInts(graph, split->input(1))->front()) : x[3];
  if ((*cos)[3] != width) return NoMatch(call, "the caches do not cover the rotated channels");
  if ((*cos)[2] != x[2]) return NoMatch(call, "the caches do not have one row per position of X");
  if ((*cos)[0] != SymDim(1) && (*cos)[0] != x[0])
    return NoMatch(call, "the caches are neither shared by the batch nor one per batch");
  // The name alone does not tell what the call computes: a model may define another body under it.
  const FunctionProto body = attention::HalfRotaryEmbeddingFunction(core::builder::OnnxOpset(graph));
  if (!(why = attention::WhyNotOwnFunction(graph, body)).empty()) return NoMatch(call, why);
  if (last) return Matched({&call, last});
  return Matched({&call});
}

utils::RepeatedProtoField<NodeProto> RotaryEmbeddingPattern::Apply(GraphGraph& graph,
                                                                   const std::vector<const NodeProto*>& nodes) const {
  const bool partial = nodes.size() == 2;
  const core::builder::ExpectedNode call_node{"intermediate HalfRotaryEmbedding call", IsHalfRotaryCall};
  const core::builder::ExpectedNode concat_node{"Concat", [](const NodeProto& n) { return core::builder::IsOp(n, "Concat"); }};
  if (partial) {
    core::builder::ExpectMatchedNodes(*this, nodes, {call_node, concat_node});
  } else {
    core::builder::ExpectMatchedNodes(*this, nodes, {call_node});
  }
  const NodeProto& call = *nodes[0];
  const std::string x_main = partial ? graph.NodeBefore(call.input(0))->input(0) : call.input(0);
  const std::string c = graph.NodeBefore(call.input(1))->input(0);
  const std::string s = graph.NodeBefore(call.input(2))->input(0);
  const std::string ones2 = graph.MakeInitializer(kName, IntTensor({1, 1}));
  const std::string one = graph.MakeInitializer(kName, IntTensor({1}));
  auto name = [&] { return graph.Builder().UniqueName(kName); };
  const std::string b = name(), shp = name(), cq = name(), sq = name(), ce = name(), se = name();
  utils::RepeatedProtoField<NodeProto> out;
  NodeProto& shape = EmitNode(out, graph, kName, call, "Shape", {x_main}, {b});
  AddIntAttribute(shape, "start", 0);
  AddIntAttribute(shape, "end", 1);
  AddIntAttribute(EmitNode(out, graph, kName, call, "Concat", {b, ones2}, {shp}), "axis", 0);
  EmitNode(out, graph, kName, call, "Squeeze", {c, one}, {cq});
  EmitNode(out, graph, kName, call, "Squeeze", {s, one}, {sq});
  EmitNode(out, graph, kName, call, "Expand", {cq, shp}, {ce});
  EmitNode(out, graph, kName, call, "Expand", {sq, shp}, {se});
  NodeProto& rotary = EmitNode(out, graph, kName, call, "RotaryEmbedding", {x_main, ce, se}, {nodes.back()->output(0)});
  AddIntAttribute(rotary, "num_heads", *StaticDim(graph, x_main, 1));
  if (partial) AddIntAttribute(rotary, "rotary_embedding_dim", *StaticDim(graph, call.input(1), 3));
  return out;
}

}  // namespace onnxopt::onnx_patterns
