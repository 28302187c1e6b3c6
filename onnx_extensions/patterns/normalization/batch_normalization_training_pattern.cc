#include "onnx_extensions/patterns/normalization/batch_normalization_training_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::FloatAttr;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::IsOp;
using core::builder::RankOf;
using normalization::AddNode;

namespace {

// `value` as an operand of Mul/Add with the normalized X of rank `rank`: reshaped to
// [1, -1, 1, ...] when it has rank 1 (one value per channel), used as it is otherwise.
std::string PerChannel(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, const NodeProto& bn,
                       const std::string& value, std::size_t rank, std::string* shape) {
  if (RankOf(graph, value) != 1u) return value;
  if (shape->empty()) {
    std::vector<std::int64_t> dims(rank, 1);
    dims[1] = -1;
    *shape = graph.MakeInitializer(BatchNormalizationTrainingPattern::kName, IntTensor(dims));
  }
  return AddNode(replacement, graph, BatchNormalizationTrainingPattern::kName, bn, "Reshape", {value, *shape})
      .output(0);
}

}  // namespace

std::set<std::string> BatchNormalizationTrainingPattern::FastOpType() const { return {"BatchNormalization"}; }

MatchResult BatchNormalizationTrainingPattern::Match(GraphGraph& graph, const NodeProto& bn) const {
  if (!IsOp(bn, "BatchNormalization") || bn.input_size() != 5)
    return NoMatch(bn, "the node is not a default-domain BatchNormalization with five inputs");
  if (IntAttr(bn, "training_mode").value_or(0) != 1)
    return NoMatch(bn, "the BatchNormalization is not in training mode");
  if (!normalization::OpsetAtLeast(graph, 18))
    return NoMatch(bn, "the main opset is below 18 (ReduceMean takes its axes as an input from 18)");
  const std::optional<std::size_t> rank = RankOf(graph, bn.input(0));
  if (!rank || *rank < 2) return NoMatch(bn, "the rank of X is unknown or below 2");
  if (!RankOf(graph, bn.input(1)) || !RankOf(graph, bn.input(2)))
    return NoMatch(bn, "the rank of scale or B is unknown");
  const int type = graph.GetType(bn.input(0));
  if (!normalization::IsFloatType(type)) return NoMatch(bn, "X is not of a known float type");
  if (graph.GetType(bn.input(1)) != type || graph.GetType(bn.input(2)) != type)
    return NoMatch(bn, "scale or B has another element type than X");
  if (bn.output_size() > 1 && !bn.output(1).empty() && graph.IsUsed(bn.output(1)))
    return NoMatch(bn, "the running mean output is used");
  if (bn.output_size() > 2 && !bn.output(2).empty() && graph.IsUsed(bn.output(2)))
    return NoMatch(bn, "the running variance output is used");
  return Matched({&bn});
}

utils::RepeatedProtoField<NodeProto> BatchNormalizationTrainingPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"BatchNormalization"});
  const NodeProto& bn = *nodes[0];
  const std::string& x = bn.input(0);
  const std::size_t rank = *RankOf(graph, x);
  std::vector<std::int64_t> axes{0};
  for (std::size_t i = 2; i < rank; ++i) axes.push_back(static_cast<std::int64_t>(i));
  const std::string axes_name = graph.MakeInitializer(kName, IntTensor(axes));
  const double epsilon = FloatAttr(bn, "epsilon").value_or(1e-5f);
  const std::string eps = graph.MakeInitializer(kName, normalization::FilledTensor(graph.GetType(x), {1}, epsilon));
  utils::RepeatedProtoField<NodeProto> out;
  NodeProto& mean = AddNode(out, graph, kName, bn, "ReduceMean", {x, axes_name});
  core::builder::AddIntAttribute(mean, "keepdims", 1);
  const std::string xc = AddNode(out, graph, kName, bn, "Sub", {x, mean.output(0)}).output(0);
  const std::string sq = AddNode(out, graph, kName, bn, "Mul", {xc, xc}).output(0);
  NodeProto& var = AddNode(out, graph, kName, bn, "ReduceMean", {sq, axes_name});
  core::builder::AddIntAttribute(var, "keepdims", 1);
  const std::string ve = AddNode(out, graph, kName, bn, "Add", {var.output(0), eps}).output(0);
  const std::string sd = AddNode(out, graph, kName, bn, "Sqrt", {ve}).output(0);
  std::string shape;
  const std::string scale = PerChannel(out, graph, bn, bn.input(1), rank, &shape);
  const std::string bias = PerChannel(out, graph, bn, bn.input(2), rank, &shape);
  const std::string n = AddNode(out, graph, kName, bn, "Div", {xc, sd}).output(0);
  const std::string ns = AddNode(out, graph, kName, bn, "Mul", {n, scale}).output(0);
  AddNode(out, graph, kName, bn, "Add", {ns, bias}, bn.output(0));
  return out;
}

}  // namespace onnxopt::onnx_patterns
