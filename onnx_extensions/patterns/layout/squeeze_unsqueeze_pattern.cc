#include "onnx_extensions/patterns/layout/squeeze_unsqueeze_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;
using core::builder::OptionalInput;
using core::builder::RankOf;

namespace {

// What the pair reduces to: Y = Identity(X), Squeeze(X) or Squeeze(X, axes).
struct Reduced {
  enum class Kind { kIdentity, kSqueezeAll, kSqueezeAxes } kind;
  layout::Ints axes;  // for kSqueezeAxes, in the coordinates of X
};

bool IsSqueezeOrUnsqueeze(const NodeProto& node) { return IsOp(node, "Squeeze") || IsOp(node, "Unsqueeze"); }

// [k, k+1, ..., k+m]: upstream accepts equal lists of several axes only in this form.
bool IsConsecutiveIncreasing(const layout::Ints& axes) {
  for (std::size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1) return false;
  return true;
}

// The Squeeze axes e of X for Squeeze(Unsqueeze(X, a1), a2) when a1 is a strict subset of
// a2: the axes of a2 outside a1, each minus the number of a1 axes before it; nullopt when
// a1 is not a strict subset.
std::optional<layout::Ints> RemainingSqueezeAxes(layout::Ints a1, layout::Ints a2) {
  std::sort(a1.begin(), a1.end());
  std::sort(a2.begin(), a2.end());
  if (a1.size() >= a2.size() || !std::includes(a2.begin(), a2.end(), a1.begin(), a1.end())) return std::nullopt;
  layout::Ints extra;
  for (std::int64_t axis : a2)
    if (!std::binary_search(a1.begin(), a1.end(), axis))
      extra.push_back(axis - (std::lower_bound(a1.begin(), a1.end(), axis) - a1.begin()));
  return extra;
}

// The axes a1 of the first node, a2 of the second and the rank they are normalized
// against: in both orders the rank of the larger tensor of the pair (the input of the
// Squeeze, the output of the Unsqueeze).
struct PairAxes {
  layout::Ints first, second;
  std::optional<std::size_t> rank;
};

// Nullopt with the reason in `why`.
std::optional<PairAxes> ReadPairAxes(GraphGraph& graph, const NodeProto& first, const NodeProto& second,
                                     std::string_view* why) {
  const bool squeeze_first = IsOp(first, "Squeeze");
  const NodeProto& squeeze = squeeze_first ? first : second;
  const NodeProto& unsqueeze = squeeze_first ? second : first;
  const std::optional<layout::Ints> unsqueezed = layout::ConstantAxes(graph, unsqueeze.input(1));
  if (!unsqueezed) return layout::Reject(why, "the axes of the Unsqueeze are not a constant 1-D tensor");
  const std::optional<layout::Ints> squeezed = layout::SqueezedAxes(graph, squeeze, why);
  if (!squeezed) return std::nullopt;
  std::optional<std::size_t> rank;
  if (squeeze_first) {
    rank = RankOf(graph, first.input(0));
  } else if (const std::optional<std::size_t> u = RankOf(graph, first.output(0))) {
    rank = u;
  } else if (const std::optional<std::size_t> x = RankOf(graph, first.input(0))) {
    rank = *x + unsqueezed->size();
  }
  if (squeeze_first) return PairAxes{*squeezed, *unsqueezed, rank};
  return PairAxes{*unsqueezed, *squeezed, rank};
}

// Nullopt with the reason in `why`.
std::optional<Reduced> Reduce(GraphGraph& graph, const NodeProto& first, const NodeProto& second,
                              std::string_view* why) {
  const bool unsqueeze_first = IsOp(first, "Unsqueeze");
  if (unsqueeze_first && OptionalInput(second, 1).empty()) return Reduced{Reduced::Kind::kSqueezeAll, {}};
  const std::optional<PairAxes> axes = ReadPairAxes(graph, first, second, why);
  if (!axes) return std::nullopt;
  // A Squeeze-first pair cancels only when the Unsqueeze restores as many axes.
  if (!unsqueeze_first && axes->first.size() != axes->second.size())
    return layout::Reject(why, "the Unsqueeze does not restore the axes of the Squeeze");
  if (!axes->rank && (layout::HasNegativeAxis(axes->first) || layout::HasNegativeAxis(axes->second)))
    return layout::Reject(why, "an axis is negative and the rank is unknown");
  const std::optional<layout::Ints> a1 = layout::NormalizeAxes(axes->first, axes->rank);
  const std::optional<layout::Ints> a2 = layout::NormalizeAxes(axes->second, axes->rank);
  if (!a1 || !a2) return layout::Reject(why, "the axes are out of range or repeated");
  if (*a1 == *a2) {
    if (!IsConsecutiveIncreasing(*a1)) return layout::Reject(why, "the equal axes are not consecutive increasing");
    return Reduced{Reduced::Kind::kIdentity, {}};
  }
  if (!unsqueeze_first) return layout::Reject(why, "the Unsqueeze does not restore the axes of the Squeeze");
  std::optional<layout::Ints> extra = RemainingSqueezeAxes(*a1, *a2);
  if (!extra) return layout::Reject(why, "the axes of the Unsqueeze are not a strict subset of those of the Squeeze");
  return Reduced{Reduced::Kind::kSqueezeAxes, std::move(*extra)};
}

}  // namespace

MatchResult SqueezeUnsqueezePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsSqueezeOrUnsqueeze(node) || node.input_size() < 1 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Squeeze or Unsqueeze");
  if (core::builder::OnnxOpset(graph) < 13) return NoMatch(node, "the axes are an attribute before opset 13");
  const bool squeeze_second = IsOp(node, "Squeeze");
  const NodeProto* first = core::builder::ProducerOf(graph, node.input(0), squeeze_second ? "Unsqueeze" : "Squeeze");
  if (!first || first->input_size() < 1)
    return NoMatch(
        node, squeeze_second ? "the input is not produced by an Unsqueeze" : "the input is not produced by a Squeeze");
  if ((squeeze_second ? *first : node).input_size() != 2) return NoMatch(node, "the Unsqueeze has no axes input");
  std::string_view why;
  if (!Reduce(graph, *first, node, &why)) return NoMatch(node, why);
  return Matched({first, &node});
}

utils::RepeatedProtoField<NodeProto> SqueezeUnsqueezePattern::Apply(GraphGraph& graph,
                                                                    const std::vector<const NodeProto*>& nodes) const {
  using core::builder::ExpectedNode;
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {ExpectedNode{"Squeeze or Unsqueeze", IsSqueezeOrUnsqueeze},
                                     ExpectedNode{"Squeeze or Unsqueeze", IsSqueezeOrUnsqueeze}});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  std::string_view why;
  const Reduced reduced = *Reduce(graph, first, second, &why);
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, first.output(0))) *replacement.Add() = first;
  std::vector<std::string> inputs = {first.input(0)};
  if (reduced.kind == Reduced::Kind::kSqueezeAxes)
    inputs.push_back(graph.MakeInitializer(kName, core::builder::IntTensor(reduced.axes)));
  layout::AddNode(replacement, graph, kName, second, reduced.kind == Reduced::Kind::kIdentity ? "Identity" : "Squeeze",
                  inputs, second.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
