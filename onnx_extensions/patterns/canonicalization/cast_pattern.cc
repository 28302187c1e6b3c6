#include "onnx_extensions/patterns/canonicalization/cast_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/canonicalization_matchers.h"

namespace onnxopt::onnx_patterns {

MatchResult CastPattern::Match(GraphGraph& graph, const NodeProto& cast) const {
  if (!core::builder::IsOp(cast, "Cast") || cast.input_size() != 1 || cast.output_size() != 1)
    return NoMatch(cast, "the node is not a default-domain Cast with one input and one output");
  const std::optional<std::int64_t> to = core::builder::IntAttr(cast, "to");
  if (!to) return NoMatch(cast, "the Cast has no integer 'to' attribute");
  const int type = graph.GetType(cast.input(0));
  if (type == 0) return NoMatch(cast, "the element type of the input is unknown");
  if (type != *to) return NoMatch(cast, "the Cast changes the element type");
  return Matched({&cast});
}

utils::RepeatedProtoField<NodeProto> CastPattern::Apply(GraphGraph& graph,
                                                        const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Cast"});
  utils::RepeatedProtoField<NodeProto> replacement;
  canonicalization::AddIdentity(replacement, graph, kName, *nodes[0], nodes[0]->input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
