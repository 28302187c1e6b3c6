#include "onnx_extensions/patterns/attention/rotary_concat_part_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::NormalizeAxis;
using core::builder::ProducerOf;
using core::shapes::SymShape;

// `value` is a ConstantOfShape filled with 0: the default fill, or a one-element tensor 0.
bool IsZeroBlock(const GraphGraph& graph, std::string_view value) {
  const NodeProto* node = ProducerOf(graph, value, "ConstantOfShape");
  if (!node) return false;
  for (const AttributeProto& attr : node->attribute()) {
    if (attr.name() != "value") continue;
    std::int64_t count = 1;
    for (const std::int64_t dim : attr.t().dims()) count *= dim;
    return attr.type() == AttributeProto::TENSOR && count == 1 && core::builder::AllElementsEqual(attr.t(), 0.0);
  }
  return true;
}

// The index (0 or 1) of the only zero block among the two Concat inputs; -1 otherwise.
int ZeroIndex(const GraphGraph& graph, const NodeProto& concat) {
  const bool first = IsZeroBlock(graph, concat.input(0)), second = IsZeroBlock(graph, concat.input(1));
  if (first == second) return -1;
  return first ? 0 : 1;
}

// Why P and Q are not two parts of one tensor along `axis` (normalized for `rank`): the two
// outputs of one Split, or two Slices of the same data with single constant starts, ends
// and axes and no steps; empty when they are.
std::string_view WhyNotParts(GraphGraph& graph, std::string_view p, std::string_view q, std::int64_t axis,
                             std::size_t rank) {
  const NodeProto* split_p = ProducerOf(graph, p, "Split");
  const NodeProto* split_q = ProducerOf(graph, q, "Split");
  if (split_p || split_q) {
    if (split_p != split_q) return "the parts do not come from one Split";
    if (split_p->output_size() != 2 || p == q) return "the parts are not the two outputs of the Split";
    if (NormalizeAxis(IntAttr(*split_p, "axis").value_or(0), rank) != axis) return "the Split is not on the Concat axis";
    return {};
  }
  const NodeProto* slice_p = ProducerOf(graph, p, "Slice");
  const NodeProto* slice_q = ProducerOf(graph, q, "Slice");
  if (!slice_p || !slice_q || slice_p == slice_q) return "the parts are not produced by one Split or by two Slices";
  if (slice_p->input_size() != 4 || slice_q->input_size() != 4)
    return "a Slice does not have exactly the inputs data, starts, ends and axes";
  if (slice_p->input(0) != slice_q->input(0)) return "the Slices read different tensors";
  for (const NodeProto* slice : {slice_p, slice_q})
    for (int i = 1; i < 4; ++i) {
      const auto ints = ConstantInts(graph, slice->input(i));
      if (!ints || ints->size() != 1) return "a Slice starts, ends or axes is not a constant of one element";
    }
  const std::int64_t axis_p = ConstantInts(graph, slice_p->input(3))->front();
  const std::int64_t axis_q = ConstantInts(graph, slice_q->input(3))->front();
  if (NormalizeAxis(axis_p, rank) != axis || NormalizeAxis(axis_q, rank) != axis)
    return "a Slice is not on the Concat axis";
  return {};
}

}  // namespace

MatchResult RotaryConcatPartPattern::Match(GraphGraph& graph, const NodeProto& add) const {
  if (!IsOp(add, "Add") || add.input_size() != 2) return NoMatch(add, "the node is not a default-domain Add with two inputs");
  if (!HasOneUse(graph, add.input(0)) || !HasOneUse(graph, add.input(1)))
    return NoMatch(add, "an Add input has another use");
  const NodeProto* c0 = ProducerOf(graph, add.input(0), "Concat");
  const NodeProto* c1 = ProducerOf(graph, add.input(1), "Concat");
  if (!c0 || !c1) return NoMatch(add, "an Add input is not produced by a Concat");
  if (c0->input_size() != 2 || c1->input_size() != 2) return NoMatch(add, "a Concat does not have exactly two inputs");
  const std::optional<std::int64_t> axis = IntAttr(*c0, "axis");
  if (!axis || axis != IntAttr(*c1, "axis")) return NoMatch(add, "the Concat axes differ");
  const int z0 = ZeroIndex(graph, *c0), z1 = ZeroIndex(graph, *c1);
  if (z0 < 0 || z1 < 0) return NoMatch(add, "a Concat does not have exactly one zero ConstantOfShape input");
  if (z0 == z1) return NoMatch(add, "the zero blocks are not at opposite positions");
  const NodeProto& left = z0 == 1 ? *c0 : *c1;  // Concat(A, zero)
  const NodeProto& right = z0 == 1 ? *c1 : *c0;  // Concat(zero, B)
  for (const NodeProto* concat : {&left, &right})
    for (const std::string& input : concat->input())
      if (!KnownShape(graph, input) || !graph.NodeBefore(input))
        return NoMatch(add, "a Concat input has an unknown shape or is not produced by a node");
  const SymShape* shape = KnownShape(graph, left.output(0));
  const SymShape* right_shape = KnownShape(graph, right.output(0));
  if (!shape || !right_shape || !(*shape == *right_shape))
    return NoMatch(add, "the two Concat results do not have one known shape");
  const std::optional<std::int64_t> k = NormalizeAxis(*axis, shape->Rank());
  if (!k) return NoMatch(add, "the Concat axis is out of range");
  const auto size = [&](std::string_view value) { return (*KnownShape(graph, value))[static_cast<std::size_t>(*k)]; };
  if (size(left.input(0)) != size(right.input(0)) || size(right.input(1)) != size(left.input(1)))
    return NoMatch(add, "the zero blocks do not match the sizes of the parts along the axis");
  const NodeProto* neg_a = ProducerOf(graph, left.input(0), "Neg");
  const NodeProto* neg_b = ProducerOf(graph, right.input(1), "Neg");
  if (!neg_a == !neg_b) return NoMatch(add, "not exactly one of the two parts is a Neg");
  const std::string_view p = (neg_a ? neg_a : neg_b)->input(0);
  const std::string_view q = neg_a ? right.input(1) : left.input(0);
  if (const std::string_view why = WhyNotParts(graph, p, q, *k, shape->Rank()); !why.empty()) return NoMatch(add, why);
  return Matched({&add, &left, &right});
}

utils::RepeatedProtoField<NodeProto> RotaryConcatPartPattern::Apply(GraphGraph& graph,
                                                                    const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Add", "Concat", "Concat"});
  const NodeProto& add = *nodes[0];
  const NodeProto& left = *nodes[1];
  const NodeProto& right = *nodes[2];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& concat = *replacement.Add();
  concat.set_op_type("Concat");
  concat.set_name(DerivedNodeName(graph, kName, add));
  concat.add_input(left.input(0));
  concat.add_input(right.input(1));
  concat.add_output(add.output(0));
  core::builder::AddIntAttribute(concat, "axis", *IntAttr(left, "axis"));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
