#include "onnx_extensions/patterns/matmul/reshape_mat_mul_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;
using core::builder::ConstantInts;
using core::builder::HasOneUse;
using core::builder::IsPlainReshape;
using core::builder::KnownShape;
using core::shapes::SymDim;
using core::shapes::SymShape;
using matmul::Ints;

namespace {

// The last two dims of `shape` are integers equal to the last two entries of `target`.
bool KeepsMatrixDims(const SymShape& shape, const Ints& target) {
  const std::size_t n = shape.Rank(), m = target.size();
  for (std::size_t k = 1; k <= 2; ++k) {
    const std::optional<std::int64_t> d = shape[n - k].Constant();
    if (!d || *d <= 0 || *d != target[m - k]) return false;
  }
  return true;
}

// Batch dims `batch` that equal `out` or are all ones.
bool FullOrOnes(const std::vector<SymDim>& batch, const std::vector<SymDim>& out) {
  if (batch.size() == out.size() && std::equal(batch.begin(), batch.end(), out.begin())) return true;
  return std::all_of(batch.begin(), batch.end(), [](const SymDim& d) { return d == SymDim(1); });
}

std::vector<SymDim> Batch(const std::vector<SymDim>& dims) { return {dims.begin(), dims.end() - 2}; }

}  // namespace

MatchResult ReshapeMatMulReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!matmul::IsMatMul(node)) return NoMatch(node, "the node is not a default-domain MatMul");
  if (!HasOneUse(graph, node.output(0))) return NoMatch(node, "the output of the MatMul is not read by one node alone");
  const NodeProto& out = *graph.NextNodes(node.output(0)).front();
  if (!IsPlainReshape(out) || out.input(0) != node.output(0))
    return NoMatch(node, "the output of the MatMul is not reshaped by a Reshape");
  const NodeProto* ra = matmul::PlainReshapeProducer(graph, node.input(0));
  const NodeProto* rb = matmul::PlainReshapeProducer(graph, node.input(1));
  if (!ra || !rb) return NoMatch(node, "an input of the MatMul is not produced by a Reshape");
  const std::optional<Ints> sa = ConstantInts(graph, ra->input(1)), sb = ConstantInts(graph, rb->input(1));
  const std::optional<Ints> sz = ConstantInts(graph, out.input(1));
  if (!sa || !sb || !sz) return NoMatch(node, "the shape of a Reshape is not constant");
  if (sz->size() < 4) return NoMatch(node, "the output Reshape produces fewer than 4 dimensions");
  if (sa->size() != 3 || sb->size() != 3) return NoMatch(node, "an input Reshape does not produce 3 dimensions");
  const SymShape* a = KnownShape(graph, ra->input(0));
  const SymShape* b = KnownShape(graph, rb->input(0));
  if (!a || !b) return NoMatch(node, "the shape of an input before its Reshape is not known");
  if (a->Rank() != sz->size() || b->Rank() != sz->size())
    return NoMatch(node, "an input before its Reshape does not have the rank of the output");
  if (!KeepsMatrixDims(*a, *sa) || !KeepsMatrixDims(*b, *sb))
    return NoMatch(node, "the last two dimensions of an input differ from those its Reshape gives");
  const std::vector<SymDim> out_dims(sz->begin(), sz->end());
  const std::vector<SymDim> out_batch = Batch(out_dims);
  if (!FullOrOnes(Batch(a->Dims()), out_batch) || !FullOrOnes(Batch(b->Dims()), out_batch))
    return NoMatch(node, "the batch dimensions of an input are neither the output's nor all ones");
  const std::optional<std::vector<SymDim>> batch = core::builder::Broadcast(Batch(a->Dims()), Batch(b->Dims()));
  if (!batch || *batch != out_batch)
    return NoMatch(node, "the batch dimensions of the inputs do not broadcast to the output's");
  if (!(out_dims[out_dims.size() - 2] == (*a)[a->Rank() - 2]) || !(out_dims.back() == (*b)[b->Rank() - 1]))
    return NoMatch(node, "the last two dimensions of the output are not those of the product");
  // The input Reshapes go unless they have other readers; the MatMul reads both inputs.
  return Matched({HasOneUse(graph, node.input(0)) ? ra : nullptr,
                  HasOneUse(graph, node.input(1)) && rb != ra ? rb : nullptr, &node, &out},
                 &node);
}

utils::RepeatedProtoField<NodeProto> ReshapeMatMulReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", "", "MatMul", "Reshape"});
  const NodeProto& node = *nodes[2];
  const NodeProto& out = *nodes[3];
  utils::RepeatedProtoField<NodeProto> replacement;
  AddNode(replacement, graph, kName, node, "MatMul",
                  {graph.NodeBefore(node.input(0))->input(0), graph.NodeBefore(node.input(1))->input(0)},
                  out.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
