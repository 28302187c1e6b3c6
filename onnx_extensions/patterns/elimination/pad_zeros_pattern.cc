#include "onnx_extensions/patterns/elimination/pad_zeros_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::ExpectMatchedNodes;
using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::OptionalInput;
using core::builder::RankOf;

MatchResult PadZerosPattern::Match(GraphGraph& graph, const NodeProto& pad) const {
  if (!IsOp(pad, "Pad") || pad.input_size() < 1 || pad.output_size() != 1)
    return NoMatch(pad, "the node is not a default-domain Pad");
  std::optional<std::vector<std::int64_t>> pads = IntsAttr(pad, "pads");
  if (!pads) {
    if (OptionalInput(pad, 1).empty()) return NoMatch(pad, "the Pad has no pads");
    pads = ConstantInts(graph, pad.input(1));
    if (!pads) return NoMatch(pad, "the pads are not a constant");
    if (RankOf(graph, pad.input(1)) != 1) return NoMatch(pad, "the pads are not a 1-D tensor");
  }
  if (!std::all_of(pads->begin(), pads->end(), [](std::int64_t p) { return p == 0; }))
    return NoMatch(pad, "a pad is not 0");
  // A Pad whose pads do not hold two values per padded axis fails at run time; replacing it
  // by an Identity would make such a model run, and it could not be told apart afterwards.
  std::optional<std::size_t> padded_axes;
  if (const std::string_view axes = OptionalInput(pad, 3); !axes.empty()) {
    std::optional<std::vector<std::int64_t>> axes_values = ConstantInts(graph, axes);
    if (!axes_values) return NoMatch(pad, "the axes are not a constant");
    padded_axes = axes_values->size();
  } else {
    padded_axes = RankOf(graph, pad.input(0));
    if (!padded_axes) return NoMatch(pad, "the rank of the input is unknown");
  }
  if (pads->size() != 2 * *padded_axes)
    return NoMatch(pad, "the pads do not hold two values per padded axis");
  return Matched({&pad});
}

utils::RepeatedProtoField<NodeProto> PadZerosPattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"Pad"});
  return elimination::IdentityOfFirstInput(graph, kName, *nodes[0]);
}

}  // namespace onnxopt::onnx_patterns
