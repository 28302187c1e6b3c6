#include "onnx_extensions/patterns/fusion/pad_pool_pattern.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/pad_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IntAttr;
using core::builder::IntsAttr;
using core::builder::IsOp;
using padding::Pads;

namespace {

bool IsPool(const NodeProto& node) { return IsOp(node, "MaxPool") || IsOp(node, "AveragePool"); }

// Whether `value` is the lowest value of `elem_type` (MaxPool's types), which never wins
// a max over real elements.
bool IsLowestValue(double value, int elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: return std::isinf(value) && value < 0;
    case TensorProto::INT8: return value == -128;
    case TensorProto::UINT8: return value == 0;
    default: return false;
  }
}

}  // namespace

MatchResult PadPoolPattern::Match(GraphGraph& graph, const NodeProto& pool) const {
  if (!IsPool(pool) || pool.input_size() != 1)
    return NoMatch(pool, "the node is not a default-domain MaxPool or AveragePool with one input");
  if (core::builder::StringAttr(pool, "auto_pad").value_or("NOTSET") != "NOTSET")
    return NoMatch(pool, "the pool has an auto_pad other than NOTSET");
  if (IntAttr(pool, "ceil_mode").value_or(0) != 0) return NoMatch(pool, "the pool has ceil_mode=1");
  const bool is_max = pool.op_type() == "MaxPool";
  if (is_max && pool.output_size() > 1 && !pool.output(1).empty() && graph.IsUsed(pool.output(1)))
    return NoMatch(pool, "the Indices output of the MaxPool is used");
  const NodeProto* pad = core::builder::ProducerOf(graph, pool.input(0), "Pad");
  if (!pad) return NoMatch(pool, "the pool input is not produced by a Pad");
  if (!core::builder::HasOneUse(graph, pad->output(0))) return NoMatch(pool, "the padded tensor has another reader");
  std::string_view why;
  const std::optional<padding::SpatialConstantPad> spatial = padding::MatchSpatialConstantPad(graph, *pad, &why);
  if (!spatial) return NoMatch(pool, why);
  if (const std::optional<std::string_view> unfit = padding::WhyPadsAttributeUnfit(pool, spatial->full))
    return NoMatch(pool, *unfit);
  const std::size_t spatial_rank = spatial->full.size() / 2 - 2;
  const std::optional<Pads> kernel = IntsAttr(pool, "kernel_shape");
  if (!kernel || kernel->size() != spatial_rank)
    return NoMatch(pool, "the pool has no kernel_shape with one value per spatial dimension");
  const Pads merged = padding::MergedPads(pool, spatial->full);
  for (std::size_t i = 0; i < merged.size(); ++i)
    if (merged[i] >= (*kernel)[i % spatial_rank])
      return NoMatch(pool, "a merged pad would not be smaller than the kernel");
  // Pads smaller than the kernel give every window a real element only when there is one:
  // over an empty spatial dim the Pad's windows hold padding alone (MaxPool: -inf) and
  // onnxruntime refuses the fused pool. A symbolic dim may be 0 at run time.
  for (std::size_t axis = 2; axis < spatial_rank + 2; ++axis) {
    const std::optional<std::int64_t> dim =
        core::builder::StaticDim(graph, pad->input(0), static_cast<std::int64_t>(axis));
    if (!dim || *dim < 1) return NoMatch(pool, "a spatial dim of the input is not known to be 1 or more");
  }
  if (is_max) {
    if (!IsLowestValue(spatial->value, graph.GetType(pad->output(0))))
      return NoMatch(pool, "the padding value is not the lowest value of the element type");
    const std::optional<Pads> dilations = IntsAttr(pool, "dilations");
    if (dilations && std::any_of(dilations->begin(), dilations->end(), [](std::int64_t d) { return d != 1; }))
      return NoMatch(pool, "the MaxPool is dilated");
  } else {
    if (spatial->value != 0) return NoMatch(pool, "the padding value is not zero");
    const std::optional<Pads> own = IntsAttr(pool, "pads");
    const bool own_pads = own && std::any_of(own->begin(), own->end(), [](std::int64_t p) { return p != 0; });
    if (own_pads && IntAttr(pool, "count_include_pad").value_or(0) == 0)
      return NoMatch(pool, "the AveragePool has pads it leaves out of the average");
  }
  return Matched({pad, &pool});
}

utils::RepeatedProtoField<NodeProto> PadPoolPattern::Apply(GraphGraph& graph,
                                                           const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"Pad", [](const NodeProto& n) { return IsOp(n, "Pad"); }},
                                                   {"MaxPool or AveragePool", IsPool}});
  const NodeProto& pad = *nodes[0];
  const NodeProto& pool = *nodes[1];
  std::string_view why;
  const std::optional<Pads> full = padding::FullPads(graph, pad, &why);
  if (!full) throw BuilderError(std::string(kName) + "::Apply: " + std::string(why));
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& fused = *replacement.Add() = pool;
  fused.set_name(core::builder::DerivedNodeName(graph, kName, pool));
  fused.set_input(0, pad.input(0));
  fused.clear_attribute();
  for (const AttributeProto& attr : pool.attribute())
    if (attr.name() != "pads" && attr.name() != "count_include_pad") *fused.add_attribute() = attr;
  core::builder::AddIntsAttribute(fused, "pads", padding::MergedPads(pool, *full));
  // count_include_pad exists since opset 7; a Pad with a pads input needs opset 11.
  if (pool.op_type() == "AveragePool") core::builder::AddIntAttribute(fused, "count_include_pad", 1);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
