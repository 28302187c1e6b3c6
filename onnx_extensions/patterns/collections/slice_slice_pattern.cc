#include "onnx_extensions/patterns/collections/slice_slice_pattern.h"

#include <set>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::NormalizeAxis;
using core::builder::ProducerOf;

bool HasInput(const NodeProto& node, int k) { return node.input_size() > k && !node.input(k).empty(); }

// Whether the normalized axes of both Slices are disjoint; nullopt when a negative axis
// meets an unknown rank or an axis is out of range.
std::optional<bool> DisjointAxes(const std::vector<std::int64_t>& a1, const std::vector<std::int64_t>& a2,
                                 std::optional<std::size_t> rank) {
  std::set<std::int64_t> seen;
  for (const auto* axes : {&a1, &a2}) {
    for (std::int64_t axis : *axes) {
      if (axis < 0 && !rank) return std::nullopt;
      const std::optional<std::int64_t> a = rank ? NormalizeAxis(axis, *rank) : axis;
      if (!a) return std::nullopt;
      if (!seen.insert(*a).second) return false;
    }
  }
  return true;
}

// The common integer type of the parameters (inputs 1..4) of both Slices; 0 when they differ
// or one is unknown.
int ParameterType(const GraphGraph& graph, const NodeProto& first, const NodeProto& second) {
  int type = graph.GetType(first.input(1));
  for (const NodeProto* slice : {&first, &second})
    for (int k = 1; k < slice->input_size(); ++k)
      if (!slice->input(k).empty() && graph.GetType(slice->input(k)) != type) return 0;
  return type;
}

}  // namespace

MatchResult SliceSlicePattern::Match(GraphGraph& graph, const NodeProto& second) const {
  if (!core::builder::IsOp(second, "Slice")) return NoMatch(second, "the node is not a default-domain Slice");
  if (!HasInput(second, 3)) return NoMatch(second, "the second Slice has no axes input");
  const NodeProto* first = ProducerOf(graph, second.input(0), "Slice");
  if (!first) return NoMatch(second, "the input is not produced by a Slice");
  if (!core::builder::HasOneUse(graph, first->output(0)))
    return NoMatch(second, "the first Slice output has another reader");
  if (!HasInput(*first, 3)) return NoMatch(second, "the first Slice has no axes input");
  const auto a1 = core::builder::ConstantInts(graph, first->input(3));
  const auto a2 = core::builder::ConstantInts(graph, second.input(3));
  if (!a1 || !a2) return NoMatch(second, "an axes input is not constant");
  const std::optional<bool> disjoint = DisjointAxes(*a1, *a2, core::builder::RankOf(graph, first->input(0)));
  if (!disjoint) return NoMatch(second, "a negative axis cannot be normalized");
  if (!*disjoint) return NoMatch(second, "the two Slices share an axis");
  if (ParameterType(graph, *first, second) == 0)
    return NoMatch(second, "the Slice parameters do not all have the same integer type");
  // The second Slice's starts and ends may be computed between the two Slices.
  return Matched({first, &second}, &second);
}

utils::RepeatedProtoField<NodeProto> SliceSlicePattern::Apply(GraphGraph& graph,
                                                              const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Slice", "Slice"});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  const int type = ParameterType(graph, first, second);
  utils::RepeatedProtoField<NodeProto> replacement;
  auto concat = [&](const std::string& a, const std::string& b) {
    NodeProto& node = *replacement.Add();
    node.set_op_type("Concat");
    node.set_name(DerivedNodeName(graph, kName, second));
    core::builder::AddIntAttribute(node, "axis", 0);
    node.add_input(a);
    node.add_input(b);
    node.add_output(graph.Builder().UniqueName(kName));
    return node.output(0);
  };
  // Steps of ones, as many as the axes of `slice`.
  auto ones = [&](const NodeProto& slice) {
    const std::size_t n = core::builder::ConstantInts(graph, slice.input(3))->size();
    return graph.MakeInitializer(
        kName, IntTensor(std::vector<std::int64_t>(n, 1), {static_cast<std::int64_t>(n)}, type));
  };
  std::vector<std::string> inputs = {first.input(0), concat(first.input(1), second.input(1)),
                                     concat(first.input(2), second.input(2)),
                                     concat(first.input(3), second.input(3))};
  if (HasInput(first, 4) || HasInput(second, 4))
    inputs.push_back(concat(HasInput(first, 4) ? first.input(4) : ones(first),
                            HasInput(second, 4) ? second.input(4) : ones(second)));
  NodeProto& slice = *replacement.Add();
  slice.set_op_type("Slice");
  slice.set_name(DerivedNodeName(graph, kName, second));
  for (const std::string& input : inputs) slice.add_input(input);
  slice.add_output(second.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
