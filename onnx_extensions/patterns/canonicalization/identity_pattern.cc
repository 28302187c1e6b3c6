#include "onnx_extensions/patterns/canonicalization/identity_pattern.h"

#include <algorithm>
#include <limits>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/operator_modes.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::IsConstantFilledWith;
using core::builder::ConstantInts;
using core::builder::IsOp;
using core::builder::OptionalInput;

bool AllEqual(const std::vector<std::int64_t>& values, std::int64_t expected) {
  return std::all_of(values.begin(), values.end(), [&](std::int64_t v) { return v == expected; });
}

// The neutral element of a binary operator: 0 for Add, Sub, Or; 1 for Mul, Div, And.
double NeutralElement(const NodeProto& node) {
  return IsOp(node, "Add") || IsOp(node, "Sub") || IsOp(node, "Or") ? 0.0 : 1.0;
}

bool IsCommutative(const NodeProto& node) { return !IsOp(node, "Sub") && !IsOp(node, "Div"); }

// Why the constant operand `constant` of `node` does not leave the other operand `x`
// unchanged, or an empty reason when it does. A constant of shape (n,) is accepted only on
// the right. Dims are checked before any element is read: operands are often weights.
std::string_view NeutralOperandRejection(GraphGraph& graph, const NodeProto& node, const TensorProto& constant,
                                         std::string_view x, bool right) {
  if (constant.dims_size() > 1) return "the constant operand has a rank above 1";
  if (constant.dims_size() == 1 && constant.dims(0) == 0) return "the constant operand is empty";
  if (!core::builder::AllElementsEqual(constant, NeutralElement(node)))
    return "the constant operand is not the neutral element";
  if (constant.dims_size() == 0) return {};
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, x);
  if (!rank || *rank == 0) return "the other operand does not have a known rank of at least one";
  if (constant.dims(0) == 1) return {};
  if (!right) return "the constant left operand is not a scalar";
  if (graph.GetShape(x).shape[*rank - 1].Constant() != constant.dims(0))
    return "the last dimension of the other operand is not the constant's length";
  return {};
}

// The numeric constant `value`, or null.
const TensorProto* NumericConstantOf(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  return tensor && tensor->data_type() != TensorProto::STRING ? tensor : nullptr;
}

// The index of the operand a binary node reduces to, with why it does not when it does not.
std::optional<int> KeptOperand(GraphGraph& graph, const NodeProto& node, std::string_view* why) {
  if (const TensorProto* right = NumericConstantOf(graph, node.input(1))) {
    *why = NeutralOperandRejection(graph, node, *right, node.input(0), /*right=*/true);
    return why->empty() ? std::optional<int>(0) : std::nullopt;
  }
  if (!IsCommutative(node)) {
    *why = "the right operand is not constant";
    return std::nullopt;
  }
  const TensorProto* left = NumericConstantOf(graph, node.input(0));
  if (!left) {
    *why = "no operand is constant";
    return std::nullopt;
  }
  *why = NeutralOperandRejection(graph, node, *left, node.input(1), /*right=*/false);
  return why->empty() ? std::optional<int>(1) : std::nullopt;
}

bool IsBinary(const NodeProto& node) {
  return IsOp(node, "Add") || IsOp(node, "Sub") || IsOp(node, "Mul") || IsOp(node, "Div") || IsOp(node, "And") ||
         IsOp(node, "Or");
}

}  // namespace

MatchResult IdentityPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (node.output_size() < 1 || node.input_size() < 1) return NoMatch(node, "the node has no input or no output");
  if (IsBinary(node)) return MatchBinary(graph, node);
  if (IsOp(node, "Slice")) return MatchSlice(graph, node);
  if (IsOp(node, "Reshape") || IsOp(node, "Expand")) return MatchReshapeOrExpand(graph, node);
  if (IsOp(node, "Transpose")) return MatchTranspose(node);
  if (IsOp(node, "BatchNormalization")) return MatchBatchNormalization(graph, node);
  return NoMatch(node, "the node is not a default-domain operator this pattern handles");
}

MatchResult IdentityPattern::MatchBinary(GraphGraph& graph, const NodeProto& node) const {
  if (node.input_size() != 2) return NoMatch(node, "the binary node does not have two inputs");
  std::string_view why;
  if (!KeptOperand(graph, node, &why)) return NoMatch(node, why);
  return Matched({&node});
}

