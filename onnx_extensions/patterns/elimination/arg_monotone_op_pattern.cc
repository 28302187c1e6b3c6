#include "onnx_extensions/patterns/elimination/arg_monotone_op_pattern.h"

#include <optional>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::NormalizeAxis;

namespace {

bool IsSoftmax(const NodeProto& node) { return IsOp(node, "Softmax") || IsOp(node, "LogSoftmax"); }

bool IsIncreasingOp(const NodeProto& node) {
  return IsOp(node, "Exp") || IsOp(node, "Sigmoid") || IsOp(node, "Tanh") || IsSoftmax(node);
}

}  // namespace

MatchResult ArgMonotoneOpPattern::Match(GraphGraph& graph, const NodeProto& arg) const {
  std::string_view why;
  const NodeProto* op = elimination::ArgInputProducer(graph, arg, &why);
  if (!op) return NoMatch(arg, why);
  if (!IsIncreasingOp(*op))
    return NoMatch(arg, "the input is produced by none of Exp, Sigmoid, Tanh, Softmax, LogSoftmax");
  if (IsSoftmax(*op)) {
    const std::optional<std::size_t> rank = core::builder::RankOf(graph, op->input(0));
    if (!rank) return NoMatch(arg, "the rank of the softmax input is unknown");
    // Softmax's default axis was 1 before opset 13, -1 since.
    const std::int64_t softmax_default = core::builder::OnnxOpset(graph) < 13 ? 1 : -1;
    const std::optional<std::int64_t> softmax_axis =
        NormalizeAxis(IntAttr(*op, "axis").value_or(softmax_default), *rank);
    const std::optional<std::int64_t> arg_axis = NormalizeAxis(IntAttr(arg, "axis").value_or(0), *rank);
    if (!softmax_axis || softmax_axis != arg_axis) return NoMatch(arg, "the softmax axis is not the Arg axis");
  }
  return Matched({op, &arg});
}

utils::RepeatedProtoField<NodeProto> ArgMonotoneOpPattern::Apply(GraphGraph& graph,
                                                                 const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"increasing op", IsIncreasingOp}, elimination::kArgMaxOrArgMin});
  return elimination::ArgOf(graph, kName, *nodes[1], nodes[0]->input(0), nodes[1]->op_type());
}

}  // namespace onnxopt::onnx_patterns
