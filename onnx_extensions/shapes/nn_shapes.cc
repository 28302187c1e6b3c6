// Shape functions of the neural-network operators of the default domain: convolutions,
// pooling, resizing, normalizations, Softmax family, Gemm/MatMul/Einsum, recurrent
// networks, quantization, Attention, sampling and detection operators.
//
// Window sizes follow the formulas of the specification where it agrees with
// onnxruntime; where they differ (pooling with ceil_mode, SAME padding with dilations,
// Resize rounding), a dimension is given only when both agree, otherwise it is unknown.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/nn_helpers.h"
#include "onnx_extensions/shapes/shape_groups.h"
#include "onnx_extensions/shapes/shape_helpers.h"
#include "onnx_extensions/shapes/shape_rules.h"

namespace onnxopt::onnx_shapes {

namespace {

using core::shapes::RegisterShapeFunction;

constexpr int kFloat = TensorProto::FLOAT;
constexpr int kUint8 = TensorProto::UINT8;
constexpr int kInt32 = TensorProto::INT32;
constexpr int kInt64 = TensorProto::INT64;



// Integer-list attribute of length n (one value per spatial axis, two for pads), `fill`
// when absent. Another length refuses the node.
std::vector<std::int64_t> IntsOfLength(InferenceContext& ctx, std::string_view name, std::size_t n,
                                       std::int64_t fill, std::string_view per = "one per spatial axis") {
  auto v = ctx.IntsAttribute(name);
  if (!v) return std::vector<std::int64_t>(n, fill);
  RequireCount(ctx, name, v->size(), n, per);
  return *v;
}

std::string AutoPad(const InferenceContext& ctx) {
  RequireOneOf(ctx, "auto_pad", {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", ""});
  auto a = ctx.StringAttribute("auto_pad");
  if (!a || a->empty()) return "NOTSET";
  return *a;
}

// kernel_shape (when given): one value >= 1 per spatial axis.
std::optional<std::vector<std::int64_t>> KernelShape(InferenceContext& ctx, std::size_t n) {
  auto ks = ctx.IntsAttribute("kernel_shape");
  if (!ks) return std::nullopt;
  RequireCount(ctx, "kernel_shape", ks->size(), n, "one per spatial axis");
  RequireAtLeast(ctx, "kernel_shape", *ks, 1);
  return ks;
}

// ---------------------------------------------------------------------------------------
// Sliding windows (Conv, pooling)

struct Window {
  std::vector<SymDim> kernel;  // per spatial axis, may be symbolic or unknown
  std::vector<std::int64_t> strides, dilations, pads;  // pads: begins then ends
  std::string auto_pad;
  bool ceil_mode = false;
  bool pooling = false;
};

// Reads strides, dilations, pads, auto_pad and ceil_mode for n spatial axes. The
// specification requires strides and dilations >= 1, pads >= 0: anything else refuses
// the node.
Window ReadWindow(InferenceContext& ctx, std::vector<SymDim> kernel, bool pooling) {
  const std::size_t n = kernel.size();
  Window w;
  w.kernel = std::move(kernel);
  w.pooling = pooling;
  w.strides = IntsOfLength(ctx, "strides", n, 1);
  w.dilations = IntsOfLength(ctx, "dilations", n, 1);
  w.pads = IntsOfLength(ctx, "pads", 2 * n, 0, "a begin and an end per spatial axis");
  RequireAtLeast(ctx, "strides", w.strides, 1);
  RequireAtLeast(ctx, "dilations", w.dilations, 1);
  RequireAtLeast(ctx, "pads", w.pads, 0);
  w.auto_pad = AutoPad(ctx);
  w.ceil_mode = FlagAttribute(ctx, "ceil_mode", false);
  return w;
}

// Output length of one spatial axis.
SymDim WindowOutDim(InferenceContext& ctx, const Window& w, std::size_t i, const SymDim& in) {
  const std::int64_t s = w.strides[i];
  const std::int64_t d = w.dilations[i];
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
    // onnxruntime's pooling pads with the undilated kernel, which gives less than the
    // specification's ceil(in / stride) when dilation > 1.
    if (w.pooling && d != 1) return SymDim::Unknown();
    return SymDim::CeilDiv(in, s);
  }
  std::int64_t pad_begin = 0;
  std::int64_t pad_end = 0;
  if (w.auto_pad == "NOTSET") {
    pad_begin = w.pads[i];
    pad_end = w.pads[i + w.kernel.size()];
  }
  const SymDim& k = w.kernel[i];
  if (k.IsUnknown() || in.IsUnknown()) return SymDim::Unknown();
  const SymDim dk = SymDim(d) * (k - SymDim(1)) + SymDim(1);
  // Attributes can hold any int64: sums and products of them go through SymDim, whose
  // overflow is an unknown dim.
  const SymDim span = in + SymDim(pad_begin) + SymDim(pad_end) - dk;
  if (auto c = span.Constant(); c && *c < 0) {
    ctx.Diagnose("the input spatial dimension " + in.ToString() + " is smaller than the kernel extent " +
                 dk.ToString());
    return SymDim::Unknown();
  }
  const SymDim floor_out = SymDim::FloorDiv(span, s) + SymDim(1);
  if (!w.ceil_mode || s == 1) return floor_out;
  const SymDim ceil_out = SymDim::CeilDiv(span, s) + SymDim(1);
  if (w.auto_pad == "VALID") {
    // The specification gives floor((in - dk) / s) + 1 for VALID even in ceil mode,
    // onnxruntime ceil((in - dk) / s) + 1: known only where they agree.
    return floor_out == ceil_out ? floor_out : SymDim::Unknown();
  }
  // A last window starting in the right padding is dropped by the specification. It can
  // only happen when pad_end + stride > dilated kernel.
  const auto last_start = ((ceil_out - SymDim(1)) * SymDim(s)).Constant();
  const auto padded_start_limit = (in + SymDim(pad_begin)).Constant();
  if (in.Constant() && ceil_out.Constant()) {
    if (!last_start || !padded_start_limit || *last_start >= *padded_start_limit)
      return SymDim::Unknown();  // implementations differ
    return ceil_out;
  }
  const auto cdk = dk.Constant();
  const auto reach = (SymDim(pad_end) + SymDim(s)).Constant();
  if (cdk && reach && *reach <= *cdk) return ceil_out;
  return SymDim::Unknown();
}

// The spatial dims of a sliding window over the spatial dims of x.
std::vector<SymDim> WindowOutDims(InferenceContext& ctx, const Window& w, const std::vector<SymDim>& x_dims) {
  std::vector<SymDim> out;
  for (std::size_t i = 0; i < w.kernel.size(); ++i) out.push_back(WindowOutDim(ctx, w, i, x_dims[i + 2]));
  return out;
}

std::vector<SymTensor> UnknownShapeOutputs(const InferenceContext& ctx, int elem_type) {
  return Outputs(ctx, UnknownTensor(elem_type));
}

// ---------------------------------------------------------------------------------------
// Convolutions

std::vector<SymTensor> InferConv(InferenceContext& ctx) {
  return Outputs(ctx, ConvOutput(ctx, 0, 1, InputElemType(ctx, 0)));
}

std::vector<SymTensor> InferConvInteger(InferenceContext& ctx) {
  return Outputs(ctx, ConvOutput(ctx, 0, 1, kInt32));
}

// CausalConvWithState (opset 27): output as the input [B, C, L]; present_state [B, C, k - 1]
// for a weight [C, 1, k].
std::vector<SymTensor> InferCausalConvWithState(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  const SymShape w = InputShape(ctx, 1);
  SymShape state;
  if (x.HasRank() && x.Rank() == 3 && w.HasRank() && w.Rank() == 3) state = SymShape({x[0], x[1], w[2] - SymDim(1)});
  return Outputs(ctx, {SymTensor::Tensor(type, x), SymTensor::Tensor(type, state)});
}

// LinearAttention (opset 27): output [B, T, Hq * dv], present_state [B, Hkv, dk, dv], where
// dk = query's last dim / Hq and dv = value's last dim / Hkv; the state takes past_state's
// type, the query's without it.
std::vector<SymTensor> InferLinearAttention(InferenceContext& ctx) {
  const SymShape query = InputShape(ctx, 0);
  const SymShape value = InputShape(ctx, 2);
  const std::optional<std::int64_t> q_heads = ctx.IntAttribute("q_num_heads");
  const std::optional<std::int64_t> kv_heads = ctx.IntAttribute("kv_num_heads");
  const int type = InputElemType(ctx, 0);
  const int state_type = ctx.HasInput(3) ? InputElemType(ctx, 3) : type;
  if (!q_heads || !kv_heads || *q_heads < 1 || *kv_heads < 1 || !query.HasRank() || query.Rank() != 3 ||
      !value.HasRank() || value.Rank() != 3)
    return Outputs(ctx, {UnknownTensor(type), UnknownTensor(state_type)});
  const SymDim dk = SymDim::ExactDiv(query[2], SymDim(*q_heads));
  const SymDim dv = SymDim::ExactDiv(value[2], SymDim(*kv_heads));
  return Outputs(ctx, {SymTensor::Tensor(type, SymShape({query[0], query[1], SymDim(*q_heads) * dv})),
                       SymTensor::Tensor(state_type, SymShape({query[0], SymDim(*kv_heads), dk, dv}))});
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B)
std::vector<SymTensor> InferQLinearConv(InferenceContext& ctx) {
  return Outputs(ctx, ConvOutput(ctx, 0, 3, InputElemType(ctx, 7)));
}

// ConvTranspose: out = stride*(in-1) + output_padding + dilated kernel - pads, or
// output_shape, or in*stride for SAME padding.
std::vector<SymTensor> InferConvTranspose(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  const SymShape wshape = InputShape(ctx, 1);
  if (!x.HasRank()) return UnknownShapeOutputs(ctx, type);
  const std::size_t rank = x.Rank();
  if (rank < 3) {
    ctx.Diagnose("ConvTranspose input must have rank >= 3, got " + std::to_string(rank));
    return UnknownOutputs(ctx);
  }
  const std::size_t n = rank - 2;
  if (wshape.HasRank() && wshape.Rank() != rank) {
    ctx.Diagnose("ConvTranspose weight rank " + std::to_string(wshape.Rank()) + " differs from the input rank " +
                 std::to_string(rank));
    return UnknownOutputs(ctx);
  }
  const std::int64_t group = ctx.IntAttribute("group").value_or(1);
  RequireAtLeast(ctx, "group", {group}, 1);
  std::vector<SymDim> dims(rank);
  dims[0] = x[0];
  if (wshape.HasRank()) dims[1] = wshape[1] * SymDim(group);

  std::vector<SymDim> kernel(n);
  if (auto ks = KernelShape(ctx, n)) {
    for (std::size_t i = 0; i < n; ++i) kernel[i] = SymDim((*ks)[i]);
  } else if (wshape.HasRank()) {
    for (std::size_t i = 0; i < n; ++i) kernel[i] = wshape[i + 2];
  }
  const Window window = ReadWindow(ctx, kernel, false);
  const std::vector<std::int64_t> output_padding = IntsOfLength(ctx, "output_padding", n, 0);
  RequireAtLeast(ctx, "output_padding", output_padding, 0);

  if (auto output_shape = ctx.IntsAttribute("output_shape")) {
    // onnxruntime also accepts the full shape; only the spatial form is unambiguous.
    if (output_shape->size() == n) {
      for (std::size_t i = 0; i < n; ++i) dims[i + 2] = SymDim((*output_shape)[i]);
    }
    return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const SymDim& in = x[i + 2];
    const SymDim& k = window.kernel[i];
    const std::int64_t s = window.strides[i];
    const std::int64_t adj = output_padding[i];
    const SymDim dk = SymDim(window.dilations[i]) * (k - SymDim(1)) + SymDim(1);
    if (window.auto_pad == "SAME_UPPER" || window.auto_pad == "SAME_LOWER") {
      // in*stride needs a non-negative total padding (onnxruntime clamps it at 0).
      const auto total = (SymDim(adj) + dk).Constant();
      if (total && *total >= s) dims[i + 2] = in * SymDim(s);
      continue;
    }
    SymDim pads(0);
    if (window.auto_pad == "NOTSET") pads = SymDim(window.pads[i]) + SymDim(window.pads[i + n]);
    dims[i + 2] = SymDim(s) * (in - SymDim(1)) + SymDim(adj) + dk - pads;
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// ---------------------------------------------------------------------------------------
// Pooling

// MaxPool, AveragePool, LpPool: [N, C, windows...]; MaxPool's Indices is int64 of the
// same shape.
std::vector<SymTensor> InferPool(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  if (!x.HasRank()) {
    std::vector<SymTensor> out = {UnknownTensor(type)};
    if (ctx.OutputCount() > 1) out.push_back(UnknownTensor(kInt64));
    return Outputs(ctx, std::move(out));
  }
  const std::size_t rank = x.Rank();
  if (rank < 3) {
    ctx.Diagnose("pooling input must have rank >= 3, got " + std::to_string(rank));
    return UnknownOutputs(ctx);
  }
  auto ks = KernelShape(ctx, rank - 2);
  if (!ks) return UnknownOutputs(ctx);  // required: the schema check refuses its absence
  std::vector<SymDim> kernel(ks->begin(), ks->end());
  const Window window = ReadWindow(ctx, kernel, true);
  std::vector<SymDim> dims = {x[0], x[1]};
  for (SymDim& d : WindowOutDims(ctx, window, x.Dims())) dims.push_back(std::move(d));
  std::vector<SymTensor> out = {SymTensor::Tensor(type, SymShape(dims))};
  if (ctx.OutputCount() > 1) out.push_back(SymTensor::Tensor(kInt64, SymShape(dims)));
  return Outputs(ctx, std::move(out));
}

// Global*Pool: [N, C, 1, ..., 1].
std::vector<SymTensor> InferGlobalPool(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  if (!x.HasRank()) return UnknownShapeOutputs(ctx, type);
  if (x.Rank() < 2) {
    ctx.Diagnose("global pooling input must have rank >= 2");
    return UnknownOutputs(ctx);
  }
  std::vector<SymDim> dims = {x[0], x[1]};
  dims.resize(x.Rank(), SymDim(1));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// MaxUnpool(X, I, output_shape?): output_shape's values, else stride*(in-1) + kernel - pads.
std::vector<SymTensor> InferMaxUnpool(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  if (ctx.HasInput(2)) {
    if (auto values = InputValues(ctx, 2)) return Outputs(ctx, SymTensor::Tensor(type, SymShape(*values)));
    if (const std::optional<std::size_t> rank = RankFromLength(ctx, 2))
      return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(*rank)));
    return UnknownShapeOutputs(ctx, type);
  }
  if (!x.HasRank() || x.Rank() < 3) return UnknownShapeOutputs(ctx, type);
  const std::size_t n = x.Rank() - 2;
  auto ks = KernelShape(ctx, n);
  const std::vector<std::int64_t> strides = IntsOfLength(ctx, "strides", n, 1);
  const std::vector<std::int64_t> pads = IntsOfLength(ctx, "pads", 2 * n, 0, "a begin and an end per spatial axis");
  RequireAtLeast(ctx, "strides", strides, 1);
  RequireAtLeast(ctx, "pads", pads, 0);
  if (!ks) return UnknownShapeOutputs(ctx, type);
  std::vector<SymDim> dims = {x[0], x[1]};
  for (std::size_t i = 0; i < n; ++i) {
    dims.push_back(SymDim(strides[i]) * (x[i + 2] - SymDim(1)) + SymDim((*ks)[i]) - SymDim(pads[i]) - SymDim(pads[i + n]));
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// ---------------------------------------------------------------------------------------
// Resize, Upsample

// floor(in * scale), known when in is a constant (computed in float as onnxruntime does
// and in double, kept only when both agree), or when scale is a non-negative integer, or
// 1/2^k (exact in floating point).
SymDim ScaledDim(const SymDim& in, double scale) {
  if (in.IsUnknown() || !(scale > 0) || !std::isfinite(scale)) return SymDim::Unknown();
  if (auto c = in.Constant()) {
    const float f = static_cast<float>(*c) * static_cast<float>(scale);
    const double d = static_cast<double>(*c) * scale;
    // A size beyond int64 (or a float product that overflows to inf) is left unknown: the
    // kernel refuses it when it runs.
    if (!(std::isfinite(f) && std::floor(f) < 0x1p63f && std::floor(d) < 0x1p63)) return SymDim::Unknown();
    const auto fi = static_cast<std::int64_t>(std::floor(f));
    const auto di = static_cast<std::int64_t>(std::floor(d));
    if (fi != di) return SymDim::Unknown();
    return SymDim(di);
  }
  if (scale == std::floor(scale) && scale < 1e6) return in * SymDim(static_cast<std::int64_t>(scale));
  const double inv = 1.0 / scale;
  if (inv == std::floor(inv) && inv < 1e6) {
    const auto k = static_cast<std::int64_t>(inv);
    if ((k & (k - 1)) == 0) return SymDim::FloorDiv(in, k);
  }
  return SymDim::Unknown();
}

// Output dims of Resize/Upsample from per-axis scales (one per entry of `axes`).
std::vector<SymDim> ScaledDims(const std::vector<SymDim>& in, const std::vector<std::int64_t>& axes,
                               const std::vector<double>& scales) {
  std::vector<SymDim> out = in;
  for (std::size_t i = 0; i < axes.size(); ++i) out[axes[i]] = ScaledDim(in[axes[i]], scales[i]);
  return out;
}

// keep_aspect_ratio_policy not_larger / not_smaller: scale = min/max(sizes[i]/in[d]),
// out[d] = round(scale * in[d]); only for constant dims where float and double agree.
std::vector<SymDim> AspectRatioDims(const std::vector<SymDim>& in, const std::vector<std::int64_t>& axes,
                                    const std::vector<SymDim>& sizes, bool not_larger) {
  std::vector<SymDim> out = in;
  for (std::int64_t a : axes) out[a] = SymDim::Unknown();
  std::optional<double> dscale;
  std::optional<float> fscale;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    auto s = sizes[i].Constant();
    auto d = in[axes[i]].Constant();
    if (!s || !d || *d <= 0) return out;
    const double r = static_cast<double>(*s) / static_cast<double>(*d);
    const float fr = static_cast<float>(*s) / static_cast<float>(*d);
    dscale = !dscale ? r : (not_larger ? std::min(*dscale, r) : std::max(*dscale, r));
    fscale = !fscale ? fr : (not_larger ? std::min(*fscale, fr) : std::max(*fscale, fr));
  }
  if (!dscale) return out;
  for (std::int64_t a : axes) {
    const double v = *dscale * static_cast<double>(*in[a].Constant());
    const float fv = *fscale * static_cast<float>(*in[a].Constant());
    const double frac = v - std::floor(v);
    if (std::abs(frac - 0.5) < 1e-3 || std::llround(v) != std::llround(static_cast<double>(fv))) continue;
    out[a] = SymDim(static_cast<std::int64_t>(std::llround(v)));
  }
  return out;
}

// Resize-10 (X, scales); Resize-11+ (X, roi, scales, sizes); axes and
// keep_aspect_ratio_policy since 18.
std::vector<SymTensor> InferResize(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  const bool v10 = ctx.OpsetVersion() < 11;
  const std::size_t scales_input = v10 ? 1 : 2;
  const std::size_t sizes_input = 3;
  const bool use_sizes = !v10 && ctx.HasInput(sizes_input);
  if (v10)
    RequireOneOf(ctx, "mode", {"nearest", "linear"});
  else
    RequireOneOf(ctx, "mode", {"nearest", "linear", "cubic"});
  RequireOneOf(ctx, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  RequireOneOf(ctx, "coordinate_transformation_mode",
               {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric",
                "tf_half_pixel_for_nn", "tf_crop_and_resize"});
  RequireOneOf(ctx, "keep_aspect_ratio_policy", {"stretch", "not_larger", "not_smaller"});
  if (use_sizes && ctx.HasInput(scales_input)) {
    // An empty scales tensor stands for "not given" (exporters of opset 11 and 12 write one).
    const SymShape scales_shape = InputShape(ctx, scales_input);
    if (scales_shape.HasRank() && scales_shape.Rank() == 1 && scales_shape[0].Constant().value_or(0) > 0)
      RefuseNode(ctx, "takes scales or sizes, not both", "scales of shape " + scales_shape.ToString() + " and sizes");
  }

  std::optional<std::vector<std::int64_t>> axes_attr;
  if (ctx.OpsetVersion() >= 18) axes_attr = ctx.IntsAttribute("axes");

  // The number of values of scales/sizes gives the rank when there is no axes attribute;
  // -1 when not known.
  std::int64_t count = -1;
  std::optional<std::vector<SymDim>> sizes;
  std::optional<std::vector<double>> scales;
  if (use_sizes) {
    sizes = InputValues(ctx, sizes_input);
    if (sizes) {
      count = static_cast<std::int64_t>(sizes->size());
      if (sizes->empty()) sizes.reset();  // the kernel reads an empty sizes as not given
    }
  } else {
    scales = InputConstantDoubles(ctx, scales_input);
    if (scales) {
      count = static_cast<std::int64_t>(scales->size());
      if (scales->empty()) scales.reset();
    }
  }
  if (count < 0) {
    const SymShape s = InputShape(ctx, use_sizes ? sizes_input : scales_input);
    if (s.HasRank() && s.Rank() == 1) count = s[0].Constant().value_or(-1);
  }
  if (count == 0) count = -1;  // an empty scales: sizes decide
  std::size_t rank = 0;
  if (x.HasRank()) rank = x.Rank();
  else if (!axes_attr && count > 0) rank = static_cast<std::size_t>(count);
  else return UnknownShapeOutputs(ctx, type);

  std::vector<std::int64_t> axes;
  if (axes_attr) {
    auto normalized = NormalizeAxes(ctx, *axes_attr, static_cast<std::int64_t>(rank));
    if (!normalized) return UnknownOutputs(ctx);
    axes = *normalized;
  } else {
    for (std::size_t i = 0; i < rank; ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (count > 0)
    RequireCount(ctx, use_sizes ? "sizes" : "scales", static_cast<std::size_t>(count), axes.size(),
                 axes_attr ? "one per axis of the axes attribute" : "one per input axis");
  std::vector<SymDim> in = x.HasRank() ? x.Dims() : SymShape::OfRank(rank).Dims();
  std::vector<SymDim> out = in;
  for (std::int64_t a : axes) out[a] = SymDim::Unknown();

  if (use_sizes) {
    if (sizes) {
      const std::string policy = ctx.StringAttribute("keep_aspect_ratio_policy").value_or("stretch");
      if (ctx.OpsetVersion() < 18 || policy == "stretch") {
        for (std::size_t i = 0; i < axes.size(); ++i) out[axes[i]] = (*sizes)[i];
      } else {
        out = AspectRatioDims(in, axes, *sizes, policy == "not_larger");
      }
    }
    return Outputs(ctx, SymTensor::Tensor(type, SymShape(out)));
  }
  // The specification scales the roi extent with tf_crop_and_resize; onnxruntime does not.
  const std::string mode = ctx.StringAttribute("coordinate_transformation_mode").value_or("half_pixel");
  if (scales && mode != "tf_crop_and_resize") out = ScaledDims(in, axes, *scales);
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(out)));
}

// Upsample-1 (height_scale/width_scale on NCHW), -7 (scales attribute), -9/-10 (scales input).
std::vector<SymTensor> InferUpsample(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  std::optional<std::vector<double>> scales;
  if (ctx.OpsetVersion() >= 9) {
    scales = InputConstantDoubles(ctx, 1);
  } else if (ctx.OpsetVersion() >= 7) {
    if (const AttributeProto* a = ctx.Attribute("scales")) scales = std::vector<double>(a->floats().begin(), a->floats().end());
  } else {
    auto h = ctx.FloatAttribute("height_scale");
    auto w = ctx.FloatAttribute("width_scale");
    if (h && w) scales = std::vector<double>{1.0, 1.0, *h, *w};
  }
  if (!scales && ctx.OpsetVersion() >= 9) {
    // Scales computed, or longer than inference keeps as a constant
    // (ShapesContext::KeepsConstant): their length is still one per axis.
    if (const std::optional<std::size_t> count = RankFromLength(ctx, 1)) {
      if (!x.HasRank()) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(*count)));
      RequireCount(ctx, "scales", *count, x.Rank(), "one per input axis");
    }
  }
  if (!x.HasRank()) {
    if (scales) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(scales->size())));
    return UnknownShapeOutputs(ctx, type);
  }
  if (!scales) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(x.Rank())));
  RequireCount(ctx, "scales", scales->size(), x.Rank(), "one per input axis");
  std::vector<std::int64_t> axes;
  for (std::size_t i = 0; i < x.Rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(ScaledDims(x.Dims(), axes, *scales))));
}

