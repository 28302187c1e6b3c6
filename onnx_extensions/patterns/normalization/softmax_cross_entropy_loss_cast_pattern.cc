#include "onnx_extensions/patterns/normalization/softmax_cross_entropy_loss_cast_pattern.h"

#include <array>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalar;
using core::builder::ConstantScalarInt;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::OptionalInput;
using core::builder::ProducerOf;

namespace {

// The template's nodes, in data-flow order.
struct Loss {
  const NodeProto *eq, *neq, *ind, *ui, *lsm, *g, *sg, *ng, *w, *wf, *nf, *num, *den, *num16, *den16;
};

// Sets the NoMatch reason of a helper; returns the "not found" value.
std::optional<Loss> Reject(std::string_view* why, std::string_view reason) {
  *why = reason;
  return std::nullopt;
}

const NodeProto* Operand(const GraphGraph& graph, const NodeProto& node, int i, std::string_view op) {
  return ProducerOf(graph, OptionalInput(node, i), op);
}

// Cast<to=to> producing input `i` of `node`.
const NodeProto* CastTo(const GraphGraph& graph, const NodeProto& node, int i, std::int64_t to) {
  const NodeProto* cast = Operand(graph, node, i, "Cast");
  return cast && IntAttr(*cast, "to") == to ? cast : nullptr;
}

// ReduceSum<keepdims=0> over every axis (a single input) producing input 0 of `node`.
const NodeProto* SumAll(const GraphGraph& graph, const NodeProto& node) {
  const NodeProto* sum = Operand(graph, node, 0, "ReduceSum");
  return sum && sum->input_size() == 1 && IntAttr(*sum, "keepdims") == 0 &&
                 IntAttr(*sum, "noop_with_empty_axes").value_or(0) == 0
             ? sum
             : nullptr;
}

// The first nodes of `Loss`, found from the Div, the sums:
//   Div(Cast16(ReduceSum(Cast32(w))), Cast16(ReduceSum(Cast32(neq))))
std::optional<Loss> Sums(const GraphGraph& graph, const NodeProto& div, std::string_view* why) {
  Loss loss{};
  loss.num16 = CastTo(graph, div, 0, TensorProto::FLOAT16);
  loss.den16 = CastTo(graph, div, 1, TensorProto::FLOAT16);
  if (!loss.num16 || !loss.den16) return Reject(why, "an input of the Div is not a Cast to float16");
  loss.num = SumAll(graph, *loss.num16);
  loss.den = SumAll(graph, *loss.den16);
  if (!loss.num || !loss.den)
    return Reject(why, "a Cast to float16 does not read a ReduceSum over every axis with an explicit keepdims=0");
  loss.wf = CastTo(graph, *loss.num, 0, TensorProto::FLOAT);
  loss.nf = CastTo(graph, *loss.den, 0, TensorProto::FLOAT);
  if (!loss.wf || !loss.nf) return Reject(why, "a ReduceSum does not read a Cast to float");
  loss.w = Operand(graph, *loss.wf, 0, "Where");
  loss.neq = Operand(graph, *loss.nf, 0, "Not");
  if (!loss.w || !loss.neq || loss.w->input(0) != loss.neq->output(0))
    return Reject(why, "the sums do not read Where(mask, losses, zero) and the mask Not(...)");
  return loss;
}

// `loss` with the rest of its nodes, the losses:
//   Neg(Squeeze(GatherElements<axis=1>(LogSoftmax<axis=1>(X), Unsqueeze(ind, a)), a))
// with ind = Where(neq, I, zeroi) and neq = Not(Equal(I, b)).
std::optional<Loss> Losses(const GraphGraph& graph, Loss loss, std::string_view* why) {
  loss.ng = Operand(graph, *loss.w, 1, "Neg");
  loss.sg = loss.ng ? Operand(graph, *loss.ng, 0, "Squeeze") : nullptr;
  loss.g = loss.sg ? Operand(graph, *loss.sg, 0, "GatherElements") : nullptr;
  if (!loss.g || IntAttr(*loss.g, "axis") != 1)
    return Reject(why, "the losses are not Neg(Squeeze(GatherElements<axis=1>(...)))");
  loss.lsm = Operand(graph, *loss.g, 0, "LogSoftmax");
  if (!loss.lsm || IntAttr(*loss.lsm, "axis") != 1)
    return Reject(why, "the GatherElements does not read a LogSoftmax with an explicit axis=1");
  loss.ui = Operand(graph, *loss.g, 1, "Unsqueeze");
  loss.ind = loss.ui ? Operand(graph, *loss.ui, 0, "Where") : nullptr;
  loss.eq = Operand(graph, *loss.neq, 0, "Equal");
  if (!loss.ind || !loss.eq || loss.ind->input(0) != loss.neq->output(0) || loss.ind->input(1) != loss.eq->input(0))
    return Reject(why, "the indices are not Unsqueeze(Where(mask, I, zero)) with mask = Not(Equal(I, b))");
  return loss;
}

}  // namespace

