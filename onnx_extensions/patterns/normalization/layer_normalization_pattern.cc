#include "onnx_extensions/patterns/normalization/layer_normalization_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::builder::RankOf;
using core::builder::SoleConsumer;
using normalization::BroadcastScalar;
using normalization::ConstantKeepsShape;

namespace {

// The LayerNormalization axis of the reduction `reduce` (default domain, axes as a
// constant input): -1 for [-1], the first axis for the trailing axes [r-k, ..., r-1] of an
// input of known rank r; nullopt for anything else ([-2, -1] included, as upstream).
std::optional<std::int64_t> NormalizedAxis(GraphGraph& graph, const NodeProto& reduce) {
  if (reduce.input_size() != 2) return std::nullopt;
  const std::optional<std::vector<std::int64_t>> axes = ConstantInts(graph, reduce.input(1));
  if (!axes || axes->empty()) return std::nullopt;
  if (*axes == std::vector<std::int64_t>{-1}) return -1;
  const std::optional<std::size_t> rank = RankOf(graph, reduce.input(0));
  if (!rank || axes->size() > *rank) return std::nullopt;
  const auto first = static_cast<std::int64_t>(*rank - axes->size());
  for (std::size_t i = 0; i < axes->size(); ++i)
    if ((*axes)[i] != first + static_cast<std::int64_t>(i)) return std::nullopt;
  return first;
}

}  // namespace

std::set<std::string> LayerNormalizationPattern::FastOpType() const { return {"ReduceMean"}; }

MatchResult LayerNormalizationPattern::Match(GraphGraph& graph, const NodeProto& var) const {
  if (!IsOp(var, "ReduceMean")) return NoMatch(var, "the node is not a default-domain ReduceMean");
  if (var.input_size() != 2)
    return NoMatch(var, "the ReduceMean does not take its axes as an input (opset 18)");
  if (IntAttr(var, "keepdims").value_or(1) != 1) return NoMatch(var, "the variance ReduceMean has keepdims=0");
  const std::optional<std::int64_t> axis = NormalizedAxis(graph, var);
  if (!axis) return NoMatch(var, "the axes are neither a constant [-1] nor the trailing axes in increasing order");
  const NodeProto* pow = ProducerOf(graph, var.input(0), "Pow");
  if (!pow) return NoMatch(var, "the input is not produced by a Pow");
  if (!HasOneUse(graph, var.input(0))) return NoMatch(var, "the output of the Pow has other readers");
  const NodeProto* sub = ProducerOf(graph, pow->input(0), "Sub");
  if (!sub) return NoMatch(var, "the input of the Pow is not produced by a Sub");
  const std::string& x = sub->input(0);
  if (BroadcastScalar(graph, pow->input(1)) != 2.0)
    return NoMatch(var, "the exponent of the Pow is not a constant broadcast scalar 2");
  if (!ConstantKeepsShape(graph, x, pow->input(1)))
    return NoMatch(var, "the exponent of the Pow has a higher rank than the input");
  const NodeProto* mean = ProducerOf(graph, sub->input(1), "ReduceMean");
  if (!mean) return NoMatch(var, "the second input of the Sub is not produced by a ReduceMean");
  if (!HasOneUse(graph, mean->output(0))) return NoMatch(var, "the mean has other readers");
  if (IntAttr(*mean, "keepdims").value_or(1) != 1) return NoMatch(var, "the mean ReduceMean has keepdims=0");
  if (mean->input(0) != x) return NoMatch(var, "the Sub does not subtract the mean of its first input");
  if (mean->input_size() != 2 || ConstantInts(graph, mean->input(1)) != ConstantInts(graph, var.input(1)))
    return NoMatch(var, "the two ReduceMean nodes reduce different axes");
  if (!HasOneUse(graph, var.output(0))) return NoMatch(var, "the variance has other readers");
  const NodeProto* add = SoleConsumer(graph, var.output(0), "Add");
  if (add && (add->input(0) != var.output(0) || !BroadcastScalar(graph, add->input(1))))
    return NoMatch(var, "the Add does not add a constant broadcast scalar as its second input");
  if (add && !ConstantKeepsShape(graph, x, add->input(1)))
    return NoMatch(var, "epsilon has a higher rank than the input");
  // The epsilon attribute is a float: a double epsilon may be rounded, not lost.
  if (add && !normalization::FitsFloat(*BroadcastScalar(graph, add->input(1))))
    return NoMatch(var, "epsilon is outside the normal range of a float (the float epsilon attribute would lose it)");
  const NodeProto* sqrt = SoleConsumer(graph, add ? add->output(0) : var.output(0), "Sqrt");
  if (!sqrt) return NoMatch(var, "the variance (plus epsilon) is not read by a single Sqrt");
  const NodeProto* div = SoleConsumer(graph, sqrt->output(0), "Div");
  if (!div || div->input(0) != sub->output(0) || div->input(1) != sqrt->output(0))
    return NoMatch(var, "the Sqrt is not read by a single Div of the centred input by it");
  // The Pow and the Div read it: two readers means no other one.
  if (graph.NextNodes(sub->output(0)).size() != 2 || graph.IsOutput(sub->output(0)) ||
      graph.IsUsedBySubgraph(sub->output(0)))
    return NoMatch(var, "the output of the Sub is not read by exactly the Pow and the Div");
  const int type = graph.GetType(x);
  if (type != TensorProto::FLOAT && type != TensorProto::DOUBLE)
    return NoMatch(var, "the input is not float or double (the fused operator would change the precision)");
  if (normalization::NormalizesFewerThanTwoElements(graph, x, *axis))
    return NoMatch(var, "the normalized dims hold fewer than two elements (onnxruntime refuses the fused operator)");
  return Matched({mean, sub, pow, &var, add, sqrt, div}, mean);
}

utils::RepeatedProtoField<NodeProto> LayerNormalizationPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"ReduceMean", "Sub", "Pow", "ReduceMean", "", "Sqrt", "Div"});
  const NodeProto& var = *nodes[3];
  const NodeProto* add = nodes[4];
  const NodeProto& div = *nodes[6];
  const std::string& x = nodes[1]->input(0);
  const std::int64_t axis = *NormalizedAxis(graph, var);
  const int type = graph.GetType(x);
  utils::RepeatedProtoField<NodeProto> out;
  const std::string scale = normalization::FilledLike(out, graph, kName, div, x, axis, std::nullopt, type, 1.0);
  const std::string bias = normalization::FilledLike(out, graph, kName, div, x, axis, std::nullopt, type, 0.0);
  NodeProto& ln = normalization::AddNode(out, graph, kName, div, "LayerNormalization", {x, scale, bias}, div.output(0));
  core::builder::AddIntAttribute(ln, "axis", axis);
  // Without an Add the chain divides by sqrt(var) itself: epsilon 0 keeps a constant row's
  // 0/0 = NaN, where upstream's 1e-12 would give 0.
  const double epsilon = add ? *BroadcastScalar(graph, add->input(1)) : 0.0;
  normalization::AddFloatAttribute(ln, "epsilon", static_cast<float>(epsilon));
  core::builder::AddIntAttribute(ln, "stash_type", type);
  return out;
}

}  // namespace onnxopt::onnx_patterns
