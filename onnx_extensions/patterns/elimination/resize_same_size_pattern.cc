#include "onnx_extensions/patterns/elimination/resize_same_size_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/elimination/elimination_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::ExpectMatchedNodes;
using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::OnnxOpset;
using core::builder::OptionalInput;
using core::builder::StaticDims;
using core::builder::StringAttr;

namespace {

// Whether the Resize keeps the size: opset 10 (x, scales), or later (x, roi, scales[, sizes]).
bool StaticSize(GraphGraph& graph, const NodeProto& resize) {
  const bool opset10 = OnnxOpset(graph) <= 10;
  const std::string_view scales = opset10 ? resize.input(1) : OptionalInput(resize, 2);
  if (!scales.empty()) {
    const std::optional<core::builder::NumericConstant> values = core::builder::ConstantDoubles(graph, scales);
    // An empty scales tensor means "use sizes".
    if (!values) return false;
    if (!values->elements.empty())
      return std::all_of(values->elements.begin(), values->elements.end(), [](double s) { return s == 1.0; });
  }
  const std::string_view sizes = OptionalInput(resize, 3);
  if (sizes.empty() || IntsAttr(resize, "axes") || StringAttr(resize, "keep_aspect_ratio_policy")) return false;
  const std::optional<std::vector<std::int64_t>> wanted = ConstantInts(graph, sizes);
  return wanted && wanted == StaticDims(graph, resize.input(0));
}

}  // namespace

MatchResult ResizeSameSizePattern::Match(GraphGraph& graph, const NodeProto& resize) const {
  if (!IsOp(resize, "Resize") || resize.input_size() < 2 || resize.output_size() != 1)
    return NoMatch(resize, "the node is not a default-domain Resize");
  const std::string mode = StringAttr(resize, "mode").value_or("nearest");
  if (mode != "nearest" && mode != "linear") return NoMatch(resize, "the mode is neither nearest nor linear");
  const std::string coordinates = StringAttr(resize, "coordinate_transformation_mode").value_or("half_pixel");
  if (coordinates != "half_pixel" && coordinates != "pytorch_half_pixel" && coordinates != "asymmetric" &&
      coordinates != "half_pixel_symmetric")
    return NoMatch(resize, "the coordinate transformation may not map each index to itself");
  if (!StaticSize(graph, resize)) return NoMatch(resize, "the output size is not the input size");
  return Matched({&resize});
}

utils::RepeatedProtoField<NodeProto> ResizeSameSizePattern::Apply(GraphGraph& graph,
                                                                  const std::vector<const NodeProto*>& nodes) const {
  ExpectMatchedNodes(*this, nodes, {"Resize"});
  return elimination::IdentityOfFirstInput(graph, kName, *nodes[0]);
}

}  // namespace onnxopt::onnx_patterns