// ---------------------------------------------------------------------------------------
// Normalizations

// BatchNormalization: Y like X. The statistics outputs like the mean / var inputs: running
// mean and var (1, 2) and, before opset 14, saved mean and var (3, 4), at every version.
// They hold one value per channel, or per feature with spatial=0 (before opset 9), as the
// mean and var inputs do.
std::vector<SymTensor> InferBatchNormalization(InferenceContext& ctx) {
  std::vector<SymTensor> out = {TypeAndShape(ctx.Input(0))};
  for (std::size_t i = 1; i < ctx.OutputCount(); ++i) {
    if (ctx.Node().output(static_cast<int>(i)).empty()) out.push_back(SymTensor::Unknown());
    else out.push_back(TypeAndShape(ctx.Input(i % 2 == 1 ? 3 : 4)));  // mean, var, saved_mean, saved_var
  }
  return out;
}

// An axis attribute given explicitly is in [-r, r-1] (r the rank of input 0).
void CheckAxisAttribute(InferenceContext& ctx) {
  const SymShape x = InputShape(ctx, 0);
  if (auto axis = ctx.IntAttribute("axis"); axis && x.HasRank())
    NormalizeAxis(ctx, *axis, static_cast<std::int64_t>(x.Rank()));
}

// Softmax family, LpNormalization, RMSNormalization: Y like X.
std::vector<SymTensor> InferSameWithAxis(InferenceContext& ctx) {
  CheckAxisAttribute(ctx);
  return Outputs(ctx, TypeAndShape(ctx.Input(0)));
}

