#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Pool(Pad(x)) => Pool<pads = own pads + spatial pads>(x), for MaxPool and AveragePool
/// (onnxoptimizer's fuse_pad_into_pool).
/// Before:  p = Pad<mode=constant>(x, pads, v?, axes?); y = MaxPool<pads=q>(p)
/// After:   y = MaxPool<pads=q + spatial pads>(x)
/// Before:  p = Pad<mode=constant>(x, pads, 0?, axes?); y = AveragePool<pads=q>(p)
/// After:   y = AveragePool<pads=q + spatial pads, count_include_pad=1>(x)
/// The pool's own padding must compute what the padded elements did:
///  - MaxPool leaves its padding out of the max, which is what padding with the lowest
///    value of the type does (-inf, or the minimum of int8/uint8): it never wins over a
///    real element. Every window must then hold a real element, else the Pad's window
///    is -inf where the pool's would be empty: the merged pads are smaller than the
///    kernel and the pool is not dilated (a dilated window can skip the real elements).
///    Its Indices output must be unused (indices count the padded tensor's elements);
///    storage_order only shapes Indices, so it needs no check.
///  - AveragePool divides by the window size only with count_include_pad=1, which the
///    zero padding needs; the pool's own pads must then be zeros or already counted
///    (count_include_pad=1).
/// Not valid with auto_pad (it recomputes the padding) or ceil_mode=1 (windows that start
/// in the pool's right padding are dropped, so moving the Pad's elements there can
/// shorten the output); nor when the merged pads would not be smaller than the kernel
/// (onnxruntime refuses such pools), p has other readers, or the Pad is not a spatial
/// constant one (padding::MatchSpatialConstantPad), or when a spatial dim of x is not known
/// to be 1 or more (a symbolic one may be 0, where no window holds a real element). Exact.
class PadPoolPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "PadPoolPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  PadPoolPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MaxPool", "AveragePool"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& pool) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
