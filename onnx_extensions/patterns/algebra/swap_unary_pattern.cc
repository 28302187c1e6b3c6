#include "onnx_extensions/patterns/algebra/swap_unary_pattern.h"

#include <algorithm>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ComposePermutations;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsIdentityPermutation;
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

namespace {

bool IsLayoutNode(const NodeProto& node) {
  return ((IsOp(node, "Transpose") && node.input_size() == 1) || (IsOp(node, "Reshape") && node.input_size() == 2)) &&
         node.output_size() == 1;
}

// Why `reader`, which reads `value` (the output of `layout`, or of an element-wise node
// moved before it already), may not run before `layout`; empty when it may.
std::string_view WhyNotSwappable(GraphGraph& graph, const NodeProto& layout, const std::string& value,
                                 const NodeProto& reader) {
  if (reader.output_size() != 1 || reader.input_size() == 0 || reader.input(0) != value)
    return "the reader does not read the output as its first input, for one output";
  const Extras extras = ExtrasOf(reader);
  if (extras == Extras::kNotElementwise) return "the reader is not an element-wise operator";
  // Before opset 7, Add, Sub, Mul and Div broadcast only with broadcast=1: a (1,) operand
  // may need none against the layout node's (1,) output, and would against X (a Reshape
  // of a (1, 1) X to (1,)).
  if (extras == Extras::kUnitShape && !core::builder::BroadcastsMultidirectionally(graph))
    return "the opset is older than 7";
  bool unit_extra = false;
  for (int i = 1; i < reader.input_size(); ++i) {
    if (reader.input(i).empty() || extras == Extras::kTypeOnly) continue;
    const SymShape* shape = KnownShape(graph, reader.input(i));
    if (extras == Extras::kUnitShape && !IsUnitShape(shape))
      return "the second input of the reader does not have the shape (1,)";
    if (extras == Extras::kScalars && !(shape && shape->Rank() == 0) && !IsUnitShape(shape))
      return "an extra input of the reader is not a scalar";
    unit_extra = unit_extra || IsUnitShape(shape);
  }
  if (reader.op_type() == "Cast" || reader.op_type() == "CastLike") {
    // Before the layout node, a widening Cast makes it move wider elements. Moving one also
    // changed onnxruntime's results on the float16 corpus models (a Cast to float right
    // after a float16 MatMul: its CPU float16 handling seems to skip the rounding between).
    const std::size_t from = core::eval::StorageBytes(graph.GetType(value));
    const std::size_t to = core::eval::StorageBytes(graph.GetType(reader.output(0)));
    if (from == 0 || to == 0 || to > from) return "the Cast may widen the elements";
  }
  // A (1,) operand broadcast with a rank-0 Reshape output gives (1,); applied to X first
  // it would give X's shape, and the Reshape a scalar.
  if (unit_extra && IsOp(layout, "Reshape") && RankOf(graph, layout.output(0)).value_or(0) == 0)
    return "the Reshape may give a scalar, which a (1,) operand of the reader enlarges";
  return {};
}

// A Transpose's permutation of `rank` axes (its default, the axes reversed, when it has no
// perm attribute); nullopt when perm is not such a permutation.
std::optional<std::vector<std::int64_t>> PermOf(const NodeProto& transpose, std::size_t rank) {
  std::optional<std::vector<std::int64_t>> perm = core::builder::IntsAttr(transpose, "perm");
  if (!perm) {
    perm.emplace(rank);
    for (std::size_t i = 0; i < rank; ++i) (*perm)[i] = static_cast<std::int64_t>(rank - 1 - i);
  }
  if (perm->size() != rank || !core::builder::IsPermutation(*perm)) return std::nullopt;
  return perm;
}

// Whether `next`, reading `value` (what `layout` gives, with element-wise nodes moved
// before it), folds into `layout` once the element-wise nodes run first: a Transpose after
// a Transpose (the permutations compose), or a plain Reshape to a constant shape without a
// 0 after a Reshape (the elements keep their row-major order: only the last shape counts).
bool MergesInto(GraphGraph& graph, const NodeProto& layout, const std::string& value, const NodeProto& next,
                std::size_t rank) {
  if (!IsLayoutNode(next) || next.op_type() != layout.op_type() || next.input(0) != value) return false;
  if (IsOp(next, "Transpose")) return PermOf(layout, rank) && PermOf(next, rank);
  if (!core::builder::IsPlainReshape(next) || next.input(1) == value) return false;
  const std::optional<std::vector<std::int64_t>> shape = core::builder::ConstantInts(graph, next.input(1));
  return shape && std::find(shape->begin(), shape->end(), 0) == shape->end();
}

}  // namespace

