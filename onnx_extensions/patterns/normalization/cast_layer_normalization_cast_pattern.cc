#include "onnx_extensions/patterns/normalization/cast_layer_normalization_cast_pattern.h"

#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/normalization/normalization_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::ProducerOf;
using core::builder::SoleConsumer;

namespace {

bool IsNormalization(const NodeProto& node) {
  // onnxruntime registers SimplifiedLayerNormalization in the default domain; exporters
  // write com.microsoft.
  if (node.op_type() == "SimplifiedLayerNormalization")
    return node.domain() == "com.microsoft" || core::ir::IsOnnxDomain(node.domain());
  return core::ir::IsOnnxDomain(node.domain()) &&
         (node.op_type() == "LayerNormalization" || node.op_type() == "GroupNormalization" ||
          node.op_type() == "RMSNormalization");
}

bool IsCast(const NodeProto& node) { return core::builder::IsOp(node, "Cast"); }

}  // namespace

std::set<std::string> CastLayerNormalizationCastPattern::FastOpType() const {
  return {"LayerNormalization", "GroupNormalization", "RMSNormalization", "SimplifiedLayerNormalization"};
}

MatchResult CastLayerNormalizationCastPattern::Match(GraphGraph& graph, const NodeProto& norm) const {
  if (!IsNormalization(norm) || norm.input_size() < 1 || norm.output_size() < 1)
    return NoMatch(norm, "the node is not a default-domain normalization nor a SimplifiedLayerNormalization");
  for (int i = 1; i < norm.output_size(); ++i)
    if (!norm.output(i).empty() && graph.IsUsed(norm.output(i)))
      return NoMatch(norm, "an output beyond the first is used");
  const NodeProto* up = ProducerOf(graph, norm.input(0), "Cast");
  if (!up) return NoMatch(norm, "the input is not produced by a Cast");
  if (IntAttr(*up, "to") != IntAttr(norm, "stash_type").value_or(TensorProto::FLOAT))
    return NoMatch(norm, "the first Cast does not convert to the stash type");
  if (!HasOneUse(graph, norm.input(0))) return NoMatch(norm, "the output of the first Cast has other readers");
  const int type = graph.GetType(up->input(0));
  if (!normalization::IsFloatType(type))
    return NoMatch(norm, "the input of the first Cast is not of a known float type");
  const NodeProto* down = SoleConsumer(graph, norm.output(0), "Cast");
  if (!down) return NoMatch(norm, "the output is not read by a single Cast");
  if (IntAttr(*down, "to") != type)
    return NoMatch(norm, "the second Cast does not convert back to the type of the first Cast's input");
  return Matched({up, &norm, down}, &norm);
}

utils::RepeatedProtoField<NodeProto> CastLayerNormalizationCastPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes,
                                    {{"Cast", IsCast}, {"normalization", IsNormalization}, {"Cast", IsCast}});
  const NodeProto& up = *nodes[0];
  const NodeProto& norm = *nodes[1];
  const NodeProto& down = *nodes[2];
  const std::int64_t type = *IntAttr(down, "to");
  utils::RepeatedProtoField<NodeProto> out;
  std::vector<std::string> inputs{up.input(0)};
  for (int i = 1; i < norm.input_size(); ++i) {
    if (norm.input(i).empty()) {
      inputs.push_back("");
      continue;
    }
    NodeProto& cast = normalization::AddNode(out, graph, kName, norm, "Cast", {norm.input(i)});
    core::builder::AddIntAttribute(cast, "to", type);
    inputs.push_back(cast.output(0));
  }
  NodeProto& fused = *out.Add() = norm;
  fused.set_name(core::builder::DerivedNodeName(graph, kName, norm));
  for (int i = 0; i < fused.input_size(); ++i) fused.set_input(i, inputs[static_cast<std::size_t>(i)]);
  fused.set_output(0, down.output(0));
  return out;
}

}  // namespace onnxopt::onnx_patterns
