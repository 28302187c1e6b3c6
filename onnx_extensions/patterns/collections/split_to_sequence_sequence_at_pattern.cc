#include "onnx_extensions/patterns/collections/split_to_sequence_sequence_at_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantScalarInt;
using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::StaticDim;

bool HasSplit(const NodeProto& node) { return node.input_size() > 1 && !node.input(1).empty(); }

// The SequenceAt readers ordered by position; empty when the positions are not constant
// scalars forming exactly 0..m-1.
std::vector<const NodeProto*> ByPosition(GraphGraph& graph, const std::vector<const NodeProto*>& users) {
  std::vector<const NodeProto*> ordered(users.size(), nullptr);
  for (const NodeProto* user : users) {
    const std::optional<std::int64_t> p = ConstantScalarInt(graph, user->input(1));
    if (!p || *p < 0 || *p >= static_cast<std::int64_t>(users.size()) || ordered[static_cast<std::size_t>(*p)])
      return {};
    ordered[static_cast<std::size_t>(*p)] = user;
  }
  return ordered;
}

}  // namespace

MatchResult SplitToSequenceSequenceAtPattern::Match(GraphGraph& graph, const NodeProto& split) const {
  if (!core::builder::IsOp(split, "SplitToSequence"))
    return NoMatch(split, "the node is not a default-domain SplitToSequence");
  if (core::builder::OnnxOpset(graph) < 13) return NoMatch(split, "Split with a split input needs opset 13");
  const std::string& seq = split.output(0);
  if (graph.IsOutput(seq) || graph.IsUsedBySubgraph(seq))
    return NoMatch(split, "the sequence is a graph output or read by a subgraph");
  const std::vector<const NodeProto*>& users = graph.NextNodes(seq);
  if (users.empty()) return NoMatch(split, "the sequence has no reader");
  for (const NodeProto* user : users)
    if (!core::builder::IsOp(*user, "SequenceAt")) return NoMatch(split, "a reader of the sequence is not a SequenceAt");
  for (const NodeProto* user : users)
    if (!ConstantScalarInt(graph, user->input(1)))
      return NoMatch(split, "a position is not a constant scalar");
  if (ByPosition(graph, users).empty()) return NoMatch(split, "the positions are not 0, 1, ..., m-1");
  const auto m = static_cast<std::int64_t>(users.size());
  if (HasSplit(split)) {
    const std::optional<std::size_t> rank = core::builder::RankOf(graph, split.input(1));
    if (rank != std::size_t{1}) return NoMatch(split, "the split input is not known to be 1-D");
    // SplitToSequence takes int32 sizes too, Split int64 only.
    if (graph.GetType(split.input(1)) != TensorProto::INT64) return NoMatch(split, "the split input is not int64");
    if (StaticDim(graph, split.input(1), 0) != m)
      return NoMatch(split, "the split input does not have one size per SequenceAt");
  } else if (StaticDim(graph, split.input(0), IntAttr(split, "axis").value_or(0)) != m) {
    return NoMatch(split, "the static size of the split axis is not the number of SequenceAt");
  }
  std::vector<const NodeProto*> nodes = {&split};
  const std::vector<const NodeProto*> ordered = ByPosition(graph, users);
  nodes.insert(nodes.end(), ordered.begin(), ordered.end());
  return Matched(nodes);
}

utils::RepeatedProtoField<NodeProto> SplitToSequenceSequenceAtPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, {nodes.front()}, {"SplitToSequence"});
  const NodeProto& source = *nodes.front();
  const std::int64_t axis = IntAttr(source, "axis").value_or(0);
  // keepdims only applies without a split input.
  const bool squeeze = !HasSplit(source) && IntAttr(source, "keepdims").value_or(1) == 0;

  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& split = *replacement.Add();
  split.set_op_type("Split");
  split.set_name(DerivedNodeName(graph, kName, source));
  split.add_input(source.input(0));
  core::builder::AddIntAttribute(split, "axis", axis);
  if (HasSplit(source))
    split.add_input(source.input(1));
  else
    collections::SetSplitOnes(graph, kName, split, static_cast<std::int64_t>(nodes.size() - 1));
  for (std::size_t j = 1; j < nodes.size(); ++j) {
    core::builder::ExpectMatchedNodes(*this, {nodes[j]}, {"SequenceAt"});
    const std::string piece = squeeze ? graph.Builder().UniqueName(kName) : nodes[j]->output(0);
    split.add_output(piece);
    if (squeeze) collections::AddSqueeze(graph, kName, *nodes[j], replacement, piece, nodes[j]->output(0), axis);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