std::vector<SymTensor> InferLrn(InferenceContext& ctx) {
  if (auto size = ctx.IntAttribute("size")) RequireAtLeast(ctx, "size", {*size}, 1);
  return Outputs(ctx, TypeAndShape(ctx.Input(0)));
}

// LayerNormalization: Y like X; Mean and InvStdDev keep dims [0, axis) and have 1
// elsewhere, of type stash_type.
std::vector<SymTensor> InferLayerNormalization(InferenceContext& ctx) {
  CheckAxisAttribute(ctx);
  std::vector<SymTensor> out = {TypeAndShape(ctx.Input(0))};
  if (ctx.OutputCount() > 1) {
    const std::int64_t axis = ctx.IntAttribute("axis").value_or(-1);
    const int stash = static_cast<int>(ctx.IntAttribute("stash_type").value_or(kFloat));
    const SymTensor stat = SymTensor::Tensor(stash, KeepLeadingDims(ctx, InputShape(ctx, 0), axis));
    out.push_back(stat);
    if (ctx.OutputCount() > 2) out.push_back(stat);
  }
  return Outputs(ctx, std::move(out));
}

// ---------------------------------------------------------------------------------------
// Gemm, MatMul, Einsum

std::vector<SymTensor> InferGemm(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape a = InputShape(ctx, 0);
  const SymShape b = InputShape(ctx, 1);
  // A Gemm of other ranks is invalid whatever the dims (onnx's checker and every runtime
  // refuse it), where differing inner dims below are left to the run, as MatMul's.
  for (const SymShape* s : {&a, &b})
    if (s->HasRank() && s->Rank() != 2) RefuseNode(ctx, "takes 2-D A and B", "rank " + std::to_string(s->Rank()));
  const bool ta = ctx.IntAttribute("transA").value_or(0) != 0;
  const bool tb = ctx.IntAttribute("transB").value_or(0) != 0;
  SymDim m, ka, kb, n;
  if (a.HasRank()) {
    m = a[ta ? 1 : 0];
    ka = a[ta ? 0 : 1];
  }
  if (b.HasRank()) {
    kb = b[tb ? 1 : 0];
    n = b[tb ? 0 : 1];
  }
  if (SymDim::ProvablyDifferent(ka, kb)) {
    ctx.Diagnose("Gemm inner dimensions differ: " + ka.ToString() + " and " + kb.ToString());
    return UnknownOutputs(ctx);
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape({m, n})));
}

