#include "onnx_extensions/patterns/collections/split_concat_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::IntAttr;
using core::builder::NormalizeAxis;

// Whether the Split and Concat axes are the same axis of X.
bool SameAxis(const GraphGraph& graph, const NodeProto& split, const NodeProto& concat) {
  const std::int64_t a = IntAttr(split, "axis").value_or(0);
  const std::optional<std::int64_t> b = IntAttr(concat, "axis");
  if (!b) return false;
  if (a == *b) return true;
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, split.input(0));
  if (!rank) return false;
  const auto na = NormalizeAxis(a, *rank), nb = NormalizeAxis(*b, *rank);
  return na && nb && *na == *nb;
}

}  // namespace

MatchResult SplitConcatPattern::Match(GraphGraph& graph, const NodeProto& split) const {
  if (!core::builder::IsOp(split, "Split")) return NoMatch(split, "the node is not a default-domain Split");
  const NodeProto* concat = nullptr;
  for (const std::string& piece : split.output()) {
    if (piece.empty()) return NoMatch(split, "a Split output is unused");
    if (graph.IsOutput(piece) || graph.IsUsedBySubgraph(piece))
      return NoMatch(split, "a piece is a graph output or read by a subgraph");
    const std::vector<const NodeProto*>& users = graph.NextNodes(piece);
    if (users.size() != 1) return NoMatch(split, "a piece does not have exactly one reader");
    if (!core::builder::IsOp(*users.front(), "Concat")) return NoMatch(split, "a piece is not read by a Concat");
    if (concat && concat != users.front()) return NoMatch(split, "the pieces are read by different Concats");
    concat = users.front();
  }
  if (!concat) return NoMatch(split, "the Split has no output");
  if (concat->input_size() != split.output_size()) return NoMatch(split, "the Concat does not take exactly the pieces");
  for (int k = 0; k < split.output_size(); ++k)
    if (concat->input(k) != split.output(k)) return NoMatch(split, "the Concat takes the pieces in another order");
  if (!SameAxis(graph, split, *concat)) return NoMatch(split, "the Split and Concat axes differ");
  return Matched({&split, concat});
}

utils::RepeatedProtoField<NodeProto> SplitConcatPattern::Apply(GraphGraph& graph,
                                                               const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Split", "Concat"});
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, kName, *nodes[1], nodes[0]->input(0), nodes[1]->output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
