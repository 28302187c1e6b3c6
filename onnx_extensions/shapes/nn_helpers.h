#pragma once
// Shape computations shared by nn_shapes.cc (ONNX operators) and contrib_shapes.cc
// (com.microsoft operators built on them: FusedConv, FusedMatMul, the normalization
// fusions). Defined in nn_shapes.cc.

#include <cstddef>
#include <cstdint>

#include "onnx_extensions/shapes/shape_helpers.h"

namespace onnxopt::onnx_shapes {

// Output of a convolution (Conv attributes: kernel_shape, strides, dilations, pads,
// auto_pad, group) with data input `x` and weight input `w`: [N, M, spatial...], with
// element type `elem_type`. Unknown rank when the rank of X is unknown; a channel count
// provably different from W's is diagnosed and gives an unknown tensor.
SymTensor ConvOutput(InferenceContext& ctx, std::size_t x, std::size_t w, int elem_type);

// Shape of numpy matmul(a, b): 1-D promotion, broadcast batch dims. Provably different
// inner dims or a scalar operand are diagnosed and give an unknown rank.
SymShape MatMulShape(InferenceContext& ctx, const SymShape& a, const SymShape& b);

// `x` with dims [axis, rank) replaced by 1 (the statistics of LayerNormalization).
// Unknown rank when x's rank is unknown or axis is out of range (diagnosed).
SymShape KeepLeadingDims(InferenceContext& ctx, const SymShape& x, std::int64_t axis);

}  // namespace onnxopt::onnx_shapes
