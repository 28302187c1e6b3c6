#pragma once
// Pad queries shared by the families that fold a Pad into the padding of the node after
// it (canonicalization: PadConvPattern; fusion: PadPoolPattern). Like the core matchers,
// they return nullopt with a reason instead of throwing.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"

namespace onnxopt::onnx_patterns::padding {

using core::builder::GraphGraph;
using Pads = std::vector<std::int64_t>;

// The pads of a Pad (opset 11+: pads as an input) over every dimension of the padded
// tensor, begins then ends, the `axes` input scattered with the rank of the padded tensor.
std::optional<Pads> FullPads(GraphGraph& graph, const NodeProto& pad, std::string_view* why);

// A default-domain Pad in constant mode that pads only the spatial dimensions (2 and up)
// of an N x C x D1 x ... tensor, by non-negative amounts: the padding a Conv or a pool
// can do itself.
struct SpatialConstantPad {
  Pads full;         // FullPads: begins then ends over every dimension of the padded tensor
  double value = 0;  // the padding value; 0 when the Pad has none
};
std::optional<SpatialConstantPad> MatchSpatialConstantPad(GraphGraph& graph, const NodeProto& pad,
                                                          std::string_view* why);

// Why the `pads` attribute of `consumer` (a Conv or a pool reading a tensor of rank
// full.size() / 2, 3 or more: `full` as MatchSpatialConstantPad returns it) cannot take
// more padding: it does not have two values per spatial dimension, or a sum would be beyond
// int64. Nullopt when it can (an absent attribute means zeros).
std::optional<std::string_view> WhyPadsAttributeUnfit(const NodeProto& consumer, const Pads& full);

// The `pads` attribute of `consumer` (zeros when absent) plus the spatial pads of `full`,
// begins then ends as Conv and the pools want them. Call after WhyPadsAttributeUnfit.
Pads MergedPads(const NodeProto& consumer, const Pads& full);

}  // namespace onnxopt::onnx_patterns::padding