std::vector<SymTensor> InferMatMul(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(InputElemType(ctx, 0), MatMulShape(ctx, InputShape(ctx, 0), InputShape(ctx, 1))));
}

std::vector<SymTensor> InferMatMulInteger(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(kInt32, MatMulShape(ctx, InputShape(ctx, 0), InputShape(ctx, 1))));
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point)
std::vector<SymTensor> InferQLinearMatMul(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(InputElemType(ctx, 7), MatMulShape(ctx, InputShape(ctx, 0), InputShape(ctx, 3))));
}

// One operand of an Einsum equation: its labels, with '.' standing for the ellipsis.
struct EinsumTerm {
  std::string labels;
  bool ellipsis = false;
};

std::optional<EinsumTerm> ParseEinsumTerm(std::string_view text) {
  EinsumTerm t;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (t.ellipsis || text.substr(i, 3) != "...") return std::nullopt;
      t.ellipsis = true;
      t.labels.push_back('.');
      i += 2;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      t.labels.push_back(c);
    } else {
      return std::nullopt;
    }
  }
  return t;
}

constexpr std::string_view kEinsumSyntax =
    "equation is terms of letters and at most one '...', separated by commas, optionally followed by '->' and a term";

std::vector<SymTensor> InferEinsum(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  auto equation = ctx.StringAttribute("equation");
  if (!equation) return UnknownOutputs(ctx);  // required: the schema check refuses its absence
  std::string eq;
  for (char c : *equation) {
    if (c != ' ') eq.push_back(c);
  }
  const std::size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<EinsumTerm> terms;
  for (std::size_t start = 0;;) {
    const std::size_t comma = lhs.find(',', start);
    auto term = ParseEinsumTerm(std::string_view(lhs).substr(start, comma - start));
    if (!term) RefuseNode(ctx, kEinsumSyntax, "equation '" + *equation + "'");
    terms.push_back(*term);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.InputCount()) {
    RefuseNode(ctx, "equation has one term per input (" + std::to_string(ctx.InputCount()) + ")",
               "equation '" + *equation + "' with " + std::to_string(terms.size()));
  }
  // Dims of each label over all operands, and the ellipsis dims of each operand.
  std::map<char, std::vector<SymDim>> label_dims;
  std::map<char, int> label_count;
  std::vector<SymShape> ellipses;
  bool ellipsis_rank_known = true;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const EinsumTerm& t = terms[i];
    const SymShape s = InputShape(ctx, i);
    const std::size_t nlabels = t.labels.size() - (t.ellipsis ? 1 : 0);
    for (char c : t.labels) {
      if (c != '.') ++label_count[c];
    }
    if (!s.HasRank()) {
      for (char c : t.labels) {
        if (c != '.') label_dims[c].push_back(SymDim::Unknown());
      }
      if (t.ellipsis) ellipsis_rank_known = false;
      continue;
    }
    if (s.Rank() < nlabels || (!t.ellipsis && s.Rank() != nlabels)) {
      RefuseNode(ctx, "equation term " + std::to_string(i) + " has one letter per axis of input " + std::to_string(i),
                 std::to_string(nlabels) + " letters for rank " + std::to_string(s.Rank()));
    }
    const std::size_t nell = s.Rank() - nlabels;
    std::size_t dim = 0;
    for (char c : t.labels) {
      if (c == '.') {
        ellipses.push_back(SymShape(std::vector<SymDim>(s.Dims().begin() + dim, s.Dims().begin() + dim + nell)));
        dim += nell;
      } else {
        label_dims[c].push_back(s[dim++]);
      }
    }
  }
  // A label's dim is known when every occurrence is known and they are all equal.
  std::map<char, SymDim> label_dim;
  for (auto& [c, dims] : label_dims) {
    SymDim d = dims[0];
    for (const SymDim& other : dims) {
      if (SymDim::ProvablyDifferent(d, other) && d != SymDim(1) && other != SymDim(1)) {
        ctx.Diagnose(std::string("Einsum label '") + c + "' has different dimensions " + d.ToString() + " and " +
                     other.ToString());
        return UnknownOutputs(ctx);
      }
      if (!(d == other)) d = SymDim::Unknown();
    }
    label_dim[c] = d;
  }
  std::string out_labels;
  if (arrow != std::string::npos) {
    auto term = ParseEinsumTerm(std::string_view(eq).substr(arrow + 2));
    if (!term) RefuseNode(ctx, kEinsumSyntax, "equation '" + *equation + "'");
    out_labels = term->labels;
  } else {
    bool any_ellipsis = false;
    for (const EinsumTerm& t : terms) any_ellipsis = any_ellipsis || t.ellipsis;
    if (any_ellipsis) out_labels.push_back('.');
    bool lower = false;
    bool upper = false;
    for (auto& [c, n] : label_count) {  // std::map: sorted, as numpy's implicit mode
      if (n != 1) continue;
      out_labels.push_back(c);
      (c >= 'a' ? lower : upper) = true;
    }
    // numpy sorts upper case first, onnxruntime lower case first: only the rank is sure.
    if (lower && upper) {
      if (any_ellipsis && !ellipsis_rank_known) return Outputs(ctx, UnknownTensor(type));
      std::size_t rank = out_labels.size() - (any_ellipsis ? 1 : 0);
      if (any_ellipsis) {
        const SymShape b = BroadcastShapes(ctx, ellipses);
        if (!b.HasRank()) return Outputs(ctx, UnknownTensor(type));
        rank += b.Rank();
      }
      return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(rank)));
    }
  }
  std::vector<SymDim> dims;
  for (char c : out_labels) {
    if (c != '.') {
      auto it = label_dim.find(c);
      if (it == label_dim.end())
        RefuseNode(ctx, "output letters appear among the input terms", std::string("'") + c + "' in '" + *equation + "'");
      dims.push_back(it->second);
      continue;
    }
    if (!ellipsis_rank_known) return Outputs(ctx, UnknownTensor(type));
    const SymShape b = BroadcastShapes(ctx, ellipses);
    if (!b.HasRank()) return Outputs(ctx, UnknownTensor(type));
    for (const SymDim& d : b.Dims()) dims.push_back(d);
  }
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// ---------------------------------------------------------------------------------------
// Recurrent networks

