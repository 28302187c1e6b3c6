#include "onnx_extensions/patterns/algebra/reduce_arg_top_k_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntAttribute;
using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::IsOp;
using core::builder::NormalizeAxis;
using core::builder::OnnxOpset;
using core::builder::RankOf;

namespace {

bool IsArgNode(const NodeProto& node) {
  return (IsOp(node, "ArgMax") || IsOp(node, "ArgMin")) && node.input_size() == 1 && node.output_size() == 1;
}

// The element types onnxruntime's TopK takes (float, double, int32, int64; float16 through
// its casts). TopK's specification allows every numeric type, and ArgMax and ReduceMax run
// there on int8 and uint8 too: on those the fused model would not load where the pair runs.
bool HasTopKKernel(int elem_type) {
  return elem_type == TensorProto::FLOAT || elem_type == TensorProto::FLOAT16 || elem_type == TensorProto::DOUBLE ||
         elem_type == TensorProto::INT32 || elem_type == TensorProto::INT64;
}

// ReduceMax for ArgMax, ReduceMin for ArgMin.
std::string_view ReductionOf(const NodeProto& arg) { return arg.op_type() == "ArgMax" ? "ReduceMax" : "ReduceMin"; }

// The default-domain reductions of the kind `arg` pairs with that read its input as data.
std::vector<const NodeProto*> Reductions(const GraphGraph& graph, const NodeProto& arg) {
  std::vector<const NodeProto*> reductions;
  for (const NodeProto* reader : graph.NextNodes(arg.input(0)))
    if (IsOp(*reader, ReductionOf(arg)) && reader->input(0) == arg.input(0) && reader->output_size() == 1)
      reductions.push_back(reader);
  return reductions;
}

}  // namespace

MatchResult ReduceArgTopKPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsArgNode(node)) return NoMatch(node, "the node is not a default-domain ArgMax or ArgMin with one input");
  if (OnnxOpset(graph) < 18) return NoMatch(node, "the opset is older than 18");
  if (!HasTopKKernel(graph.GetType(node.input(0))))
    return NoMatch(node, "the input is not float, float16, double, int32 or int64 (the types onnxruntime's TopK takes)");
  if (IntAttr(node, "select_last_index").value_or(0) != 0)
    return NoMatch(node, "the Arg node selects the last index on ties");
  const std::vector<const NodeProto*> reductions = Reductions(graph, node);
  if (reductions.empty()) return NoMatch(node, "the input is not read by the matching reduction");
  if (reductions.size() > 1) return NoMatch(node, "the input is read by several matching reductions");
  const NodeProto& reduction = *reductions.front();
  if (reduction.input_size() < 2 || reduction.input(1).empty())
    return NoMatch(node, "the reduction has no axes input");
  // Upstream rejects axes = [0] (it tests the truth value of the array).
  const auto axes = ConstantInts(graph, reduction.input(1));
  if (!axes) return NoMatch(node, "the axes of the reduction are not constant");
  if (axes->size() != 1) return NoMatch(node, "the reduction does not reduce exactly one axis");
  const std::int64_t axis = IntAttr(node, "axis").value_or(0);
  if (axis != axes->front()) {
    const std::optional<std::size_t> rank = RankOf(graph, node.input(0));
    if (!rank || !NormalizeAxis(axis, *rank) || NormalizeAxis(axis, *rank) != NormalizeAxis(axes->front(), *rank))
      return NoMatch(node, "the reduction and the Arg node do not use the same axis");
  }
  if (IntAttr(node, "keepdims").value_or(1) != IntAttr(reduction, "keepdims").value_or(1))
    return NoMatch(node, "the reduction and the Arg node have different keepdims");
  if (IntAttr(reduction, "noop_with_empty_axes").value_or(0) != 0)
    return NoMatch(node, "the reduction has noop_with_empty_axes=1");
  return Matched({&reduction, &node});
}

utils::RepeatedProtoField<NodeProto> ReduceArgTopKPattern::Apply(GraphGraph& graph,
                                                                 const std::vector<const NodeProto*>& nodes) const {
  const core::builder::ExpectedNode arg_node{"default-domain ArgMax or ArgMin", IsArgNode};
  const core::builder::ExpectedNode reduction{
      "default-domain ReduceMax or ReduceMin",
      [](const NodeProto& n) { return IsOp(n, "ReduceMax") || IsOp(n, "ReduceMin"); }};
  core::builder::ExpectMatchedNodes(*this, nodes, {reduction, arg_node});
  const NodeProto& reduce = *nodes[0];
  const NodeProto& arg = *nodes[1];
  const std::int64_t axis = IntAttr(arg, "axis").value_or(0);
  const bool keepdims = IntAttr(arg, "keepdims").value_or(1) != 0;
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& top_k = algebra::AddNode(replacement, graph, kName, arg, "TopK",
                                      {arg.input(0), graph.MakeInitializer(kName, IntTensor({1}))});
  AddIntAttribute(top_k, "axis", axis);
  AddIntAttribute(top_k, "largest", arg.op_type() == "ArgMax" ? 1 : 0);
  top_k.add_output(graph.Builder().UniqueName(kName));
  if (keepdims) {
    top_k.set_output(0, reduce.output(0));
    top_k.set_output(1, arg.output(0));
    return replacement;
  }
  // TopK keeps the reduced axis (of size k = 1): squeezing it gives keepdims=0's shapes.
  const std::string squeezed_axis = graph.MakeInitializer(kName, IntTensor({axis}));
  const std::string values = top_k.output(0), indices = top_k.output(1);
  algebra::AddNode(replacement, graph, kName, reduce, "Squeeze", {values, squeezed_axis})
      .set_output(0, reduce.output(0));
  algebra::AddNode(replacement, graph, kName, arg, "Squeeze", {indices, squeezed_axis}).set_output(0, arg.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
