#include "onnx_extensions/patterns/reshape/static_concat_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::StaticDims;

namespace {

// The only Concat input that is not constant; -1 with `why` set when there is not exactly
// one, or when an input does not qualify.
int SoleComputedPiece(GraphGraph& graph, const NodeProto& concat, std::string_view* why) {
  int found = -1;
  for (int k = 0; k < concat.input_size(); ++k) {
    const std::string& piece = concat.input(k);
    if (graph.IsConstant(piece)) {
      const std::optional<std::vector<std::int64_t>> value = ConstantInts(graph, piece);
      if (!value) *why = "a constant input of the Concat cannot be computed";
      else if (std::find(value->begin(), value->end(), -1) != value->end())
        *why = "a constant input of the Concat holds -1";
      else continue;
      return -1;
    }
    if (StaticDims(graph, piece) != std::vector<std::int64_t>{1})
      *why = "a non-constant input of the Concat does not have shape (1,)";
    else if (found >= 0) *why = "the Concat has more than one non-constant input";
    if (!why->empty()) return -1;
    found = k;
  }
  if (found < 0) *why = "every input of the Concat is constant";
  return found;
}

// The index in the new shape of the first element of Concat input `piece`: the inputs
// before it hold that many elements (the computed one holds one).
std::size_t ShapeIndexOf(GraphGraph& graph, const NodeProto& concat, int piece) {
  std::size_t index = 0;
  for (int k = 0; k < piece; ++k) index += ConstantInts(graph, concat.input(k))->size();
  return index;
}

}  // namespace

MatchResult StaticConcatReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  std::string_view why;
  const NodeProto* concat = reshape::ShapeConcat(graph, node, &why);
  if (!concat) return NoMatch(node, why);
  const int piece = SoleComputedPiece(graph, *concat, &why);
  if (piece < 0) return NoMatch(node, why);
  if (why = reshape::WhyMinusOneNotInferable(graph, node, ShapeIndexOf(graph, *concat, piece)); !why.empty())
    return NoMatch(node, why);
  const NodeProto* insert_at = reshape::InferredPieceInsertAt(graph, *concat, node, &why);
  if (!insert_at) return NoMatch(node, why);
  return Matched({concat, &node}, insert_at);
}

utils::RepeatedProtoField<NodeProto> StaticConcatReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat", "Reshape"});
  std::string_view why;
  const int piece = SoleComputedPiece(graph, *nodes[0], &why);
  if (piece < 0)
    throw BuilderError(std::string(kName) + "::Apply called with a Concat it cannot use: " + std::string(why));
  return reshape::InferPiece(graph, kName, *nodes[0], *nodes[1], piece);
}

}  // namespace onnxopt::onnx_patterns
