#include "onnx_extensions/patterns/algebra/swap_range_add_scalar_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

namespace onnxopt::onnx_patterns {

using algebra::AddNode;
using core::builder::ConstantScalarInt;
using core::builder::DerivedNodeName;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::SoleConsumer;
using core::shapes::SymDim;

namespace {

// The element types of Range on which the rewrite is exact.
bool IsRangeIntegerType(int elem_type) {
  return elem_type == TensorProto::INT16 || elem_type == TensorProto::INT32 || elem_type == TensorProto::INT64;
}

}  // namespace

MatchResult SwapRangeAddScalarPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Range") || node.input_size() != 3 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Range with three inputs");
  const NodeProto* add = SoleConsumer(graph, node.output(0), "Add");
  if (!add) return NoMatch(node, "the output of the Range is not read by an Add alone");
  if (add->input_size() != 2 || add->input(0) != node.output(0))
    return NoMatch(node, "the Range is not the first input of the Add");
  if (!IsRangeIntegerType(graph.GetType(node.output(0))))
    return NoMatch(node, "the Range is not on int16, int32 or int64");
  const core::shapes::SymShape* offset = KnownShape(graph, add->input(1));
  if (!offset || offset->Rank() != 1 || (*offset)[0] != SymDim(1))
    return NoMatch(node, "the second input of the Add does not have the shape (1,)");
  // The offset may be computed between the Range and the Add.
  return Matched({&node, add}, add);
}

utils::RepeatedProtoField<NodeProto> SwapRangeAddScalarPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Range", "Add"});
  const NodeProto& range = *nodes[0];
  const NodeProto& add = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  // Squeeze without axes removes every dim of size 1: the (1,) offset becomes a scalar.
  const std::string offset = AddNode(replacement, graph, kName, add, "Squeeze", {add.input(1)}).output(0);
  const std::string end = AddNode(replacement, graph, kName, add, "Add", {range.input(1), offset}).output(0);
  const std::string start = ConstantScalarInt(graph, range.input(0)) == 0
                                ? offset
                                : AddNode(replacement, graph, kName, add, "Add", {range.input(0), offset}).output(0);
  NodeProto& moved = *replacement.Add() = range;
  moved.set_name(DerivedNodeName(graph, kName, range));
  moved.set_input(0, start);
  moved.set_input(1, end);
  moved.set_output(0, add.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
