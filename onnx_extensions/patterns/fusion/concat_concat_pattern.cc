#include "onnx_extensions/patterns/fusion/concat_concat_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::NormalizeAxis;
using core::builder::RankOf;

namespace {

bool IsConcat(const NodeProto& node) { return IsOp(node, "Concat") && node.output_size() == 1; }

// The axis of a Concat in [0, rank) when the rank of its output is known.
std::optional<std::int64_t> ConcatAxis(const GraphGraph& graph, const NodeProto& concat) {
  const std::optional<std::int64_t> axis = IntAttr(concat, "axis");
  const std::optional<std::size_t> rank = RankOf(graph, concat.output(0));
  if (!axis || !rank) return std::nullopt;
  return NormalizeAxis(*axis, *rank);
}

// The first input of `outer` produced by a single-use Concat on the same axis.
const NodeProto* InnerConcat(const GraphGraph& graph, const NodeProto& outer, std::int64_t axis) {
  for (const std::string& input : outer.input()) {
    const NodeProto* inner = graph.NodeBefore(input);
    if (inner && IsConcat(*inner) && core::builder::HasOneUse(graph, input) && ConcatAxis(graph, *inner) == axis)
      return inner;
  }
  return nullptr;
}

}  // namespace

MatchResult ConcatConcatPattern::Match(GraphGraph& graph, const NodeProto& outer) const {
  if (!IsConcat(outer)) return NoMatch(outer, "the node is not a default-domain Concat with one output");
  const std::optional<std::int64_t> axis = ConcatAxis(graph, outer);
  if (!axis) return NoMatch(outer, "the axis or the output rank of the Concat is unknown");
  const NodeProto* inner = InnerConcat(graph, outer, *axis);
  if (!inner) return NoMatch(outer, "no input is a Concat on the same axis with no other use");
  // At the outer Concat: its other inputs may be computed after the inner one.
  return Matched({inner, &outer}, &outer);
}

utils::RepeatedProtoField<NodeProto> ConcatConcatPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat", "Concat"});
  const NodeProto& inner = *nodes[0];
  const NodeProto& outer = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& merged = *replacement.Add() = outer;
  merged.set_name(core::builder::DerivedNodeName(graph, kName, outer));
  merged.clear_input();
  for (const std::string& input : outer.input()) {
    if (input == inner.output(0))
      for (const std::string& piece : inner.input()) merged.add_input(piece);
    else
      merged.add_input(input);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