std::set<std::string> SoftmaxCrossEntropyLossCastPattern::FastOpType() const { return {"Div"}; }

MatchResult SoftmaxCrossEntropyLossCastPattern::Match(GraphGraph& graph, const NodeProto& div) const {
  if (!IsOp(div, "Div")) return NoMatch(div, "the node is not a default-domain Div");
  if (!normalization::OpsetAtLeast(graph, 14)) return NoMatch(div, "the main opset is below 14");
  std::string_view why;
  std::optional<Loss> loss = Sums(graph, div, &why);
  if (loss) loss = Losses(graph, *loss, &why);
  if (!loss) return NoMatch(div, why);
  const Loss& l = *loss;
  if (graph.NextNodes(l.neq->output(0)).size() != 3 || graph.IsOutput(l.neq->output(0)) ||
      graph.IsUsedBySubgraph(l.neq->output(0)))
    return NoMatch(div, "the mask is not read by exactly three nodes");
  for (const NodeProto* node : {l.eq, l.ind, l.ui, l.lsm, l.g, l.sg, l.ng, l.w, l.wf, l.nf, l.num, l.den, l.num16,
                                l.den16})
    if (!HasOneUse(graph, node->output(0))) return NoMatch(div, "an intermediate result has other readers");
  if (ConstantScalar(graph, OptionalInput(*l.eq, 1)) != -100.0)
    return NoMatch(div, "the labels are not compared with a constant scalar -100");
  if (ConstantScalarInt(graph, OptionalInput(*l.ui, 1)) != 1 || ConstantScalarInt(graph, OptionalInput(*l.sg, 1)) != 1)
    return NoMatch(div, "the Unsqueeze or the Squeeze axes are not a constant scalar 1");
  if (ConstantScalar(graph, OptionalInput(*l.w, 2)) != 0.0)
    return NoMatch(div, "the losses of ignored samples are not replaced by a constant scalar 0");
  if (graph.GetType(l.lsm->input(0)) != TensorProto::FLOAT16) return NoMatch(div, "the scores are not float16");
  return Matched(
      {l.eq, l.neq, l.ind, l.ui, l.lsm, l.g, l.sg, l.ng, l.w, l.wf, l.nf, l.num, l.den, l.num16, l.den16, &div}, &div);
}

utils::RepeatedProtoField<NodeProto> SoftmaxCrossEntropyLossCastPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {"Equal", "Not", "Where", "Unsqueeze", "LogSoftmax", "GatherElements", "Squeeze",
                                     "Neg", "Where", "Cast", "Cast", "ReduceSum", "ReduceSum", "Cast", "Cast", "Div"});
  const NodeProto& eq = *nodes[0];
  const NodeProto& lsm = *nodes[4];
  const NodeProto& div = *nodes[15];
  utils::RepeatedProtoField<NodeProto> out;
  NodeProto& loss = normalization::AddNode(out, graph, kName, div, "SoftmaxCrossEntropyLoss",
                                           {lsm.input(0), eq.input(0)}, div.output(0));
  core::builder::AddIntAttribute(loss, "ignore_index", -100);
  normalization::AddStringAttribute(loss, "reduction", "mean");
  return out;
}

}  // namespace onnxopt::onnx_patterns
