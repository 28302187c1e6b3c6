#include "onnx_extensions/patterns/algebra/shape_based_shape_shape_add_pattern.h"

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;
using core::builder::ProducerOf;

MatchResult ShapeBasedShapeShapeAddPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Add") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Add with two inputs");
  if (!ProducerOf(graph, node.input(0), "Shape") || !ProducerOf(graph, node.input(1), "Shape"))
    return NoMatch(node, "the inputs are not both produced by a Shape");
  return NoMatch(node, "no tensor is known to have the sum of the two dimensions (a placeholder, as upstream)");
}

utils::RepeatedProtoField<NodeProto> ShapeBasedShapeShapeAddPattern::Apply(GraphGraph&,
                                                                           const std::vector<const NodeProto*>&) const {
  throw BuilderError(std::string(kName) + " never matches: Apply cannot be called");
}

}  // namespace onnxopt::onnx_patterns