// RNN/GRU/LSTM(X, W, R, ...): Y [seq, dirs, batch, hidden], Y_h (and LSTM's Y_c)
// [dirs, batch, hidden]; layout=1 (opset 14) puts batch first.
std::vector<SymTensor> InferRecurrent(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  const SymShape r = InputShape(ctx, 2);
  const bool batch_first = ctx.OpsetVersion() >= 14 && FlagAttribute(ctx, "layout", false);
  RequireOneOf(ctx, "direction", {"forward", "reverse", "bidirectional"});
  const std::string direction = ctx.StringAttribute("direction").value_or("forward");
  const std::int64_t dirs = direction == "bidirectional" ? 2 : 1;
  if (auto hidden_size = ctx.IntAttribute("hidden_size")) RequireAtLeast(ctx, "hidden_size", {*hidden_size}, 1);
  if (x.HasRank() && x.Rank() != 3) {
    ctx.Diagnose("the input of a recurrent network must be 3-D, got rank " + std::to_string(x.Rank()));
    return UnknownOutputs(ctx);
  }
  SymDim hidden;
  if (auto h = ctx.IntAttribute("hidden_size")) hidden = SymDim(*h);
  else if (r.HasRank() && r.Rank() == 3) hidden = r[2];
  SymDim seq, batch;
  if (x.HasRank()) {
    seq = x[batch_first ? 1 : 0];
    batch = x[batch_first ? 0 : 1];
  }
  std::vector<SymTensor> out;
  if (batch_first) {
    out.push_back(SymTensor::Tensor(type, SymShape({batch, seq, SymDim(dirs), hidden})));
    out.push_back(SymTensor::Tensor(type, SymShape({batch, SymDim(dirs), hidden})));
  } else {
    out.push_back(SymTensor::Tensor(type, SymShape({seq, SymDim(dirs), batch, hidden})));
    out.push_back(SymTensor::Tensor(type, SymShape({SymDim(dirs), batch, hidden})));
  }
  if (ctx.OutputCount() > 2) out.push_back(out[1]);  // LSTM's Y_c
  while (out.size() > ctx.OutputCount()) out.pop_back();
  return Outputs(ctx, std::move(out));
}

