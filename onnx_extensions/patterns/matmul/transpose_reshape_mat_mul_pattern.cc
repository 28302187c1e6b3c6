#include "onnx_extensions/patterns/matmul/transpose_reshape_mat_mul_pattern.h"

#include <algorithm>
#include <utility>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;
using core::builder::ConstantInts;
using core::builder::HasOneUse;
using core::builder::KnownShape;
using core::shapes::SymShape;
using matmul::Ints;

namespace {

// The nodes of one side, or the reason (and how far the checks went) when it fails.
struct Side {
  const NodeProto* transpose = nullptr;
  const NodeProto* reshape = nullptr;
  std::string_view why;
  int stage = 0;
};

Side Fail(int stage, std::string_view why) { return {nullptr, nullptr, why, stage}; }

Side CheckSide(GraphGraph& graph, const std::string& operand) {
  const NodeProto* reshape = matmul::PlainReshapeProducer(graph, operand);
  if (!reshape) return Fail(1, "the operand is not produced by a default-domain Reshape with allowzero=0");
  if (!HasOneUse(graph, operand)) return Fail(2, "the Reshape output has other readers");
  const NodeProto* transpose = core::builder::ProducerOf(graph, reshape->input(0), "Transpose");
  if (!transpose) return Fail(3, "the Reshape does not read a Transpose");
  if (!HasOneUse(graph, reshape->input(0))) return Fail(4, "the Transpose output has other readers");
  const std::optional<Ints> perm = matmul::TransposePermutation(graph, *transpose);
  if (!perm || perm->size() < 2 || *perm != matmul::LastTwoAxesSwapped(perm->size()))
    return Fail(5, "the Transpose does not swap only the last two axes");
  const std::optional<Ints> shape = ConstantInts(graph, reshape->input(1));
  if (!shape) return Fail(6, "the shape of the Reshape is not constant");
  const SymShape* in = KnownShape(graph, reshape->input(0));
  const SymShape* out = KnownShape(graph, operand);
  if (!in || !out || in->Rank() < 2 || out->Rank() < 2 || out->Rank() != shape->size())
    return Fail(7, "the shapes around the Reshape are not known");
  const std::size_t n = in->Rank(), r = out->Rank();
  if (!((*in)[n - 1] == (*out)[r - 1]) || !((*in)[n - 2] == (*out)[r - 2]))
    return Fail(8, "the Reshape changes the last two dimensions");
  // A 0 at position k copies dim k of the Reshape input. The rewrite swaps the last two
  // entries of s and reads X, whose last two axes are xt's swapped: both swaps cancel when
  // the ranks are equal; otherwise only a 0 before the last two positions of both shapes
  // still copies the same dim.
  for (std::size_t k = 0; k < r; ++k)
    if ((*shape)[k] == 0 && r != n && k + 2 >= std::min(n, r))
      return Fail(9, "a 0 in the shape of the Reshape would copy another dimension after the swap");
  return {transpose, reshape, {}, 10};
}

// The side to rewrite (left first), or the failure that got furthest (left on a tie).
Side ChooseSide(GraphGraph& graph, const NodeProto& node) {
  const Side left = CheckSide(graph, node.input(0));
  if (left.reshape) return left;
  const Side right = node.input(1) == node.input(0) ? left : CheckSide(graph, node.input(1));
  return right.reshape || right.stage > left.stage ? right : left;
}

}  // namespace

MatchResult TransposeReshapeMatMulPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!matmul::IsMatMul(node)) return NoMatch(node, "the node is not a default-domain MatMul");
  const Side side = ChooseSide(graph, node);
  if (!side.reshape) return NoMatch(node, side.why);
  return Matched({side.transpose, side.reshape, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> TransposeReshapeMatMulPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Transpose", "Reshape", "MatMul"});
  const NodeProto& transpose = *nodes[0];
  const NodeProto& reshape = *nodes[1];
  Ints shape = *ConstantInts(graph, reshape.input(1));
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  utils::RepeatedProtoField<NodeProto> replacement;
  const std::string swapped = graph.MakeInitializer(kName, core::builder::IntTensor(shape));
  const NodeProto& moved = AddNode(replacement, graph, kName, reshape, "Reshape",
                                           {transpose.input(0), swapped}, graph.Builder().UniqueName(kName));
  NodeProto& last = AddNode(replacement, graph, kName, transpose, "Transpose", {moved.output(0)},
                                    reshape.output(0));
  core::builder::AddIntsAttribute(last, "perm", matmul::LastTwoAxesSwapped(shape.size()));
  *replacement.Add() = *nodes[2];
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
