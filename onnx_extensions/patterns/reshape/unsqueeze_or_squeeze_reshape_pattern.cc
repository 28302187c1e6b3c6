#include "onnx_extensions/patterns/reshape/unsqueeze_or_squeeze_reshape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::NormalizeAxis;
using core::builder::RankOf;

namespace {

bool IsSqueezeOrUnsqueeze(const NodeProto& node) {
  return (IsOp(node, "Squeeze") || IsOp(node, "Unsqueeze")) && node.input_size() >= 1 && node.output_size() == 1;
}

// The smallest axis the Squeeze removes or the Unsqueeze inserts, normalized: from the
// constant axes input (opset 13+) or the axes attribute (older); nullopt when the axes are
// absent (Squeeze of every 1), computed, empty, out of range, or negative with an unknown
// rank.
std::optional<std::int64_t> FirstAxis(GraphGraph& graph, const NodeProto& node) {
  const std::string_view input = core::builder::OptionalInput(node, 1);
  const std::optional<std::vector<std::int64_t>> axes =
      input.empty() ? IntsAttr(node, "axes") : ConstantInts(graph, input);
  if (!axes || axes->empty()) return std::nullopt;
  const std::optional<std::size_t> rank_x = RankOf(graph, node.input(0));
  if (!rank_x) {
    if (std::any_of(axes->begin(), axes->end(), [](std::int64_t axis) { return axis < 0; })) return std::nullopt;
    return *std::min_element(axes->begin(), axes->end());
  }
  const std::size_t rank = node.op_type() == "Squeeze" ? *rank_x : *rank_x + axes->size();
  std::optional<std::int64_t> first;
  for (std::int64_t axis : *axes) {
    const std::optional<std::int64_t> normalized = NormalizeAxis(axis, rank);
    if (!normalized) return std::nullopt;
    first = first ? std::min(*first, *normalized) : *normalized;
  }
  return first;
}

}  // namespace

MatchResult UnsqueezeOrSqueezeReshapePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (const std::string_view why = reshape::WhyNotPlainReshape(node); !why.empty()) return NoMatch(node, why);
  const auto shape = ConstantInts(graph, node.input(1));
  if (!shape) return NoMatch(node, "the shape input is not constant");
  const NodeProto* producer = graph.NodeBefore(node.input(0));
  if (!producer || !IsSqueezeOrUnsqueeze(*producer))
    return NoMatch(node, "the data input is not produced by a default-domain Squeeze or Unsqueeze");
  if (!HasOneUse(graph, node.input(0)))
    return NoMatch(node, "the output of the Squeeze or Unsqueeze has other readers");
  // Only the zeros of s read the shape of u: they must lie where x and u agree.
  const auto last_zero = std::find(shape->rbegin(), shape->rend(), 0);
  if (last_zero != shape->rend()) {
    const std::optional<std::int64_t> first_axis = FirstAxis(graph, *producer);
    if (!first_axis) return NoMatch(node, "the shape has a 0 and the axes of the Squeeze or Unsqueeze are not known");
    const auto zero_index = static_cast<std::int64_t>(shape->rend() - last_zero) - 1;
    if (zero_index >= *first_axis)
      return NoMatch(node, "a 0 of the shape is at or after the first axis the Squeeze or Unsqueeze changes");
  }
  return Matched({producer, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> UnsqueezeOrSqueezeReshapePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"Squeeze or Unsqueeze", IsSqueezeOrUnsqueeze},
                                                   {"Reshape", reshape::IsPlainReshape}});
  const NodeProto& producer = *nodes[0];
  const NodeProto& reshape = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = reshape;
  node.set_name(DerivedNodeName(graph, kName, reshape));
  node.set_input(0, producer.input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
