#include "onnx_extensions/patterns/attention/function_half_rotary_embedding_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/attention/attention_matchers.h"
#include "onnx_extensions/patterns/attention/local_function_builder.h"

namespace onnxopt::onnx_patterns {

namespace {

using attention::OtherInput;
using core::builder::ConstantInts;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::NormalizeAxis;
using core::builder::OptionalInput;
using core::builder::SoleConsumer;

// The opset from which Split takes num_outputs, as the function body does.
constexpr std::int64_t kSplitNumOutputsOpset = 18;

// Why the Split does not cut its input into two equal halves; empty when it does.
std::string_view WhyNotHalves(GraphGraph& graph, const NodeProto& split) {
  const std::string_view sizes = OptionalInput(split, 1);
  if (sizes.empty()) {
    if (IntAttr(split, "num_outputs") != 2) return "the Split has neither split sizes nor num_outputs 2";
    return {};
  }
  if (graph.GetType(sizes) != TensorProto::INT64) return "the split sizes are not int64";
  const auto values = ConstantInts(graph, sizes);
  if (!values) return "the split sizes are not constant";
  if (values->size() != 2 || (*values)[0] != (*values)[1]) return "the split sizes are not two equal values";
  return {};
}

}  // namespace

MatchResult FunctionHalfRotaryEmbeddingPattern::Match(GraphGraph& graph, const NodeProto& split) const {
  if (!IsOp(split, "Split")) return NoMatch(split, "the node is not a Split");
  if (split.output_size() != 2) return NoMatch(split, "the Split does not have exactly two outputs");
  if (core::builder::OnnxOpset(graph) < kSplitNumOutputsOpset)
    return NoMatch(split, "the main opset is below 18 (the function body uses Split with num_outputs)");
  const std::string& x = split.input(0);
  if (core::builder::RankOf(graph, x) != 4) return NoMatch(split, "the rank of X is not known to be 4");
  if (NormalizeAxis(IntAttr(split, "axis").value_or(0), 4) != 3)
    return NoMatch(split, "the Split is not on the last axis");
  if (const std::string_view why = WhyNotHalves(graph, split); !why.empty()) return NoMatch(split, why);
  const NodeProto* neg = SoleConsumer(graph, split.output(1), "Neg");
  if (!neg) return NoMatch(split, "the second half is not read only by a Neg");
  const NodeProto* concat = SoleConsumer(graph, neg->output(0), "Concat");
  if (!concat) return NoMatch(split, "the Neg output is not read only by a Concat");
  if (concat->input_size() != 2 || concat->input(0) != neg->output(0) || concat->input(1) != split.output(0))
    return NoMatch(split, "the Concat does not take the negated second half then the first half");
  const auto axis = IntAttr(*concat, "axis");
  if (axis != -1 && axis != 3) return NoMatch(split, "the Concat is not on axis -1 or 3");
  if (!HasOneUse(graph, split.output(0))) return NoMatch(split, "the first half has another use");
  const NodeProto* mul_sin = SoleConsumer(graph, concat->output(0), "Mul");
  if (!mul_sin) return NoMatch(split, "the Concat output is not read only by a Mul");
  const std::vector<const NodeProto*>& readers = graph.NextNodes(x);
  if (readers.size() != 2) return NoMatch(split, "X does not have exactly two consumers");
  const NodeProto* mul_cos = readers[0] == &split ? readers[1] : readers[0];
  if (!IsOp(*mul_cos, "Mul")) return NoMatch(split, "the other consumer of X is not a Mul");
  if (mul_cos == mul_sin) return NoMatch(split, "X is multiplied by the rotation itself");
  const NodeProto* add = SoleConsumer(graph, mul_sin->output(0), "Add");
  if (!add) return NoMatch(split, "the product with sin is not read only by an Add");
  if (SoleConsumer(graph, mul_cos->output(0), "Add") != add)
    return NoMatch(split, "the two products do not feed the same Add");
  const std::string& sin = OtherInput(*mul_sin, concat->output(0));
  const std::string& cos = OtherInput(*mul_cos, x);
  if (sin == concat->output(0)) return NoMatch(split, "the rotation is multiplied by itself");
  if (cos == sin) return NoMatch(split, "cos and sin are the same tensor");
  const FunctionProto body = attention::HalfRotaryEmbeddingFunction(core::builder::OnnxOpset(graph));
  if (const std::string_view why = attention::WhyNotAddable(graph, body); !why.empty()) return NoMatch(split, why);
  return Matched({&split, neg, concat, mul_sin, mul_cos, add}, add);
}

utils::RepeatedProtoField<NodeProto> FunctionHalfRotaryEmbeddingPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Split", "Neg", "Concat", "Mul", "Mul", "Add"});
  const NodeProto& split = *nodes[0];
  const std::string& x = split.input(0);
  const std::string& sin = OtherInput(*nodes[3], nodes[2]->output(0));
  const std::string& cos = OtherInput(*nodes[4], x);
  utils::RepeatedProtoField<NodeProto> out;
  *out.Add() = attention::CallLocalFunction(graph, kName, *nodes[5],
                                            attention::HalfRotaryEmbeddingFunction(core::builder::OnnxOpset(graph)),
                                            {x, cos, sin}, {nodes[5]->output(0)});
  return out;
}

}  // namespace onnxopt::onnx_patterns
