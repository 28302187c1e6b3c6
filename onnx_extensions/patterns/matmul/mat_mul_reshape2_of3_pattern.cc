#include "onnx_extensions/patterns/matmul/mat_mul_reshape2_of3_pattern.h"

#include <algorithm>
#include <tuple>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddNode;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsPlainReshape;
using core::builder::Reject;
using core::builder::StaticDims;
using matmul::BatchDims;
using matmul::Ints;
using matmul::MatrixDims;

namespace {

bool IsProduct(const NodeProto& node) {
  if (node.input_size() != 2 || node.output_size() != 1) return false;
  if (matmul::IsMatMul(node)) return true;
  return node.op_type() == "FusedMatMul" && node.domain() == "com.microsoft" &&
         IntAttr(node, "transBatchA").value_or(0) == 0 && IntAttr(node, "transBatchB").value_or(0) == 0;
}

// The Reshapes the rewrite removes; null where there is none (or it must stay).
struct Sides {
  const NodeProto* left = nullptr;   // a = Reshape(XL, sL), read by the product alone
  const NodeProto* right = nullptr;  // b = Reshape(XR, sR), read by the product alone
  const NodeProto* out = nullptr;    // W = Reshape(Z, sO), the only reader of Z

  int Count() const { return (left ? 1 : 0) + (right ? 1 : 0) + (out ? 1 : 0); }
};

const NodeProto* SideReshape(const GraphGraph& graph, const std::string& operand) {
  return HasOneUse(graph, operand) ? matmul::PlainReshapeProducer(graph, operand) : nullptr;
}

Sides FindSides(const GraphGraph& graph, const NodeProto& product) {
  Sides sides{SideReshape(graph, product.input(0)), SideReshape(graph, product.input(1)), nullptr};
  const std::string& z = product.output(0);
  if (HasOneUse(graph, z)) {
    const NodeProto* reader = graph.NextNodes(z).front();
    if (IsPlainReshape(*reader) && reader->input(0) == z && reader->input(1) != z) sides.out = reader;
  }
  return sides;
}

// The static shapes around the product and the batch dims Bt it runs on after the rewrite.
struct Plan {
  Ints left, right, final_shape;  // XL, XR (a, b when absent), W (Z when absent)
  Ints a_matrix, b_matrix;        // the matrix dims of a and b, kept
  Ints batch;                     // Bt

  bool ReshapeLeft() const { return BatchDims(left) != batch; }
  bool ReshapeRight() const { return BatchDims(right) != batch; }
  bool ReshapeOut() const { return BatchDims(final_shape) != batch; }
  int Cost() const { return (ReshapeLeft() ? 1 : 0) + (ReshapeRight() ? 1 : 0) + (ReshapeOut() ? 1 : 0); }
};

bool HasEmptyDim(const Ints& dims) {
  return std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d == 0; });
}

// The static shape on the far side of `reshape` (its input, or its output when `output`)
// when it keeps the matrix dims `matrix`; nullopt with `why` set otherwise.
std::optional<Ints> FarShape(const GraphGraph& graph, const std::string& value, const Ints& matrix,
                             std::string_view* why) {
  std::optional<Ints> dims = StaticDims(graph, value);
  if (!dims) return Reject(why, "the shape on the other side of a Reshape is not static");
  if (dims->size() < 2 || MatrixDims(*dims) != matrix)
    return Reject(why, "a Reshape changes the last two dimensions");
  return dims;
}

