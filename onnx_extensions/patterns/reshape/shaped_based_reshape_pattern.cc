#include "onnx_extensions/patterns/reshape/shaped_based_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::RankOf;
using core::builder::StaticDim;

MatchResult ShapedBasedReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  const auto shape = ConstantInts(graph, node.input(1));
  if (!shape) return NoMatch(node, "the shape input is not constant");
  if (shape->size() < 2) return NoMatch(node, "the shape has fewer than two entries");
  if (!std::all_of(shape->begin(), shape->end() - 1, [](std::int64_t d) { return d == 0; }))
    return NoMatch(node, "an entry of the shape other than the last is not 0");
  const std::int64_t last = shape->back();
  if (last == 0) return NoMatch(node, "the last entry of the shape is 0");
  if (last < -1) return NoMatch(node, "the last entry of the shape is below -1");
  const auto rank = RankOf(graph, node.input(0));
  if (!rank) return NoMatch(node, "the rank of the input is not known");
  if (*rank != shape->size()) return NoMatch(node, "the rank of the input is not the length of the shape");
  if (last > 0 && StaticDim(graph, node.input(0), -1) != last)
    return NoMatch(node, "the last dimension of the input is not known to be the last entry of the shape");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapedBasedReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Reshape"});
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = reshape::IdentityOf(graph, kName, *nodes[0]);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
