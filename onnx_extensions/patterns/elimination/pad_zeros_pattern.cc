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

MatchResult PadZerosPattern::Match(GraphGraph& graph, const NodeProto& pad) const {
  if (!IsOp(pad, "Pad") || pad.input_size() < 1 || pad.output_size() != 1)
    return NoMatch(pad, "the node is not a default-domain Pad");
  std::optional<std::vector<std::int64_t>> pads = IntsAttr(pad, "pads");
  if (!pads) {
    if (OptionalInput(pad, 1).empty()) return NoMatch(pad, "the Pad has no pads");
    pads = ConstantInts(graph, pad.input(1));
    if (!pads) return NoMatch(pad, "the pads are not a constant");
  }
  if (!std::all_of(pads->begin(), pads->end(), [](std::int64_t p) { return p == 0; }))
    return NoMatch(pad, "a pad is not 0");
  return Matched({&pad});
}

utils::RepeatedProtoField<NodeProto> PadZerosPattern::Apply(GraphGraph& graph,
                                                            const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"Pad"});
  return elimination::IdentityOfFirstInput(graph, kName, *nodes[0]);
}

}  // namespace onnxopt::onnx_patterns
