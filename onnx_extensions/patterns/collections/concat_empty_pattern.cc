#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::StaticDim;

// Whether `input` has the static length 0 along `axis`.
bool IsEmptyAlong(const GraphGraph& graph, const std::string& input, std::int64_t axis) {
  return StaticDim(graph, input, axis) == std::int64_t{0};
}

}  // namespace

MatchResult ConcatEmptyPattern::Match(GraphGraph& graph, const NodeProto& concat) const {
  if (!core::builder::IsOp(concat, "Concat")) return NoMatch(concat, "the node is not a default-domain Concat");
  const std::optional<std::int64_t> axis = IntAttr(concat, "axis");
  if (!axis) return NoMatch(concat, "the Concat has no axis attribute");
  // The checker lets an input of a variadic list be omitted, but no operator says what
  // Concat makes of it: the node is left as it is (an Identity of "" is no model).
  if (std::any_of(concat.input().begin(), concat.input().end(), [](const std::string& input) { return input.empty(); }))
    return NoMatch(concat, "an input of the Concat is omitted (an empty name)");
  for (const std::string& input : concat.input())
    if (IsEmptyAlong(graph, input, *axis)) return Matched({&concat});
  return NoMatch(concat, "no input has a static zero length along the axis");
}

utils::RepeatedProtoField<NodeProto> ConcatEmptyPattern::Apply(GraphGraph& graph,
                                                               const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat"});
  const NodeProto& concat = *nodes[0];
  const std::int64_t axis = *IntAttr(concat, "axis");
  std::vector<std::string> kept;
  for (const std::string& input : concat.input())
    if (!IsEmptyAlong(graph, input, axis)) kept.push_back(input);

  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add();
  node.set_name(DerivedNodeName(graph, kName, concat));
  node.add_output(concat.output(0));
  // With every input empty, each has the output's shape: any of them is the result.
  if (kept.size() <= 1) {
    node.set_op_type("Identity");
    node.add_input(kept.empty() ? concat.input(0) : kept.front());
    return replacement;
  }
  node.set_op_type("Concat");
  *node.mutable_attribute() = concat.attribute();
  for (const std::string& input : kept) node.add_input(input);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
