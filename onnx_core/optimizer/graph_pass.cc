#include "onnx_core/optimizer/graph_pass.h"

#include "onnx_core/common/error.h"

namespace onnxopt::core::builder {

MatchResult GraphPass::Match(GraphGraph&, const NodeProto& candidate) const {
  return NoMatch(candidate, "a graph pass runs on the whole graph, not on candidates");
}

utils::RepeatedProtoField<NodeProto> GraphPass::Apply(GraphGraph&, const std::vector<const NodeProto*>&) const {
  throw BuilderError("'" + Name() + "' is a graph pass: the driver runs it, it is never applied to a match");
}

}  // namespace onnxopt::core::builder
