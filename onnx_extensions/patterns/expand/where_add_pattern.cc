#include "onnx_extensions/patterns/expand/where_add_pattern.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantScalar;
using core::builder::DerivedNodeName;
using core::builder::IsOp;
using core::builder::RankOf;
using core::builder::SoleConsumer;

namespace {

// The operand of `add` that is not the Where's output.
const std::string& OtherOperand(const NodeProto& add, const NodeProto& where) {
  return add.input(0) == where.output(0) ? add.input(1) : add.input(0);
}

}  // namespace

MatchResult WhereAddPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Where") || node.input_size() != 3)
    return NoMatch(node, "the node is not a default-domain Where with three inputs");
  const std::optional<double> zero = ConstantScalar(graph, node.input(1));
  if (!zero || *zero != 0.0) return NoMatch(node, "the first branch is not the constant scalar 0");
  const std::optional<double> k = ConstantScalar(graph, node.input(2));
  if (!k) return NoMatch(node, "the second branch is not a constant scalar");
  if (!std::isinf(*k)) return NoMatch(node, "the second branch is not infinite");
  const NodeProto* add = SoleConsumer(graph, node.output(0), "Add");
  if (!add) return NoMatch(node, "the output of the Where is not read by an Add alone");
  if (add->input_size() != 2) return NoMatch(node, "the Add does not have two inputs");
  // The zero holds one element, so its dims are 1 and change the broadcast shape only by
  // its rank: Where(cond, other, k) has the Add's shape when an operand it keeps has at
  // least the zero's rank (a (1,)-shaped zero with scalars elsewhere made the result a scalar).
  const std::string& other = OtherOperand(*add, node);
  const std::optional<std::size_t> zero_rank = RankOf(graph, node.input(1));
  const bool zero_adds_no_axis =
      zero_rank == 0u || (zero_rank && std::ranges::any_of(std::array{node.input(0), other, node.input(2)},
                                                           [&](const std::string& kept) {
                                                             const auto rank = RankOf(graph, kept);
                                                             return rank && *rank >= *zero_rank;
                                                           }));
  if (!zero_adds_no_axis) return NoMatch(node, "the zero may give the result axes no other operand gives");
  // The other operand may be defined between the Where and the Add.
  return Matched({&node, add}, add);
}

utils::RepeatedProtoField<NodeProto> WhereAddPattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Where", "Add"});
  const NodeProto& where = *nodes[0];
  const NodeProto& add = *nodes[1];
  const std::string& other = OtherOperand(add, where);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = where;
  node.set_name(DerivedNodeName(graph, kName, add));
  node.set_input(1, other);
  node.set_output(0, add.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
