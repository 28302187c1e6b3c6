#include "onnx_extensions/patterns/normalization/rms_normalization_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::ConstantScalar;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::builder::RankOf;
using core::builder::SoleConsumer;
using normalization::OtherInput;

namespace {

// The single reduction axis of `ms` when it is the last axis of its input (-1, or rank-1
// with a known rank); nullopt otherwise.
std::optional<std::int64_t> LastAxis(GraphGraph& graph, const NodeProto& ms) {
  const std::optional<std::vector<std::int64_t>> axes = ConstantInts(graph, ms.input(1));
  if (!axes || axes->size() != 1) return std::nullopt;
  const std::int64_t axis = axes->front();
  if (axis == -1) return axis;
  const std::optional<std::size_t> rank = RankOf(graph, ms.input(0));
  if (!rank || axis != static_cast<std::int64_t>(*rank) - 1) return std::nullopt;
  return axis;
}

// The epsilon the Add adds to the mean of squares: a constant scalar on either side.
std::optional<double> Epsilon(GraphGraph& graph, const NodeProto& add, std::string_view ms) {
  const std::string_view other = OtherInput(add, ms);
  return other.empty() ? std::nullopt : ConstantScalar(graph, other);
}

// The Casts around the chain, {up, down}, when both are there and may go: xf = Cast(X) read
// by the Pow and the Mul alone, y read by a single Cast back to the type of X.
std::pair<const NodeProto*, const NodeProto*> Casts(const GraphGraph& graph, const NodeProto& pow,
                                                   const NodeProto& mul) {
  const NodeProto* up = ProducerOf(graph, pow.input(0), "Cast");
  // The Pow and the Mul read xf: two readers means no other one.
  if (!up || graph.NextNodes(pow.input(0)).size() != 2 || graph.IsOutput(pow.input(0)) ||
      graph.IsUsedBySubgraph(pow.input(0)))
    return {};
  const int type = graph.GetType(up->input(0));
  const NodeProto* down = SoleConsumer(graph, mul.output(0), "Cast");
  if (!normalization::IsFloatType(type) || !down || IntAttr(*down, "to") != type) return {};
  return {up, down};
}

// Whether every value of `narrow` is a value of `wide` (float types): the chain computes
// in `wide` what the fused operator computes from an input of type `narrow`.
bool Widens(int narrow, int wide) {
  const auto width = [](int type) { return type == TensorProto::DOUBLE ? 3 : type == TensorProto::FLOAT ? 2 : 1; };
  return narrow == wide || width(narrow) < width(wide);
}

}  // namespace

std::set<std::string> RMSNormalizationPattern::FastOpType() const { return {"ReduceMean"}; }

