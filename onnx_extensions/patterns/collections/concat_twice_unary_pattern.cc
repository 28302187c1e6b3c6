#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"

#include <set>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantScalarInt;
using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IsConstantScalarShaped;

// Default-domain ops computing each output element from the same element of their first
// input only (other inputs, if any, are scalars or a type template). The upstream list
// also has Softmax, LogSoftmax, CumSum, LpNormalization, LRN, MeanVarianceNormalization,
// Trilu, PRelu, BitShift and the quantization ops, which are not pointwise along an axis.
bool IsPointwiseUnary(const NodeProto& node) {
  static const std::set<std::string, std::less<>> kOps = {
      "Abs",     "Acos",     "Acosh",    "Asin",        "Asinh",     "Atan",      "Atanh",      "BitwiseNot",
      "Cast",    "CastLike", "Ceil",     "Celu",        "Clip",      "Cos",       "Cosh",       "Elu",
      "Erf",     "Exp",      "Floor",    "HardSigmoid", "HardSwish", "IsInf",     "IsNaN",      "LeakyRelu",
      "Log",     "Mish",     "Neg",      "Not",         "Reciprocal", "Relu",     "Round",      "Selu",
      "Shrink",  "Sigmoid",  "Sign",     "Sin",         "Sinh",      "Softplus",  "Softsign",   "Sqrt",
      "Tan",     "Tanh",     "ThresholdedRelu"};
  return core::builder::IsOnnxDomain(node.domain()) && kOps.contains(node.op_type());
}

bool IsScalarArithmetic(GraphGraph& graph, const NodeProto& node) {
  static const std::set<std::string, std::less<>> kOps = {"Add", "Sub", "Mul", "Div"};
  return core::builder::IsOnnxDomain(node.domain()) && kOps.contains(node.op_type()) && node.input_size() == 2 &&
         IsConstantScalarShaped(graph, node.input(1));
}

// Unsqueeze(C, c) with C = Concat<axis=-1>: the new axis is never the last one, so the
// concatenated axis stays last.
bool IsUnsqueezeBeforeLastAxis(GraphGraph& graph, const NodeProto& node, const NodeProto& concat) {
  if (!core::builder::IsOp(node, "Unsqueeze") || node.input_size() != 2) return false;
  if (IntAttr(concat, "axis") != std::int64_t{-1}) return false;
  const std::optional<std::int64_t> c = ConstantScalarInt(graph, node.input(1));
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, concat.output(0));
  return c && rank && *c != -1 && *c < static_cast<std::int64_t>(*rank);
}

// The first reader of C (graph order) the rewrite applies to: C must be its first input
// and only there.
const NodeProto* FirstPointwiseConsumer(GraphGraph& graph, const NodeProto& concat) {
  const std::string& c = concat.output(0);
  for (const NodeProto* user : graph.NextNodes(c)) {
    if (user->input(0) != c || user->output_size() != 1) continue;
    bool elsewhere = false;
    for (int k = 1; k < user->input_size(); ++k) elsewhere |= user->input(k) == c;
    if (elsewhere) continue;
    if (IsPointwiseUnary(*user) || IsScalarArithmetic(graph, *user) || IsUnsqueezeBeforeLastAxis(graph, *user, concat))
      return user;
  }
  return nullptr;
}

}  // namespace

MatchResult ConcatTwiceUnaryPattern::Match(GraphGraph& graph, const NodeProto& concat) const {
  if (!core::builder::IsOp(concat, "Concat")) return NoMatch(concat, "the node is not a default-domain Concat");
  if (concat.input_size() != 2) return NoMatch(concat, "the Concat does not have two inputs");
  if (concat.input(0) != concat.input(1)) return NoMatch(concat, "the two Concat inputs differ");
  if (core::builder::OnnxOpset(graph) < 18) return NoMatch(concat, "the opset is below 18");
  const NodeProto* user = FirstPointwiseConsumer(graph, concat);
  if (!user) return NoMatch(concat, "no consumer of the Concat is pointwise along the axis");
  // The Concat stays where it is for its other readers; the replacement goes at the
  // consumer, after its other inputs.
  return Matched({core::builder::HasOneUse(graph, concat.output(0)) ? &concat : nullptr, user}, user);
}

utils::RepeatedProtoField<NodeProto> ConcatTwiceUnaryPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"", ""});
  const NodeProto& user = *nodes.at(1);
  const NodeProto& concat = *graph.NodeBefore(user.input(0));

  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& half = *replacement.Add();
  half = user;
  half.set_name(DerivedNodeName(graph, kName, user));
  half.set_input(0, concat.input(0));
  half.set_output(0, graph.Builder().UniqueName(kName));
  NodeProto& node = *replacement.Add();
  node.set_op_type("Concat");
  node.set_name(DerivedNodeName(graph, kName, concat));
  *node.mutable_attribute() = concat.attribute();
  node.add_input(half.output(0));
  node.add_input(half.output(0));
  node.add_output(user.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
