#include "onnx_extensions/patterns/reshape/reshape_squeeze_pattern.h"

#include <algorithm>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/reshape/reshape_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntTensor;
using core::builder::IsOp;
using core::builder::NormalizeAxis;

namespace {

// s without the squeezed entries; nullopt with `why` set when the Squeeze cannot move
// into the Reshape.
std::optional<std::vector<std::int64_t>> SqueezedShape(const std::vector<std::int64_t>& shape,
                                                       std::vector<std::int64_t> axes, std::string_view* why) {
  for (std::int64_t& axis : axes) {
    const std::optional<std::int64_t> normalized = NormalizeAxis(axis, shape.size());
    if (!normalized) {
      *why = "an axis of the Squeeze is out of the range of the shape";
      return std::nullopt;
    }
    axis = *normalized;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    *why = "an axis of the Squeeze is repeated";
    return std::nullopt;
  }
  std::vector<std::int64_t> kept;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    if (std::binary_search(axes.begin(), axes.end(), index)) {
      if (shape[i] == 1) continue;
      *why = "a squeezed entry of the shape is not 1";
      return std::nullopt;
    }
    // A 0 copies x's dimension at its index, which moves when an earlier entry goes.
    if (index > axes.front() && shape[i] == 0) {
      *why = "a 0 of the shape follows a squeezed axis";
      return std::nullopt;
    }
    kept.push_back(shape[i]);
  }
  return kept;
}

}  // namespace

MatchResult ReshapeSqueezePattern::Match(GraphGraph& graph, const NodeProto& squeeze) const {
  if (!IsOp(squeeze, "Squeeze") || squeeze.input_size() != 2 || squeeze.output_size() != 1)
    return NoMatch(squeeze, "the node is not a default-domain Squeeze with an axes input");
  const auto axes = ConstantInts(graph, squeeze.input(1));
  if (!axes) return NoMatch(squeeze, "the axes of the Squeeze are not constant");
  if (axes->empty()) return NoMatch(squeeze, "the axes of the Squeeze are empty");
  const NodeProto* reshape = graph.NodeBefore(squeeze.input(0));
  if (!reshape || !reshape::IsPlainReshape(*reshape))
    return NoMatch(squeeze, "the input is not produced by a plain Reshape (default domain, allowzero=0)");
  if (!HasOneUse(graph, squeeze.input(0))) return NoMatch(squeeze, "the output of the Reshape has other readers");
  const auto shape = ConstantInts(graph, reshape->input(1));
  if (!shape) return NoMatch(squeeze, "the shape of the Reshape is not constant");
  std::string_view why;
  if (!SqueezedShape(*shape, *axes, &why)) return NoMatch(squeeze, why);
  return Matched({reshape, &squeeze}, &squeeze);
}

utils::RepeatedProtoField<NodeProto> ReshapeSqueezePattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Reshape", "Squeeze"});
  const NodeProto& reshape = *nodes[0];
  const NodeProto& squeeze = *nodes[1];
  std::string_view why;
  const auto shape =
      SqueezedShape(*ConstantInts(graph, reshape.input(1)), *ConstantInts(graph, squeeze.input(1)), &why);
  if (!shape)
    throw BuilderError(std::string(kName) + "::Apply called with a Squeeze it cannot move: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = reshape;
  node.set_name(DerivedNodeName(graph, kName, reshape));
  node.set_input(1, graph.MakeInitializer(kName, IntTensor(*shape)));
  node.set_output(0, squeeze.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