MatchResult IdentityPattern::MatchSlice(GraphGraph& graph, const NodeProto& slice) const {
  if (core::builder::OnnxOpset(graph) < 10) return NoMatch(slice, "the Slice bounds are attributes before opset 10");
  if (slice.input_size() < 3) return NoMatch(slice, "the Slice has no starts or ends input");
  const std::optional<std::vector<std::int64_t>> starts = ConstantInts(graph, slice.input(1));
  if (!starts || starts->empty() || !AllEqual(*starts, 0)) return NoMatch(slice, "the starts are not all zero");
  const std::optional<std::vector<std::int64_t>> ends = ConstantInts(graph, slice.input(2));
  if (!ends || ends->empty() || !AllEqual(*ends, std::numeric_limits<std::int64_t>::max()))
    return NoMatch(slice, "the ends are not all INT64_MAX");
  const std::string_view steps = OptionalInput(slice, 4);
  if (!steps.empty()) {
    const std::optional<std::vector<std::int64_t>> values = ConstantInts(graph, steps);
    if (!values || !AllEqual(*values, 1)) return NoMatch(slice, "the steps are not all one");
  }
  return Matched({&slice});
}

MatchResult IdentityPattern::MatchReshapeOrExpand(GraphGraph& graph, const NodeProto& node) const {
  const bool reshape = IsOp(node, "Reshape");
  if (node.input_size() != 2) return NoMatch(node, "the node does not have two inputs");
  if (reshape && core::builder::IntAttr(node, "allowzero").value_or(0) != 0)
    return NoMatch(node, "the Reshape has allowzero set");
  const std::optional<std::vector<std::int64_t>> shape = ConstantInts(graph, node.input(1));
  if (!shape || shape->empty()) return NoMatch(node, "the shape is not a non-empty constant");
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, node.input(0));
  if (!rank || *rank != shape->size()) return NoMatch(node, "the rank of the input is not the shape's length");
  if (reshape && !AllEqual(*shape, 0)) return NoMatch(node, "the Reshape shape is not all zeros");
  if (!reshape && !AllEqual(*shape, 1)) return NoMatch(node, "the Expand shape is not all ones");
  return Matched({&node});
}

MatchResult IdentityPattern::MatchTranspose(const NodeProto& transpose) const {
  const std::optional<std::vector<std::int64_t>> perm = core::builder::IntsAttr(transpose, "perm");
  if (!perm) return NoMatch(transpose, "the Transpose has no perm attribute");
  for (std::size_t i = 0; i < perm->size(); ++i)
    if ((*perm)[i] != static_cast<std::int64_t>(i)) return NoMatch(transpose, "the perm is not the identity");
  return Matched({&transpose});
}

MatchResult IdentityPattern::MatchBatchNormalization(GraphGraph& graph, const NodeProto& bn) const {
  if (bn.input_size() != 5) return NoMatch(bn, "the BatchNormalization does not have five inputs");
  for (int i = 1; i < bn.output_size(); ++i)
    if (!bn.output(i).empty() && graph.IsUsed(bn.output(i)))
      return NoMatch(bn, "a training output of the BatchNormalization is used");
  if (const std::string_view trains = core::ir::WhyBatchNormalizationTrains(bn, core::builder::OnnxOpset(graph));
      !trains.empty())
    return NoMatch(bn, trains);
  const int type = graph.GetType(bn.input(0));
  if (type != TensorProto::FLOAT16 && type != TensorProto::BFLOAT16)
    return NoMatch(bn, "the input is not float16 or bfloat16");
  const float epsilon = core::builder::FloatAttr(bn, "epsilon").value_or(1e-5f);
  if (epsilon > 1e-5f) return NoMatch(bn, "epsilon is above 1e-5");
  // sqrt(1 + epsilon) rounds to 1 in float16 only near 0: epsilon -1 divides by zero.
  if (!(epsilon >= -1e-5f)) return NoMatch(bn, "epsilon is below -1e-5");
  if (!IsConstantFilledWith(graph, bn.input(1), 1)) return NoMatch(bn, "the scale is not a constant of ones");
  if (!IsConstantFilledWith(graph, bn.input(2), 0)) return NoMatch(bn, "the bias is not a constant of zeros");
  if (!IsConstantFilledWith(graph, bn.input(3), 0)) return NoMatch(bn, "the mean is not a constant of zeros");
  if (!IsConstantFilledWith(graph, bn.input(4), 1)) return NoMatch(bn, "the variance is not a constant of ones");
  return Matched({&bn});
}

utils::RepeatedProtoField<NodeProto> IdentityPattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {""});
  const NodeProto& node = *nodes[0];
  int kept = 0;
  if (IsBinary(node)) {
    std::string_view why;
    const std::optional<int> operand = KeptOperand(graph, node, &why);
    if (!operand) throw BuilderError(std::string(kName) + "::Apply: " + std::string(why));
    kept = *operand;
  }
  utils::RepeatedProtoField<NodeProto> replacement;
  canonicalization::AddIdentity(replacement, graph, kName, node, node.input(kept));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
