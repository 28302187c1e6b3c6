#include "onnx_extensions/patterns/layout/transpose_reshape_transpose_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntsAttr;
using core::builder::IsOp;

namespace {

// Dims of the Reshape input (a) and of its target (b) that hold the same elements.
struct Group {
  layout::Ints a, b;
};

// Aligns the static shape `a` with the target `b` (all positive): equal dims pair up;
// otherwise the side with the smaller product grows until the products meet. Nullopt when
// a group has several dims on both sides, a shape is left over or a product overflows.
std::optional<std::vector<Group>> Align(const layout::Ints& a, const layout::Ints& b) {
  std::vector<Group> groups;
  std::size_t i = 0, j = 0;
  // Adds dim k of `dims` to `side`, multiplying it into `product`.
  const auto grow = [](const layout::Ints& dims, std::size_t& k, layout::Ints& side, std::int64_t& product) {
    side.push_back(static_cast<std::int64_t>(k));
    return !__builtin_mul_overflow(product, dims[k++], &product);
  };
  while (i < a.size() && j < b.size()) {
    Group group;
    std::int64_t pa = 1, pb = 1;
    if (!grow(a, i, group.a, pa) || !grow(b, j, group.b, pb)) return std::nullopt;
    while (pa != pb) {
      const bool grow_a = pa < pb;
      if (grow_a ? i == a.size() : j == b.size()) return std::nullopt;
      if (!(grow_a ? grow(a, i, group.a, pa) : grow(b, j, group.b, pb))) return std::nullopt;
    }
    if (group.a.size() > 1 && group.b.size() > 1) return std::nullopt;
    groups.push_back(std::move(group));
  }
  if (i != a.size() || j != b.size()) return std::nullopt;
  return groups;
}

// The rewrite: which side the Reshape moves to, the new perm and the new shape.
struct Plan {
  bool reshape_after;  // the Reshape only merges dims and moves after the second Transpose
  layout::Ints perm;
  layout::Ints shape;
};

// The groups of a Reshape that only merges (one dim of b per group) or only splits (one
// dim of a per group), and the Plan; nullopt with the reason in `why`.
std::optional<Plan> MakePlan(GraphGraph& graph, const NodeProto& first, const NodeProto& reshape,
                             const NodeProto& second, std::string_view* why) {
  const layout::Ints p1 = *IntsAttr(first, "perm"), p2 = *IntsAttr(second, "perm");
  const std::optional<layout::Ints> target = core::builder::ConstantInts(graph, reshape.input(1));
  if (!target) return layout::Reject(why, "the shape of the Reshape is not constant");
  if (std::any_of(target->begin(), target->end(), [](std::int64_t d) { return d <= 0; }))
    return layout::Reject(why, "the shape of the Reshape has an entry that is not positive");
  const std::optional<layout::Ints> dims = core::builder::StaticDims(graph, first.output(0));
  if (!dims) return layout::Reject(why, "the shape of the first Transpose output is not static");
  if (dims->size() != p1.size() || target->size() != p2.size())
    return layout::Reject(why, "the perms do not match the ranks around the Reshape");
  const std::optional<std::vector<Group>> groups = Align(*dims, *target);
  if (!groups) return layout::Reject(why, "the Reshape does not only merge or only split dimensions");
  Plan plan{p2.size() <= p1.size(), {}, {}};
  if (plan.reshape_after) {
    if (groups->size() != p2.size()) return layout::Reject(why, "the Reshape does not only merge dimensions");
    for (std::int64_t k : p2) {
      const Group& group = (*groups)[static_cast<std::size_t>(k)];
      plan.perm.insert(plan.perm.end(), group.a.begin(), group.a.end());
      plan.shape.push_back((*target)[static_cast<std::size_t>(k)]);
    }
    return plan;
  }
  if (groups->size() != p1.size()) return layout::Reject(why, "the Reshape does not only split dimensions");
  // Dim k of X is dim inverse(p1)[k] of T, which the Reshape splits into group.b.
  layout::Ints order;
  for (std::int64_t t : layout::InversePermutation(p1)) {
    const Group& group = (*groups)[static_cast<std::size_t>(t)];
    order.insert(order.end(), group.b.begin(), group.b.end());
  }
  for (std::int64_t m : order) plan.shape.push_back((*target)[static_cast<std::size_t>(m)]);
  plan.perm = layout::InversePermutation(order);
  return plan;
}

}  // namespace

MatchResult TransposeReshapeTransposePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Transpose") || node.input_size() != 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Transpose with one input and one output");
  const std::vector<const NodeProto*>& readers = graph.NextNodes(node.output(0));
  if (readers.size() != 1) return NoMatch(node, "the output of the first Transpose does not have exactly one reader");
  const NodeProto& reshape = *readers.front();
  if (!IsOp(reshape, "Reshape") || reshape.input_size() != 2 || reshape.input(0) != node.output(0))
    return NoMatch(node, "the first Transpose is not read by a Reshape");
  const std::vector<const NodeProto*>& next = graph.NextNodes(reshape.output(0));
  if (next.size() != 1 || !IsOp(*next.front(), "Transpose"))
    return NoMatch(node, "the output of the Reshape is not read by a Transpose alone");
  const NodeProto& second = *next.front();
  std::string_view why;
  if (!layout::TransposePerm(graph, node, &why) || !layout::TransposePerm(graph, second, &why))
    return NoMatch(node, why);
  const std::optional<Plan> plan = MakePlan(graph, node, reshape, second, &why);
  if (!plan) return NoMatch(node, why);
  // The value the rewrite removes: R when the Reshape moves after, T when it moves before.
  if (plan->reshape_after && !core::builder::HasOneUse(graph, reshape.output(0)))
    return NoMatch(node, "the output of the Reshape has other readers");
  if (!plan->reshape_after && !core::builder::HasOneUse(graph, node.output(0)))
    return NoMatch(node, "the output of the first Transpose has other readers");
  return Matched({&node, &reshape, &second});
}

utils::RepeatedProtoField<NodeProto> TransposeReshapeTransposePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Transpose", "Reshape", "Transpose"});
  const NodeProto& first = *nodes[0];
  const NodeProto& reshape = *nodes[1];
  const NodeProto& second = *nodes[2];
  std::string_view why;
  const Plan plan = *MakePlan(graph, first, reshape, second, &why);
  const std::string shape = graph.MakeInitializer(kName, core::builder::IntTensor(plan.shape));
  const std::string moved = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  if (plan.reshape_after) {
    *replacement.Add() = first;
    NodeProto& transpose = layout::AddNode(replacement, graph, kName, second, "Transpose", {first.output(0)}, moved);
    core::builder::AddIntsAttribute(transpose, "perm", plan.perm);
    layout::AddNode(replacement, graph, kName, reshape, "Reshape", {moved, shape}, second.output(0));
  } else {
    layout::AddNode(replacement, graph, kName, reshape, "Reshape", {first.input(0), shape}, moved);
    NodeProto& transpose = layout::AddNode(replacement, graph, kName, first, "Transpose", {moved}, reshape.output(0));
    core::builder::AddIntsAttribute(transpose, "perm", plan.perm);
    *replacement.Add() = second;
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
