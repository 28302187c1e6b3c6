#include "onnx_extensions/patterns/canonicalization/clip_clip_pattern.h"

#include <cstdint>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::OptionalInput;

// Whether the constant scalar bounds satisfy lo <= hi; nullopt when one is not a constant
// scalar or their types differ. Integers are compared as integers: as doubles, bounds above
// 2^53 that differ can compare equal.
std::optional<bool> AtMost(GraphGraph& graph, std::string_view lo, std::string_view hi) {
  const TensorProto* lo_tensor = graph.GetComputedConstant(lo);
  const TensorProto* hi_tensor = graph.GetComputedConstant(hi);
  if (!lo_tensor || !hi_tensor || lo_tensor->data_type() != hi_tensor->data_type()) return std::nullopt;
  if (const auto lo_ints = core::builder::ConstantInts(graph, lo)) {
    const auto hi_ints = core::builder::ConstantInts(graph, hi);
    if (lo_ints->size() != 1 || !hi_ints || hi_ints->size() != 1) return std::nullopt;
    // ConstantInts keeps the bits of a uint64 above INT64_MAX.
    if (lo_tensor->data_type() == TensorProto::UINT64)
      return static_cast<std::uint64_t>(lo_ints->front()) <= static_cast<std::uint64_t>(hi_ints->front());
    return lo_ints->front() <= hi_ints->front();
  }
  const std::optional<core::builder::NumericConstant> lo_value = core::builder::ConstantDoubles(graph, lo);
  const std::optional<core::builder::NumericConstant> hi_value = core::builder::ConstantDoubles(graph, hi);
  if (!lo_value || lo_value->elements.size() != 1 || !hi_value || hi_value->elements.size() != 1)
    return std::nullopt;
  return lo_value->elements.front() <= hi_value->elements.front();
}

}  // namespace

MatchResult ClipClipPattern::Match(GraphGraph& graph, const NodeProto& second) const {
  if (!core::builder::IsOp(second, "Clip") || second.input_size() < 1)
    return NoMatch(second, "the node is not a default-domain Clip");
  if (core::builder::OnnxOpset(graph) < 11) return NoMatch(second, "the Clip bounds are attributes before opset 11");
  const NodeProto* first = core::builder::ProducerOf(graph, second.input(0), "Clip");
  if (!first) return NoMatch(second, "the input is not produced by a Clip");
  if (!core::builder::HasOneUse(graph, first->output(0)))
    return NoMatch(second, "the first Clip's output has another reader");
  const bool min1 = !OptionalInput(*first, 1).empty(), max1 = !OptionalInput(*first, 2).empty();
  const bool min2 = !OptionalInput(second, 1).empty(), max2 = !OptionalInput(second, 2).empty();
  if (min1 && min2) return NoMatch(second, "both Clips set a minimum");
  if (!min1 && !min2) return NoMatch(second, "no Clip sets a minimum");
  if (max1 && max2) return NoMatch(second, "both Clips set a maximum");
  if (!max1 && !max2) return NoMatch(second, "no Clip sets a maximum");
  if (max1 && min2) {
    // max(min(x, hi), lo) equals Clip(x, lo, hi) only when lo <= hi.
    const std::optional<bool> ordered = AtMost(graph, second.input(1), first->input(2));
    if (!ordered) return NoMatch(second, "the first Clip sets the maximum and a bound is not a constant scalar");
    if (!*ordered) return NoMatch(second, "the minimum is not at most the maximum");
  }
  // The bounds of the second Clip may be computed after the first one.
  return Matched({first, &second}, &second);
}

utils::RepeatedProtoField<NodeProto> ClipClipPattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Clip", "Clip"});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& clip = canonicalization::AddDerivedNode(replacement, graph, kName, second, "Clip");
  clip.set_domain(second.domain());
  clip.add_input(first.input(0));
  const std::string_view min = OptionalInput(first, 1).empty() ? OptionalInput(second, 1) : OptionalInput(first, 1);
  const std::string_view max = OptionalInput(first, 2).empty() ? OptionalInput(second, 2) : OptionalInput(first, 2);
  clip.add_input(std::string(min));
  clip.add_input(std::string(max));
  clip.add_output(second.output(0));
  clip.set_doc_string(second.doc_string());
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