// ---------------------------------------------------------------------------------------
// Quantization

std::vector<SymTensor> InferQuantizeLinear(InferenceContext& ctx) {
  int type = kUint8;
  if (ctx.HasInput(2)) type = InputElemType(ctx, 2);
  if (ctx.OpsetVersion() >= 21) {
    if (auto t = ctx.IntAttribute("output_dtype"); t && *t != 0) type = static_cast<int>(*t);
  }
  return Outputs(ctx, SymTensor::Tensor(type, InputShape(ctx, 0)));
}

std::vector<SymTensor> InferDequantizeLinear(InferenceContext& ctx) {
  int type = kFloat;
  if (ctx.OpsetVersion() >= 19) type = InputElemType(ctx, 1);
  if (ctx.OpsetVersion() >= 23) {
    if (auto t = ctx.IntAttribute("output_dtype"); t && *t != 0) type = static_cast<int>(*t);
  }
  return Outputs(ctx, SymTensor::Tensor(type, InputShape(ctx, 0)));
}

std::vector<SymTensor> InferDynamicQuantizeLinear(InferenceContext& ctx) {
  return Outputs(ctx, std::vector<SymTensor>{SymTensor::Tensor(kUint8, InputShape(ctx, 0)),
                                             SymTensor::Tensor(kFloat, SymShape::Scalar()),
                                             SymTensor::Tensor(kUint8, SymShape::Scalar())});
}

// ---------------------------------------------------------------------------------------
// Attention (opset 23)

