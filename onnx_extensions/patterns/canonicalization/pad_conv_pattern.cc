#include "onnx_extensions/patterns/canonicalization/pad_conv_pattern.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantInts;
using core::builder::OptionalInput;
using Pads = std::vector<std::int64_t>;

// The Pad's pads over every dimension (begins then ends), the `axes` input scattered
// with the rank of the padded tensor; nullopt with a reason when it cannot be built.
std::optional<Pads> FullPads(GraphGraph& graph, const NodeProto& pad, std::string_view* why) {
  auto reject = [&](std::string_view reason) -> std::optional<Pads> {
    *why = reason;
    return std::nullopt;
  };
  const std::optional<Pads> pads = ConstantInts(graph, pad.input(1));
  if (!pads) return reject("the pads are not constant");
  if (OptionalInput(pad, 3).empty()) {
    if (pads->size() % 2 != 0) return reject("the pads do not have an even length");
    return pads;
  }
  const std::optional<Pads> axes = ConstantInts(graph, pad.input(3));
  if (!axes) return reject("the axes are not constant");
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, pad.input(0));
  if (!rank) return reject("the rank of the padded tensor is unknown");
  if (pads->size() != 2 * axes->size()) return reject("the pads do not have two values per axis");
  const auto r = static_cast<std::int64_t>(*rank);
  Pads full(2 * *rank, 0);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < axes->size(); ++i) {
    const std::int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + r : (*axes)[i];
    if (axis < 0 || axis >= r || !seen.insert(axis).second) return reject("the axes are not distinct valid axes");
    full[axis] = (*pads)[i];
    full[axis + r] = (*pads)[i + axes->size()];
  }
  return full;
}

// The Conv's pads plus the spatial pads of the Pad (begins then ends, as Conv wants them).
Pads MergedPads(const NodeProto& conv, const Pads& full) {
  const std::size_t r = full.size() / 2, s = r - 2;
  Pads merged = core::builder::IntsAttr(conv, "pads").value_or(Pads(2 * s, 0));
  for (std::size_t i = 0; i < s; ++i) {
    merged[i] += full[i + 2];
    merged[i + s] += full[r + i + 2];
  }
  return merged;
}

}  // namespace

MatchResult PadConvPattern::Match(GraphGraph& graph, const NodeProto& conv) const {
  if (!core::builder::IsOp(conv, "Conv") || conv.input_size() < 2)
    return NoMatch(conv, "the node is not a default-domain Conv with two inputs or more");
  if (core::builder::StringAttr(conv, "auto_pad").value_or("NOTSET") != "NOTSET")
    return NoMatch(conv, "the Conv has an auto_pad other than NOTSET");
  const NodeProto* pad = core::builder::ProducerOf(graph, conv.input(0), "Pad");
  if (!pad) return NoMatch(conv, "the Conv input is not produced by a Pad");
  if (!core::builder::HasOneUse(graph, pad->output(0))) return NoMatch(conv, "the padded tensor has another reader");
  if (core::builder::StringAttr(*pad, "mode").value_or("constant") != "constant")
    return NoMatch(conv, "the Pad mode is not constant");
  if (OptionalInput(*pad, 1).empty()) return NoMatch(conv, "the Pad has no pads input");
  if (!OptionalInput(*pad, 2).empty()) {
    const std::optional<core::builder::NumericConstant> value = core::builder::ConstantDoubles(graph, pad->input(2));
    if (!value) return NoMatch(conv, "the padding value is not constant");
    if (value->elements.empty() || value->elements[0] != 0) return NoMatch(conv, "the padding value is not zero");
  }
  std::string_view why;
  const std::optional<Pads> full = FullPads(graph, *pad, &why);
  if (!full) return NoMatch(conv, why);
  const std::size_t r = full->size() / 2;
  if (r < 3) return NoMatch(conv, "the padded tensor has no spatial dimension");
  if ((*full)[0] != 0 || (*full)[1] != 0 || (*full)[r] != 0 || (*full)[r + 1] != 0)
    return NoMatch(conv, "the Pad pads the batch or channel dimension");
  if (std::any_of(full->begin(), full->end(), [](std::int64_t p) { return p < 0; }))
    return NoMatch(conv, "a spatial pad is negative");
  const std::optional<Pads> conv_pads = core::builder::IntsAttr(conv, "pads");
  if (conv_pads && conv_pads->size() != 2 * (r - 2))
    return NoMatch(conv, "the Conv pads do not have two values per spatial dimension");
  return Matched({pad, &conv});
}

utils::RepeatedProtoField<NodeProto> PadConvPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Pad", "Conv"});
  const NodeProto& pad = *nodes[0];
  const NodeProto& conv = *nodes[1];
  std::string_view why;
  const std::optional<Pads> full = FullPads(graph, pad, &why);
  if (!full) throw BuilderError(std::string(kName) + "::Apply: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = canonicalization::AddDerivedNode(replacement, graph, kName, conv, "Conv");
  node.set_domain(conv.domain());
  node.add_input(pad.input(0));
  for (int i = 1; i < conv.input_size(); ++i) node.add_input(conv.input(i));
  node.add_output(conv.output(0));
  node.set_doc_string(conv.doc_string());
  for (const AttributeProto& attr : conv.attribute())
    if (attr.name() != "pads") *node.add_attribute() = attr;
  core::builder::AddIntsAttribute(node, "pads", MergedPads(conv, *full));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