std::optional<Plan> MakePlan(const GraphGraph& graph, const NodeProto& product, const Sides& sides,
                             std::string_view* why) {
  const std::optional<Ints> a = StaticDims(graph, product.input(0)), b = StaticDims(graph, product.input(1));
  const std::optional<Ints> z = StaticDims(graph, product.output(0));
  if (!a || !b || !z) return Reject(why, "the shape of an input or of the output of the product is not static");
  if (a->size() < 2 || b->size() < 2 || z->size() < 2)
    return Reject(why, "an input of the product has rank lower than 2");
  if (BatchDims(*a) != BatchDims(*b)) return Reject(why, "the product broadcasts batch dimensions");
  if (HasEmptyDim(*a) || HasEmptyDim(*b)) return Reject(why, "an input of the product is empty");
  Plan plan{*a, *b, *z, MatrixDims(*a), MatrixDims(*b), {}};
  for (auto [side, shape, matrix] : {std::tuple{sides.left, &plan.left, MatrixDims(*a)},
                                     std::tuple{sides.right, &plan.right, MatrixDims(*b)},
                                     std::tuple{sides.out, &plan.final_shape, MatrixDims(*z)}}) {
    if (!side) continue;
    const std::string& far = side == sides.out ? side->output(0) : side->input(0);
    std::optional<Ints> dims = FarShape(graph, far, matrix, why);
    if (!dims) return std::nullopt;
    *shape = std::move(*dims);
  }
  // The candidates in order of preference; the first of least cost wins.
  int best = 4;
  for (const Ints& candidate : {BatchDims(plan.final_shape), BatchDims(plan.left), BatchDims(plan.right),
                                BatchDims(*a)}) {
    Plan trial = plan;
    trial.batch = candidate;
    if (trial.Cost() < best) best = trial.Cost(), plan.batch = candidate;
  }
  if (best >= sides.Count()) return Reject(why, "the rewrite would not remove a Reshape");
  return plan;
}

Ints Concat(const Ints& batch, const Ints& matrix) {
  Ints dims = batch;
  dims.insert(dims.end(), matrix.begin(), matrix.end());
  return dims;
}

// `output = Reshape(input, dims)` with a new initializer for `dims`.
void AddReshape(utils::RepeatedProtoField<NodeProto>& replacement, GraphGraph& graph, const NodeProto& from,
                const std::string& input, const Ints& dims, const std::string& output) {
  const std::string shape = graph.MakeInitializer(MatMulReshape2Of3Pattern::kName, core::builder::IntTensor(dims));
  AddNode(replacement, graph, MatMulReshape2Of3Pattern::kName, from, "Reshape", {input, shape}, output);
}

}  // namespace

MatchResult MatMulReshape2Of3Pattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsProduct(node))
    return NoMatch(node, "the node is not a MatMul, nor a FusedMatMul without batch transposition");
  if (node.input(0) == node.input(1)) return NoMatch(node, "both inputs are the same value");
  const Sides sides = FindSides(graph, node);
  if (sides.Count() < 2)
    return NoMatch(node, "fewer than two of the inputs and the output go through a Reshape read there alone");
  std::string_view why;
  if (!MakePlan(graph, node, sides, &why)) return NoMatch(node, why);
  return Matched({sides.left, sides.right, &node, sides.out}, &node);
}

utils::RepeatedProtoField<NodeProto> MatMulReshape2Of3Pattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", "", "", ""});
  core::builder::ExpectMatchedNodes(*this, {nodes[2]}, {{"MatMul or FusedMatMul", IsProduct}});
  const Sides sides{nodes[0], nodes[1], nodes[3]};
  const NodeProto& product = *nodes[2];
  std::string_view why;
  const Plan plan = *MakePlan(graph, product, sides, &why);
  utils::RepeatedProtoField<NodeProto> replacement;
  std::string lhs = sides.left ? sides.left->input(0) : product.input(0);
  std::string rhs = sides.right ? sides.right->input(0) : product.input(1);
  for (auto [operand, reshape, matrix] : {std::tuple{&lhs, plan.ReshapeLeft(), &plan.a_matrix},
                                          std::tuple{&rhs, plan.ReshapeRight(), &plan.b_matrix}}) {
    if (!reshape) continue;
    const std::string reshaped = graph.Builder().UniqueName(kName);
    AddReshape(replacement, graph, product, *operand, Concat(plan.batch, *matrix), reshaped);
    *operand = reshaped;
  }
  const std::string& target = sides.out ? sides.out->output(0) : product.output(0);
  NodeProto& node = *replacement.Add() = product;
  node.set_name(core::builder::DerivedNodeName(graph, kName, product));
  node.set_input(0, lhs);
  node.set_input(1, rhs);
  node.set_output(0, plan.ReshapeOut() ? graph.Builder().UniqueName(kName) : target);
  if (plan.ReshapeOut()) AddReshape(replacement, graph, product, node.output(0), plan.final_shape, target);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