MatchResult SwapUnaryPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsLayoutNode(node)) return NoMatch(node, "the node is not a default-domain Transpose or Reshape");
  const std::optional<std::size_t> rank = RankOf(graph, node.input(0));
  if (!rank) return NoMatch(node, "the rank of the input is not known");
  if (*rank == 0) return NoMatch(node, "the input is a scalar");
  if (!HasOneUse(graph, node.output(0))) return NoMatch(node, "the output has other readers");
  const NodeProto& reader = *graph.NextNodes(node.output(0)).front();
  if (const std::string_view why = WhyNotSwappable(graph, node, node.output(0), reader); !why.empty())
    return NoMatch(node, why);
  // The chain below: further element-wise nodes, and the next layout node of the same kind
  // when it merges into this one, with the element-wise nodes after it; each node the only
  // reader of the previous one's output. Swapping one pair per match, a chain Reshape, Relu,
  // Reshape, Relu... only rotated (every Reshape moved below its Relu at once, meeting the
  // next Relu): n iterations of n swaps. One merge per match: the matches from the layout
  // nodes of a chain each walk two runs of element-wise nodes (a walk to the end of the
  // chain from each was n^2), every other match is claimed, and each iteration halves the
  // layout nodes of the chain.
  std::vector<const NodeProto*> chain = {&node, &reader};
  const NodeProto* layout = &node;
  while (HasOneUse(graph, chain.back()->output(0))) {
    const std::string& value = chain.back()->output(0);
    const NodeProto& next = *graph.NextNodes(value).front();
    if (layout == &node && MergesInto(graph, *layout, value, next, *rank))
      layout = &next;
    else if (!WhyNotSwappable(graph, *layout, value, next).empty())
      break;
    chain.push_back(&next);
  }
  // The extra inputs may be computed after the Transpose or Reshape (and the merged
  // shapes after the first one): the replacement goes at the last node.
  return Matched(chain, chain.back());
}

utils::RepeatedProtoField<NodeProto> SwapUnaryPattern::Apply(GraphGraph& graph,
                                                             const std::vector<const NodeProto*>& nodes) const {
  if (nodes.size() < 2 || std::count(nodes.begin(), nodes.end(), nullptr) != 0 || !IsLayoutNode(*nodes[0]))
    throw BuilderError(std::string(kName) + "::Apply expects a Transpose or Reshape and the chain below it");
  const NodeProto& first = *nodes[0];
  const std::optional<std::size_t> rank = RankOf(graph, first.input(0));
  std::optional<std::vector<std::int64_t>> perm =
      IsOp(first, "Transpose") && rank ? PermOf(first, *rank) : std::nullopt;
  const NodeProto* layout = &first;
  utils::RepeatedProtoField<NodeProto> replacement;
  std::string current = first.input(0);
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    const NodeProto& node = *nodes[i];
    if (IsLayoutNode(node)) {
      if (node.op_type() != first.op_type())
        throw BuilderError(std::string(kName) + "::Apply expects layout nodes of one kind");
      if (perm) perm = ComposePermutations(*perm, *PermOf(node, *rank));
      layout = &node;
      continue;
    }
    if (ExtrasOf(node) == Extras::kNotElementwise)
      throw BuilderError(std::string(kName) + "::Apply expects element-wise nodes between the layout nodes");
    NodeProto& moved = *replacement.Add() = node;
    moved.set_name(DerivedNodeName(graph, kName, node));
    moved.set_input(0, current);
    moved.set_output(0, graph.Builder().UniqueName(kName));
    current = moved.output(0);
  }
  const std::string& output = nodes.back()->output(0);
  if (perm && IsIdentityPermutation(*perm)) {
    *replacement.Add() = core::builder::IdentityNode(graph, kName, *layout, current, output);
    return replacement;
  }
  NodeProto& after = *replacement.Add() = *layout;
  after.set_name(DerivedNodeName(graph, kName, *layout));
  after.set_input(0, current);
  after.set_output(0, output);
  if (perm && layout != &first) {
    after.clear_attribute();
    core::builder::AddIntsAttribute(after, "perm", *perm);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
