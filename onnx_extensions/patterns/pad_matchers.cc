#include "onnx_extensions/patterns/pad_matchers.h"

#include <algorithm>
#include <set>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::padding {

using core::builder::ConstantInts;
using core::builder::OptionalInput;
using core::builder::Reject;

std::optional<Pads> FullPads(GraphGraph& graph, const NodeProto& pad, std::string_view* why) {
  if (OptionalInput(pad, 1).empty()) return Reject(why, "the Pad has no pads input");
  const std::optional<Pads> pads = ConstantInts(graph, pad.input(1));
  if (!pads) return Reject(why, "the pads are not constant");
  if (OptionalInput(pad, 3).empty()) {
    if (pads->size() % 2 != 0) return Reject(why, "the pads do not have an even length");
    return pads;
  }
  const std::optional<Pads> axes = ConstantInts(graph, pad.input(3));
  if (!axes) return Reject(why, "the axes are not constant");
  const std::optional<std::size_t> rank = core::builder::RankOf(graph, pad.input(0));
  if (!rank) return Reject(why, "the rank of the padded tensor is unknown");
  if (pads->size() != 2 * axes->size()) return Reject(why, "the pads do not have two values per axis");
  const auto r = static_cast<std::int64_t>(*rank);
  Pads full(2 * *rank, 0);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < axes->size(); ++i) {
    const std::int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + r : (*axes)[i];
    if (axis < 0 || axis >= r || !seen.insert(axis).second) return Reject(why, "the axes are not distinct valid axes");
    full[axis] = (*pads)[i];
    full[axis + r] = (*pads)[i + axes->size()];
  }
  return full;
}

std::optional<SpatialConstantPad> MatchSpatialConstantPad(GraphGraph& graph, const NodeProto& pad,
                                                          std::string_view* why) {
  if (!core::builder::IsOp(pad, "Pad") || pad.output_size() != 1)
    return Reject(why, "the node is not a default-domain Pad with one output");
  if (core::builder::StringAttr(pad, "mode").value_or("constant") != "constant")
    return Reject(why, "the Pad mode is not constant");
  SpatialConstantPad result;
  if (!OptionalInput(pad, 2).empty()) {
    const std::optional<double> value = core::builder::ConstantScalar(graph, pad.input(2));
    if (!value) return Reject(why, "the padding value is not a constant scalar");
    result.value = *value;
  }
  std::optional<Pads> full = FullPads(graph, pad, why);
  if (!full) return std::nullopt;
  const std::size_t r = full->size() / 2;
  if (r < 3) return Reject(why, "the padded tensor has no spatial dimension");
  if ((*full)[0] != 0 || (*full)[1] != 0 || (*full)[r] != 0 || (*full)[r + 1] != 0)
    return Reject(why, "the Pad pads the batch or channel dimension");
  if (std::any_of(full->begin(), full->end(), [](std::int64_t p) { return p < 0; }))
    return Reject(why, "a spatial pad is negative");
  result.full = std::move(*full);
  return result;
}

namespace {

// MergedPads, or nullopt when a sum is beyond int64 (a hostile Pad).
std::optional<Pads> AddSpatialPads(const NodeProto& consumer, const Pads& full) {
  const std::size_t r = full.size() / 2, s = r - 2;
  Pads merged = core::builder::IntsAttr(consumer, "pads").value_or(Pads(2 * s, 0));
  for (std::size_t i = 0; i < s; ++i) {
    if (__builtin_add_overflow(merged[i], full[i + 2], &merged[i]) ||
        __builtin_add_overflow(merged[i + s], full[r + i + 2], &merged[i + s]))
      return std::nullopt;
  }
  return merged;
}

}  // namespace

std::optional<std::string_view> WhyPadsAttributeUnfit(const NodeProto& consumer, const Pads& full) {
  const std::optional<Pads> pads = core::builder::IntsAttr(consumer, "pads");
  if (pads && pads->size() != full.size() - 4)
    return "the pads attribute does not have two values per spatial dimension";
  if (!AddSpatialPads(consumer, full)) return "the pads added up are beyond int64";
  return std::nullopt;
}

Pads MergedPads(const NodeProto& consumer, const Pads& full) {
  std::optional<Pads> merged = AddSpatialPads(consumer, full);
  if (!merged) throw BuilderError("MergedPads: the pads added up are beyond int64 (call WhyPadsAttributeUnfit first)");
  return *merged;
}

}  // namespace onnxopt::onnx_patterns::padding