// Q, K, V are 4-D [batch, heads, seq, head_size] or 3-D [batch, seq, heads*head_size]
// (heads from q_num_heads / kv_num_heads). Outputs: Y, present_key, present_value
// [batch, kv_heads, past+kv_seq, head_size], qk_matmul_output [batch, q_heads, q_seq, total].
std::vector<SymTensor> InferAttention(InferenceContext& ctx) {
  const int qtype = InputElemType(ctx, 0);
  const int vtype = InputElemType(ctx, 2);
  const SymShape q = InputShape(ctx, 0);
  const SymShape k = InputShape(ctx, 1);
  const SymShape v = InputShape(ctx, 2);
  for (const SymShape* s : {&q, &k, &v}) {
    if (s->HasRank() && s->Rank() != 3 && s->Rank() != 4) {
      ctx.Diagnose("Attention Q, K and V must be 3-D or 4-D, got rank " + std::to_string(s->Rank()));
      return UnknownOutputs(ctx);
    }
  }
  const SymDim q_heads_attr = ctx.IntAttribute("q_num_heads") ? SymDim(*ctx.IntAttribute("q_num_heads")) : SymDim();
  const SymDim kv_heads_attr = ctx.IntAttribute("kv_num_heads") ? SymDim(*ctx.IntAttribute("kv_num_heads")) : SymDim();
  SymDim batch, q_heads, q_seq, kv_heads, kv_seq, head, v_head;
  if (q.HasRank()) {
    batch = q[0];
    q_heads = q.Rank() == 4 ? q[1] : q_heads_attr;
    q_seq = q.Rank() == 4 ? q[2] : q[1];
  }
  if (k.HasRank()) {
    kv_heads = k.Rank() == 4 ? k[1] : kv_heads_attr;
    kv_seq = k.Rank() == 4 ? k[2] : k[1];
    head = k.Rank() == 4 ? k[3] : SymDim::ExactDiv(k[2], kv_heads_attr);
  }
  if (v.HasRank()) v_head = v.Rank() == 4 ? v[3] : SymDim::ExactDiv(v[2], kv_heads_attr);
  if (kv_heads.IsUnknown() && v.HasRank() && v.Rank() == 4) kv_heads = v[1];
  SymDim total = kv_seq;
  if (ctx.HasInput(4)) {
    const SymShape past = InputShape(ctx, 4);
    total = past.HasRank() && past.Rank() == 4 ? past[2] + kv_seq : SymDim::Unknown();
  }
  std::vector<SymTensor> out;
  if (q.HasRank() && q.Rank() == 4) {
    out.push_back(SymTensor::Tensor(qtype, SymShape({batch, q_heads, q_seq, v_head})));
  } else if (q.HasRank()) {
    out.push_back(SymTensor::Tensor(qtype, SymShape({batch, q_seq, q_heads * v_head})));
  } else {
    out.push_back(UnknownTensor(qtype));
  }
  out.push_back(SymTensor::Tensor(qtype, SymShape({batch, kv_heads, total, head})));
  out.push_back(SymTensor::Tensor(vtype, SymShape({batch, kv_heads, total, v_head})));
  out.push_back(SymTensor::Tensor(qtype, SymShape({batch, q_heads, q_seq, total})));
  std::vector<SymTensor> result;
  for (std::size_t i = 0; i < ctx.OutputCount(); ++i) {
    const bool present = i < out.size() && !ctx.Node().output(static_cast<int>(i)).empty();
    result.push_back(present ? out[i] : SymTensor::Unknown());
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// Sampling, detection, image operators

// GridSample(X [N, C, D1..Dr], grid [N, D1_out..Dr_out, r]) -> [N, C, D1_out..Dr_out].
std::vector<SymTensor> InferGridSample(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  const SymShape grid = InputShape(ctx, 1);
  if (!grid.HasRank() || grid.Rank() < 3) {
    if (x.HasRank()) return Outputs(ctx, SymTensor::Tensor(type, SymShape::OfRank(x.Rank())));
    return UnknownShapeOutputs(ctx, type);
  }
  if (x.HasRank() && x.Rank() != grid.Rank()) {
    ctx.Diagnose("GridSample input rank " + std::to_string(x.Rank()) + " differs from the grid rank " +
                 std::to_string(grid.Rank()));
    return UnknownOutputs(ctx);
  }
  std::vector<SymDim> dims = {x.HasRank() ? x[0] : grid[0], x.HasRank() ? x[1] : SymDim()};
  for (std::size_t i = 1; i + 1 < grid.Rank(); ++i) dims.push_back(grid[i]);
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// RoiAlign(X, rois [num_rois, 4], batch_indices) -> [num_rois, C, output_height, output_width].
std::vector<SymTensor> InferRoiAlign(InferenceContext& ctx) {
  const SymShape x = InputShape(ctx, 0);
  const SymShape rois = InputShape(ctx, 1);
  const SymShape indices = InputShape(ctx, 2);
  SymDim n;
  if (rois.HasRank() && rois.Rank() == 2) n = rois[0];
  else if (indices.HasRank() && indices.Rank() == 1) n = indices[0];
  const SymDim c = x.HasRank() && x.Rank() == 4 ? x[1] : SymDim();
  return Outputs(ctx, SymTensor::Tensor(InputElemType(ctx, 0),
                                        SymShape({n, c, SymDim(ctx.IntAttribute("output_height").value_or(1)),
                                                  SymDim(ctx.IntAttribute("output_width").value_or(1))})));
}

// NonMaxSuppression: [selected (data dependent), 3] int64.
std::vector<SymTensor> InferNonMaxSuppression(InferenceContext& ctx) {
  return Outputs(ctx, SymTensor::Tensor(kInt64, SymShape({ctx.FreshSymbol(), SymDim(3)})));
}

// AffineGrid(theta, size = [N, C, H, W] or [N, C, D, H, W]) -> [N, H, W, 2] / [N, D, H, W, 3].
std::vector<SymTensor> InferAffineGrid(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  std::optional<std::vector<SymDim>> size = InputValues(ctx, 1);
  std::optional<std::int64_t> n;
  if (size) n = static_cast<std::int64_t>(size->size());
  else if (SymShape s = InputShape(ctx, 1); s.HasRank() && s.Rank() == 1) n = s[0].Constant();
  if (!n) return UnknownShapeOutputs(ctx, type);
  if (*n != 4 && *n != 5) {
    ctx.Diagnose("AffineGrid size must have 4 or 5 values, got " + std::to_string(*n));
    return UnknownOutputs(ctx);
  }
  std::vector<SymDim> dims(static_cast<std::size_t>(*n) - 1);
  if (size) {
    dims[0] = (*size)[0];
    for (std::size_t i = 2; i < size->size(); ++i) dims[i - 1] = (*size)[i];
  }
  if (dims[0].IsUnknown()) {
    if (SymShape theta = InputShape(ctx, 0); theta.HasRank() && theta.Rank() == 3) dims[0] = theta[0];
  }
  dims.push_back(SymDim(*n - 2));
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// CenterCropPad(X, shape): the dims of `axes` become `shape`, others unchanged.
std::vector<SymTensor> InferCenterCropPad(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  if (!x.HasRank()) return UnknownShapeOutputs(ctx, type);
  std::vector<std::int64_t> axes;
  if (auto a = ctx.IntsAttribute("axes")) {
    auto normalized = NormalizeAxes(ctx, *a, static_cast<std::int64_t>(x.Rank()));
    if (!normalized) return UnknownOutputs(ctx);
    axes = *normalized;
  } else {
    for (std::size_t i = 0; i < x.Rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  std::vector<SymDim> dims = x.Dims();
  auto shape = InputValues(ctx, 1);
  if (shape && shape->size() != axes.size()) {
    ctx.Diagnose("CenterCropPad shape has " + std::to_string(shape->size()) + " values, expected " +
                 std::to_string(axes.size()));
    return UnknownOutputs(ctx);
  }
  for (std::size_t i = 0; i < axes.size(); ++i) dims[axes[i]] = shape ? (*shape)[i] : SymDim();
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

// Col2Im(input [N, C*prod(block), L], image_shape, block_shape) -> [N, C, image_shape...].
std::vector<SymTensor> InferCol2Im(InferenceContext& ctx) {
  const int type = InputElemType(ctx, 0);
  const SymShape x = InputShape(ctx, 0);
  auto image = InputValues(ctx, 1);
  auto block = InputValues(ctx, 2);
  std::optional<std::size_t> n;
  if (image) n = image->size();
  else if (block) n = block->size();
  if (!n) return UnknownShapeOutputs(ctx, type);
  std::vector<SymDim> dims(*n + 2);
  if (x.HasRank() && x.Rank() == 3) {
    dims[0] = x[0];
    if (block) dims[1] = SymDim::ExactDiv(x[1], DimProduct(*block, 0, block->size()));
  }
  for (std::size_t i = 0; image && i < *n; ++i) dims[i + 2] = (*image)[i];
  return Outputs(ctx, SymTensor::Tensor(type, SymShape(dims)));
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Shared with contrib_shapes.cc

SymTensor ConvOutput(InferenceContext& ctx, std::size_t xi, std::size_t wi, int elem_type) {
  const SymShape x = InputShape(ctx, xi);
  const SymShape w = InputShape(ctx, wi);
  std::optional<std::size_t> rank;
  if (x.HasRank()) rank = x.Rank();
  else if (w.HasRank()) rank = w.Rank();
  if (!rank) return UnknownTensor(elem_type);
  if (*rank < 3) {
    ctx.Diagnose("convolution input must have rank >= 3, got " + std::to_string(*rank));
    return SymTensor::Unknown();
  }
  if (x.HasRank() && w.HasRank() && x.Rank() != w.Rank()) {
    ctx.Diagnose("convolution weight rank " + std::to_string(w.Rank()) + " differs from the input rank " +
                 std::to_string(x.Rank()));
    return SymTensor::Unknown();
  }
  const std::size_t n = *rank - 2;
  const std::int64_t group = ctx.IntAttribute("group").value_or(1);
  RequireAtLeast(ctx, "group", {group}, 1);
  std::vector<SymDim> kernel(n);
  if (auto ks = KernelShape(ctx, n)) {
    for (std::size_t i = 0; i < n; ++i) kernel[i] = SymDim((*ks)[i]);
  } else if (w.HasRank()) {
    for (std::size_t i = 0; i < n; ++i) kernel[i] = w[i + 2];
  }
  const Window window = ReadWindow(ctx, kernel, false);
  if (x.HasRank() && w.HasRank() && SymDim::ProvablyDifferent(x[1], w[1] * SymDim(group))) {
    ctx.Diagnose("the input has " + x[1].ToString() + " channels, the weight expects " +
                 (w[1] * SymDim(group)).ToString());
    return SymTensor::Unknown();
  }
  std::vector<SymDim> dims = {x.HasRank() ? x[0] : SymDim(), w.HasRank() ? w[0] : SymDim()};
  for (std::size_t i = 0; i < n; ++i) {
    dims.push_back(x.HasRank() ? WindowOutDim(ctx, window, i, x[i + 2]) : SymDim());
  }
  return SymTensor::Tensor(elem_type, SymShape(dims));
}

SymShape MatMulShape(InferenceContext& ctx, const SymShape& a, const SymShape& b) {
  if (!a.HasRank() || !b.HasRank()) return SymShape();
  if (a.Rank() == 0 || b.Rank() == 0) {
    ctx.Diagnose("MatMul operands must have rank >= 1");
    return SymShape();
  }
  std::vector<SymDim> ad = a.Dims();
  std::vector<SymDim> bd = b.Dims();
  const bool a_vector = ad.size() == 1;
  const bool b_vector = bd.size() == 1;
  if (a_vector) ad.insert(ad.begin(), SymDim(1));
  if (b_vector) bd.push_back(SymDim(1));
  const SymDim& ka = ad[ad.size() - 1];
  const SymDim& kb = bd[bd.size() - 2];
  if (SymDim::ProvablyDifferent(ka, kb)) {
    ctx.Diagnose("MatMul inner dimensions differ: " + ka.ToString() + " and " + kb.ToString());
    return SymShape();
  }
  const SymShape batch = BroadcastShapes(ctx, {SymShape(std::vector<SymDim>(ad.begin(), ad.end() - 2)),
                                               SymShape(std::vector<SymDim>(bd.begin(), bd.end() - 2))});
  if (!batch.HasRank()) return SymShape();
  std::vector<SymDim> dims = batch.Dims();
  if (!a_vector) dims.push_back(ad[ad.size() - 2]);
  if (!b_vector) dims.push_back(bd[bd.size() - 1]);
  return SymShape(dims);
}

SymShape KeepLeadingDims(InferenceContext& ctx, const SymShape& x, std::int64_t axis) {
  if (!x.HasRank()) return SymShape();
  auto a = NormalizeAxis(ctx, axis, static_cast<std::int64_t>(x.Rank()));
  if (!a) return SymShape();
  std::vector<SymDim> dims = x.Dims();
  for (std::size_t i = static_cast<std::size_t>(*a); i < dims.size(); ++i) dims[i] = SymDim(1);
  return SymShape(dims);
}

void RegisterNnShapes() {
  auto reg = [](std::string_view op, ShapeFunction fn) { RegisterShapeFunction("", op, std::move(fn)); };
  reg("Conv", InferConv);
  reg("CausalConvWithState", InferCausalConvWithState);
  reg("LinearAttention", InferLinearAttention);
  reg("ConvInteger", InferConvInteger);
  reg("QLinearConv", InferQLinearConv);
  reg("ConvTranspose", InferConvTranspose);
  for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) reg(op, InferPool);
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) reg(op, InferGlobalPool);
  reg("MaxUnpool", InferMaxUnpool);
  reg("Resize", InferResize);
  reg("Upsample", InferUpsample);
  reg("BatchNormalization", InferBatchNormalization);
  reg("LayerNormalization", InferLayerNormalization);
  for (const char* op : {"InstanceNormalization", "GroupNormalization", "MeanVarianceNormalization", "RotaryEmbedding"})
    reg(op, SameAsInput(0));
  for (const char* op : {"RMSNormalization", "LpNormalization", "Softmax", "LogSoftmax", "Hardmax"})
    reg(op, InferSameWithAxis);
  reg("LRN", InferLrn);
  reg("Gemm", InferGemm);
  reg("MatMul", InferMatMul);
  reg("MatMulInteger", InferMatMulInteger);
  reg("QLinearMatMul", InferQLinearMatMul);
  reg("Einsum", InferEinsum);
  for (const char* op : {"RNN", "GRU", "LSTM"}) reg(op, InferRecurrent);
  reg("QuantizeLinear", InferQuantizeLinear);
  reg("DequantizeLinear", InferDequantizeLinear);
  reg("DynamicQuantizeLinear", InferDynamicQuantizeLinear);
  reg("Attention", InferAttention);
  reg("GridSample", InferGridSample);
  reg("RoiAlign", InferRoiAlign);
  reg("NonMaxSuppression", InferNonMaxSuppression);
  reg("AffineGrid", InferAffineGrid);
  reg("CenterCropPad", InferCenterCropPad);
  reg("Col2Im", InferCol2Im);
}

}  // namespace onnxopt::onnx_shapes
