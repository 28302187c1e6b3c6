#include "onnx_extensions/patterns/elimination/concat_single_input_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ExpectMatchedNodes;
using core::builder::IsOp;

MatchResult ConcatSingleInputPattern::Match(GraphGraph& /*graph*/, const NodeProto& concat) const {
  if (!IsOp(concat, "Concat") || concat.output_size() != 1)
    return NoMatch(concat, "the node is not a default-domain Concat");
  if (concat.input_size() != 1 || concat.input(0).empty()) return NoMatch(concat, "the Concat has more than one input");
  return Matched({&concat});
}

utils::RepeatedProtoField<NodeProto> ConcatSingleInputPattern::Apply(GraphGraph& graph,
                                                                     const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"Concat"});
  return elimination::IdentityOfFirstInput(graph, kName, *nodes[0]);
}

}  // namespace onnxopt::onnx_patterns
