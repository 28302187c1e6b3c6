#include "onnx_extensions/patterns/reshape/concat_reshape_pattern.h"

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::IsOp;
using core::builder::StaticDims;

namespace {

// The Concat input to replace by -1: the only one not produced by Shape, else the last one
// produced by Shape; -1 with `why` set when the inputs do not qualify.
int PieceToInfer(GraphGraph& graph, const NodeProto& concat, std::string_view* why) {
  int last_shape = -1, other = -1;
  for (int k = 0; k < concat.input_size(); ++k) {
    const std::string& piece = concat.input(k);
    if (graph.IsConstant(piece)) {
      const std::optional<std::vector<std::int64_t>> value = ConstantInts(graph, piece);
      if (!value) *why = "a constant input of the Concat cannot be computed";
      else if (value->size() != 1) *why = "a constant input of the Concat does not have one element";
      else if (value->front() == -1) *why = "a constant input of the Concat is -1";
      else continue;
      return -1;
    }
    const NodeProto* producer = graph.NodeBefore(piece);
    if (!producer) *why = "a non-constant input of the Concat is not produced by a node";
    else if (StaticDims(graph, piece) != std::vector<std::int64_t>{1})
      *why = "a non-constant input of the Concat does not have shape (1,)";
    else if (IsOp(*producer, "Shape")) last_shape = k;
    else if (other < 0) other = k;
    else *why = "two non-constant inputs of the Concat are not produced by Shape";
    if (!why->empty()) return -1;
  }
  if (other < 0 && last_shape < 0) *why = "every input of the Concat is constant";
  return other >= 0 ? other : last_shape;
}

}  // namespace

MatchResult ConcatReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  std::string_view why;
  const NodeProto* concat = reshape::ShapeConcat(graph, node, &why);
  if (!concat) return NoMatch(node, why);
  const int piece = PieceToInfer(graph, *concat, &why);
  if (piece < 0) return NoMatch(node, why);
  // Every input has one element: input `piece` is dim `piece` of the output.
  if (why = reshape::WhyMinusOneNotInferable(graph, node, static_cast<std::size_t>(piece)); !why.empty())
    return NoMatch(node, why);
  const NodeProto* insert_at = reshape::InferredPieceInsertAt(graph, *concat, node, &why);
  if (!insert_at) return NoMatch(node, why);
  return Matched({concat, &node}, insert_at);
}

utils::RepeatedProtoField<NodeProto> ConcatReshapePattern::Apply(GraphGraph& graph,
                                                                 const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat", "Reshape"});
  std::string_view why;
  const int piece = PieceToInfer(graph, *nodes[0], &why);
  if (piece < 0)
    throw BuilderError(std::string(kName) + "::Apply called with a Concat it cannot use: " + std::string(why));
  return reshape::InferPiece(graph, kName, *nodes[0], *nodes[1], piece);
}

}  // namespace onnxopt::onnx_patterns
