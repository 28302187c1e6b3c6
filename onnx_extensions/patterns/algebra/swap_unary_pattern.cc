#include "onnx_extensions/patterns/algebra/swap_unary_pattern.h"

#include <algorithm>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::RankOf;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

// How an element-wise reader treats its inputs after the first.
enum class Extras {
  kNone,       // one input
  kScalars,    // extra inputs that must be scalars, () or (1,), to be element-wise
  kTypeOnly,   // CastLike: the second input's type only
  kUnitShape,  // Add, Sub, Mul, Div: a second input of shape (1,) exactly (upstream's rule)
  kNotElementwise,
};

Extras ExtrasOf(const NodeProto& node) {
  // Upstream's list without the operators that depend on an axis or on positions
  // (Softmax, LogSoftmax, CumSum, LpNormalization, LRN, MeanVarianceNormalization, Trilu),
  // with several outputs (DynamicQuantizeLinear), and without its misspelt ThresholdRelu.
  static constexpr std::string_view kUnary[] = {
      "Abs",   "Acos",        "Acosh",     "Asin",     "Asinh",     "Atan",   "Atanh",   "BitwiseNot",
      "Cast",  "Ceil",        "Celu",      "Cos",      "Cosh",      "Elu",    "Erf",     "Exp",
      "Floor", "HardSigmoid", "HardSwish", "IsInf",    "LeakyRelu", "Log",    "Mish",    "Neg",
      "Not",   "Reciprocal",  "Relu",      "Round",    "Selu",      "Shrink", "Sigmoid", "Sign",
      "Sin",   "Sinh",        "Softplus",  "Softsign", "Sqrt",      "Tan",    "Tanh",    "ThresholdedRelu",
      "Trunc"};
  static constexpr std::string_view kWithScalars[] = {"BitShift", "Clip", "DequantizeLinear", "PRelu",
                                                      "QuantizeLinear"};
  static constexpr std::string_view kArithmetic[] = {"Add", "Div", "Mul", "Sub"};
  if (!core::builder::IsOnnxDomain(node.domain())) return Extras::kNotElementwise;
  auto in = [&](const auto& list) {
    return std::find(std::begin(list), std::end(list), node.op_type()) != std::end(list);
  };
  if (in(kUnary)) return node.input_size() == 1 ? Extras::kNone : Extras::kNotElementwise;
  if (in(kWithScalars)) return Extras::kScalars;
  if (node.op_type() == "CastLike") return Extras::kTypeOnly;
  if (in(kArithmetic)) return node.input_size() == 2 ? Extras::kUnitShape : Extras::kNotElementwise;
  return Extras::kNotElementwise;
}

bool IsUnitShape(const SymShape* shape) { return shape && shape->Rank() == 1 && (*shape)[0] == SymDim(1); }

}  // namespace

MatchResult SwapUnaryPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  const bool transpose = IsOp(node, "Transpose") && node.input_size() == 1;
  if (!(transpose || (IsOp(node, "Reshape") && node.input_size() == 2)) || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose or Reshape");
  const std::optional<std::size_t> rank = RankOf(graph, node.input(0));
  if (!rank) return NoMatch(node, "the rank of the input is not known");
  if (*rank == 0) return NoMatch(node, "the input is a scalar");
  if (!HasOneUse(graph, node.output(0))) return NoMatch(node, "the output has other readers");
  const NodeProto& reader = *graph.NextNodes(node.output(0)).front();
  if (reader.output_size() != 1 || reader.input_size() == 0 || reader.input(0) != node.output(0))
    return NoMatch(node, "the reader does not read the output as its first input, for one output");
  const Extras extras = ExtrasOf(reader);
  if (extras == Extras::kNotElementwise) return NoMatch(node, "the reader is not an element-wise operator");
  bool unit_extra = false;
  for (int i = 1; i < reader.input_size(); ++i) {
    if (reader.input(i) == node.output(0)) return NoMatch(node, "the reader reads the output twice");
    if (reader.input(i).empty() || extras == Extras::kTypeOnly) continue;
    const SymShape* shape = KnownShape(graph, reader.input(i));
    if (extras == Extras::kUnitShape && !IsUnitShape(shape))
      return NoMatch(node, "the second input of the reader does not have the shape (1,)");
    if (extras == Extras::kScalars && !(shape && shape->Rank() == 0) && !IsUnitShape(shape))
      return NoMatch(node, "an extra input of the reader is not a scalar");
    unit_extra = unit_extra || IsUnitShape(shape);
  }
  if (reader.op_type() == "Cast" || reader.op_type() == "CastLike") {
    // Before the layout node, a widening Cast makes it move wider elements. Moving one also
    // changed onnxruntime's results on the float16 corpus models (a Cast to float right
    // after a float16 MatMul: its CPU float16 handling seems to skip the rounding between).
    const std::size_t from = core::eval::StorageBytes(graph.GetType(node.output(0)));
    const std::size_t to = core::eval::StorageBytes(graph.GetType(reader.output(0)));
    if (from == 0 || to == 0 || to > from) return NoMatch(node, "the Cast may widen the elements");
  }
  // A (1,) operand broadcast with a rank-0 Reshape output gives (1,); applied to X first
  // it would give X's shape, and the Reshape a scalar.
  if (unit_extra && !transpose && RankOf(graph, node.output(0)).value_or(0) == 0)
    return NoMatch(node, "the Reshape may give a scalar, which a (1,) operand of the reader enlarges");
  // The extra inputs may be computed after the Transpose or Reshape.
  return Matched({&node, &reader}, &reader);
}

utils::RepeatedProtoField<NodeProto> SwapUnaryPattern::Apply(GraphGraph& graph,
                                                             const std::vector<const NodeProto*>& nodes) const {
  const core::builder::ExpectedNode layout{"default-domain Transpose or Reshape", [](const NodeProto& n) {
                                             return IsOp(n, "Transpose") || IsOp(n, "Reshape");
                                           }};
  const core::builder::ExpectedNode elementwise{
      "element-wise node", [](const NodeProto& n) { return ExtrasOf(n) != Extras::kNotElementwise; }};
  core::builder::ExpectMatchedNodes(*this, nodes, {layout, elementwise});
  const NodeProto& node = *nodes[0];
  const NodeProto& reader = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = *replacement.Add() = reader;
  moved.set_name(DerivedNodeName(graph, kName, reader));
  moved.set_input(0, node.input(0));
  moved.set_output(0, graph.Builder().UniqueName(kName));
  NodeProto& after = *replacement.Add() = node;
  after.set_name(DerivedNodeName(graph, kName, node));
  after.set_input(0, moved.output(0));
  after.set_output(0, reader.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
