#include "onnx_extensions/patterns/expand/expand_swap_pattern.h"

#include <algorithm>
#include <iterator>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsOp;

namespace {

constexpr std::string_view kFusedDomain = "yaourt.ortops.fused_kernel.cuda";

// Single-output ops computing each output element from the element of the first input at
// the same index (and, for Pow, BitShift and Clip, from operands that broadcast
// multidirectionally or are scalars).
bool IsPointwise(const NodeProto& node) {
  static constexpr std::string_view kOps[] = {
      "Abs",      "Acos",   "Acosh",      "Asin",      "Asinh",   "Atan",  "Atanh",    "BitShift",        "BitwiseNot",
      "Cast",     "Ceil",   "Celu",       "Clip",      "Cos",     "Cosh",  "Elu",      "Erf",             "Exp",
      "Floor",    "Gelu",   "HardSigmoid", "HardSwish", "IsInf",  "IsNaN", "LeakyRelu", "Log",            "Mish",
      "Neg",      "Not",    "Pow",        "Reciprocal", "Relu",   "Round", "Selu",     "Shrink",          "Sigmoid",
      "Sign",     "Sin",    "Sinh",       "Softplus",  "Softsign", "Sqrt", "Tan",      "Tanh",            "ThresholdedRelu"};
  if (node.output_size() != 1) return false;
  if (node.domain() == kFusedDomain) return node.op_type() == "NegXplus1" || node.op_type() == "ReplaceZero";
  return core::builder::IsOnnxDomain(node.domain()) &&
         std::find(std::begin(kOps), std::end(kOps), node.op_type()) != std::end(kOps);
}

}  // namespace

MatchResult ExpandSwapPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Expand") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Expand with two inputs");
  if (!graph.HasShape(node.input(0))) return NoMatch(node, "the shape of the input is unknown");
  if (!HasOneUse(graph, node.output(0))) return NoMatch(node, "the output of the Expand is not read by one node alone");
  const NodeProto& op = *graph.NextNodes(node.output(0)).front();
  if (!IsPointwise(op)) return NoMatch(node, "the reader is not a pointwise single-output op");
  if (op.input_size() == 0 || op.input(0) != node.output(0))
    return NoMatch(node, "the Expand is not the first input of the reader");
  for (int i = 1; i < op.input_size(); ++i)
    if (op.input(i) == node.output(0)) return NoMatch(node, "the Expand is also another input of the reader");
  // The other inputs of the reader may be defined after the Expand.
  return Matched({&node, &op}, &op);
}

utils::RepeatedProtoField<NodeProto> ExpandSwapPattern::Apply(GraphGraph& graph,
                                                              const std::vector<const NodeProto*>& nodes) const {
  // The reader may be a custom-domain op: only the Expand's type can be checked generically.
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {{"Expand", [](const NodeProto& n) { return IsOp(n, "Expand"); }},
                                     {"pointwise node", IsPointwise}});
  const NodeProto& expand = *nodes[0];
  const NodeProto& op = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& swapped = *replacement.Add() = op;
  const std::string t = graph.Builder().UniqueName(kName);
  swapped.set_name(DerivedNodeName(graph, kName, op));
  swapped.set_input(0, expand.input(0));
  swapped.set_output(0, t);
  NodeProto& node = *replacement.Add() = expand;
  node.set_name(DerivedNodeName(graph, kName, expand));
  node.set_input(0, t);
  node.set_output(0, op.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
