#include "onnx_extensions/patterns/elimination/flatten_same_shape_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ExpectMatchedNodes;
using core::builder::IntAttr;
using core::builder::IsOp;
using core::builder::NormalizeAxis;
using core::builder::RankOf;

MatchResult FlattenSameShapePattern::Match(GraphGraph& graph, const NodeProto& flatten) const {
  if (!IsOp(flatten, "Flatten") || flatten.input_size() != 1 || flatten.output_size() != 1)
    return NoMatch(flatten, "the node is not a default-domain Flatten");
  const std::optional<std::size_t> rank = RankOf(graph, flatten.input(0));
  if (rank != 2u) return NoMatch(flatten, "the input has no known rank 2");
  if (NormalizeAxis(IntAttr(flatten, "axis").value_or(1), 2) != 1) return NoMatch(flatten, "the axis is not 1");
  return Matched({&flatten});
}

utils::RepeatedProtoField<NodeProto> FlattenSameShapePattern::Apply(GraphGraph& graph,
                                                                    const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"Flatten"});
  return elimination::IdentityOfFirstInput(graph, kName, *nodes[0]);
}

}  // namespace onnxopt::onnx_patterns