MatchResult RMSNormalizationPattern::Match(GraphGraph& graph, const NodeProto& ms) const {
  if (!IsOp(ms, "ReduceMean")) return NoMatch(ms, "the node is not a default-domain ReduceMean");
  if (!normalization::OpsetAtLeast(graph, 23)) return NoMatch(ms, "the main opset is below 23 (RMSNormalization)");
  if (ms.input_size() < 2) return NoMatch(ms, "the ReduceMean does not take its axes as an input");
  if (IntAttr(ms, "keepdims").value_or(1) != 1) return NoMatch(ms, "the ReduceMean has keepdims=0");
  if (!LastAxis(graph, ms)) return NoMatch(ms, "the axes are not a constant holding the last axis alone");
  const NodeProto* pow = ProducerOf(graph, ms.input(0), "Pow");
  if (!pow) return NoMatch(ms, "the input is not produced by a Pow");
  if (ConstantScalar(graph, pow->input(1)) != 2.0)
    return NoMatch(ms, "the exponent of the Pow is not a constant scalar 2");
  if (!HasOneUse(graph, ms.input(0))) return NoMatch(ms, "the output of the Pow has other readers");
  const NodeProto* add = SoleConsumer(graph, ms.output(0), "Add");
  if (!add) return NoMatch(ms, "the mean of squares is not read by a single Add");
  const std::optional<double> epsilon = Epsilon(graph, *add, ms.output(0));
  if (!epsilon) return NoMatch(ms, "the Add does not add a constant scalar");
  // The epsilon attribute is a float: a double epsilon may be rounded, not lost.
  if (!normalization::FitsFloat(*epsilon))
    return NoMatch(ms, "epsilon is outside the normal range of a float (the float epsilon attribute would lose it)");
  const NodeProto* sqrt = SoleConsumer(graph, add->output(0), "Sqrt");
  if (!sqrt) return NoMatch(ms, "the output of the Add is not read by a single Sqrt");
  const NodeProto* inv = HasOneUse(graph, sqrt->output(0)) ? graph.NextNodes(sqrt->output(0)).front() : nullptr;
  const bool reciprocal = inv && IsOp(*inv, "Reciprocal");
  if (!reciprocal && !(inv && IsOp(*inv, "Div") && inv->input_size() == 2 && inv->input(1) == sqrt->output(0) &&
                       ConstantScalar(graph, inv->input(0)) == 1.0))
    return NoMatch(ms, "the Sqrt is not read by a single Reciprocal or Div of 1 by it");
  const NodeProto* mul = SoleConsumer(graph, inv->output(0), "Mul");
  if (!mul) return NoMatch(ms, "the inverse is not read by a single Mul");
  if (OtherInput(*mul, inv->output(0)) != pow->input(0))
    return NoMatch(ms, "the Mul does not multiply the input of the Pow by the inverse");
  const auto [up, down] = Casts(graph, *pow, *mul);
  // The kernels compute RMSNormalization in float32, or in double for a double input or
  // stash_type: a stash_type float16 is not honoured. A chain in a narrower type than that
  // rounds (and overflows) where the fused operator would not.
  const int chain = graph.GetType(pow->input(0));
  if (up && !Widens(graph.GetType(up->input(0)), chain))
    return NoMatch(ms, "the Cast before the Pow narrows the input (the fused operator would change the precision)");
  if (chain != TensorProto::FLOAT && chain != TensorProto::DOUBLE)
    return NoMatch(ms, "the chain is not computed in float or double (the fused operator would change the precision)");
  if (normalization::NormalizesFewerThanTwoElements(graph, pow->input(0), -1))
    return NoMatch(ms, "the normalized dims hold fewer than two elements (onnxruntime refuses the fused operator)");
  return Matched({up, pow, &ms, add, sqrt, inv, mul, down}, up ? up : pow);
}

utils::RepeatedProtoField<NodeProto> RMSNormalizationPattern::Apply(GraphGraph& graph,
                                                                    const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", "Pow", "ReduceMean", "Add", "Sqrt", "", "Mul", ""});
  const NodeProto* up = nodes[0];
  const NodeProto& pow = *nodes[1];
  const NodeProto& ms = *nodes[2];
  const NodeProto& mul = *nodes[6];
  const NodeProto* down = nodes[7];
  const std::string& input = up ? up->input(0) : pow.input(0);
  const std::string& output = down ? down->output(0) : mul.output(0);
  const std::int64_t axis = *LastAxis(graph, ms);
  utils::RepeatedProtoField<NodeProto> out;
  const std::string scale =
      normalization::FilledLike(out, graph, kName, ms, input, axis, axis == -1 ? std::nullopt : std::optional(axis + 1),
                                graph.GetType(input), 1.0);
  NodeProto& rms = normalization::AddNode(out, graph, kName, ms, "RMSNormalization", {input, scale}, output);
  core::builder::AddIntAttribute(rms, "axis", axis);
  normalization::AddFloatAttribute(rms, "epsilon", static_cast<float>(*Epsilon(graph, *nodes[3], ms.output(0))));
  core::builder::AddIntAttribute(rms, "stash_type", graph.GetType(pow.input(0)));
  return out;
}

}  // namespace onnxopt::onnx_patterns
