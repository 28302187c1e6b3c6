#include "onnx_extensions/patterns/elimination/split_single_output_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ExpectMatchedNodes;
using core::builder::IsOp;

MatchResult SplitSingleOutputPattern::Match(GraphGraph& /*graph*/, const NodeProto& split) const {
  if (!IsOp(split, "Split") || split.input_size() < 1) return NoMatch(split, "the node is not a default-domain Split");
  if (split.output_size() != 1 || split.output(0).empty()) return NoMatch(split, "the Split has more than one output");
  return Matched({&split});
}

utils::RepeatedProtoField<NodeProto> SplitSingleOutputPattern::Apply(GraphGraph& graph,
                                                                     const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"Split"});
  return elimination::IdentityOfFirstInput(graph, kName, *nodes[0]);
}

}  // namespace onnxopt::onnx_patterns
