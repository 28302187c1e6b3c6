// Tensor kernels: shape manipulation, indexing, scatter/gather, reductions.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Kernel;
using core::eval::RegisterKernel;

void Register(std::string_view op, Kernel kernel) { RegisterKernel("", op, std::move(kernel)); }

template <class T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

Tensor Int64Tensor(const Shape& shape, const std::vector<std::int64_t>& values) {
  Tensor t(TensorProto::INT64, shape);
  std::copy(values.begin(), values.end(), t.MutableData<std::int64_t>());
  return t;
}

// out[i] = src[offset + sum(index_d * strides_d)] for every index of out_shape (row-major).
template <class T>
void StridedCopy(const T* src, T* dst, const Shape& out_shape, const Shape& strides, std::int64_t offset) {
  const std::int64_t total = ShapeSize(out_shape);
  if (total == 0) return;
  const std::size_t rank = out_shape.size();
  if (rank == 0) {
    dst[0] = src[offset];
    return;
  }
  Shape index(rank, 0);
  std::int64_t pos = offset;
  const std::int64_t inner = out_shape[rank - 1], inner_stride = strides[rank - 1];
  for (std::int64_t i = 0; i < total; i += inner) {
    for (std::int64_t j = 0; j < inner; ++j) dst[i + j] = src[pos + j * inner_stride];
    for (std::size_t d = rank - 1; d-- > 0;) {
      ++index[d];
      pos += strides[d];
      if (index[d] < out_shape[d]) break;
      pos -= strides[d] * index[d];
      index[d] = 0;
    }
  }
}

Tensor StridedView(const Tensor& x, const Shape& out_shape, const Shape& strides, std::int64_t offset) {
  return DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), out_shape);
    StridedCopy(x.Data<T>(), out.MutableData<T>(), out_shape, strides, offset);
    return out;
  });
}

Tensor TransposeTensor(const Tensor& x, const std::vector<std::int64_t>& perm) {
  Shape in_strides = Strides(x.shape());
  Shape shape(perm.size()), strides(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    shape[i] = x.shape()[static_cast<std::size_t>(perm[i])];
    strides[i] = in_strides[static_cast<std::size_t>(perm[i])];
  }
  return StridedView(x, shape, strides, 0);
}

// Shapes ------------------------------------------------------------------------------

std::vector<Value> ShapeKernel(KernelContext& ctx) {
  const Shape& shape = ctx.TensorInput(0).shape();
  const auto rank = static_cast<std::int64_t>(shape.size());
  auto clamp = [&](std::int64_t v) { return std::clamp(v < 0 ? v + rank : v, std::int64_t{0}, rank); };
  const std::int64_t start = clamp(ctx.IntAttribute("start").value_or(0));
  const std::int64_t end = clamp(ctx.IntAttribute("end").value_or(rank));
  std::vector<std::int64_t> dims;
  for (std::int64_t i = start; i < end; ++i) dims.push_back(shape[static_cast<std::size_t>(i)]);
  return {Int64Tensor({static_cast<std::int64_t>(dims.size())}, dims)};
}

std::vector<Value> SizeKernel(KernelContext& ctx) {
  return {Int64Tensor({}, {ctx.TensorInput(0).size()})};
}

std::vector<Value> ReshapeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  std::vector<std::int64_t> shape =
      ctx.OpsetVersion() < 5 ? ctx.IntsAttribute("shape").value_or(std::vector<std::int64_t>{}) : InputInts(ctx, 1);
  const bool allowzero = ctx.IntAttribute("allowzero").value_or(0) != 0;
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x.rank()) Fail("a 0 in the shape refers to a missing input dim " + std::to_string(i));
      shape[i] = x.shape()[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) Fail("the shape has more than one -1");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      Fail("the shape has a negative dim " + std::to_string(shape[i]));
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.size() % known != 0)
      Fail("cannot reshape " + x.Describe() + " to " + ShapeToString(shape));
    shape[static_cast<std::size_t>(infer)] = x.size() / known;
  }
  if (ShapeSize(shape) != x.size()) Fail("cannot reshape " + x.Describe() + " to " + ShapeToString(shape));
  return {x.Reshaped(shape)};
}

std::vector<Value> FlattenKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::int64_t axis = ctx.IntAttribute("axis").value_or(1);
  if (axis < -rank || axis > rank) Fail("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= x.shape()[static_cast<std::size_t>(i)];
  return {x.Reshaped({outer, inner})};
}

std::vector<std::int64_t> AxesFromAttrOrInput(KernelContext& ctx, std::int64_t input_since, std::size_t input) {
  if (ctx.OpsetVersion() < input_since) return ctx.IntsAttribute("axes").value_or(std::vector<std::int64_t>{});
  return OptionalInputInts(ctx, input).value_or(std::vector<std::int64_t>{});
}

std::vector<Value> SqueezeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  auto axes = NormalizeAxes(AxesFromAttrOrInput(ctx, 13, 1), rank);
  Shape shape;
  for (std::int64_t i = 0; i < rank; ++i) {
    const std::int64_t d = x.shape()[static_cast<std::size_t>(i)];
    const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
    if (listed && d != 1) Fail("cannot squeeze axis " + std::to_string(i) + " of size " + std::to_string(d));
    if (axes.empty() ? d != 1 : !listed) shape.push_back(d);
  }
  return {x.Reshaped(shape)};
}

std::vector<Value> UnsqueezeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  auto raw = AxesFromAttrOrInput(ctx, 13, 1);
  const auto out_rank = static_cast<std::int64_t>(x.rank() + raw.size());
  auto axes = NormalizeAxes(raw, out_rank);
  Shape shape;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < out_rank; ++i) {
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) shape.push_back(1);
    else shape.push_back(x.shape()[next++]);
  }
  return {x.Reshaped(shape)};
}

std::vector<Value> TransposeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::vector<std::int64_t> perm = ctx.IntsAttribute("perm").value_or(std::vector<std::int64_t>{});
  if (perm.empty()) {
    for (std::int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<std::int64_t>(perm.size()) != rank) Fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  perm = NormalizeAxes(perm, rank, "perm");
  return {TransposeTensor(x, perm)};
}

Tensor ExpandTo(const Tensor& x, const Shape& shape) {
  return StridedView(x, shape, BroadcastStrides(x.shape(), shape), 0);
}

std::vector<Value> ExpandKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  Shape shape = BroadcastShapes({x.shape(), InputInts(ctx, 1)});
  return {ExpandTo(x, shape)};
}

std::vector<Value> TileKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  auto repeats = InputInts(ctx, 1);
  if (repeats.size() != x.rank()) Fail("repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(x.rank()));
  // View x as [1, d0, 1, d1, ...] broadcast to [r0, d0, r1, d1, ...].
  Shape in_shape, out_shape, final_shape;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (repeats[i] < 0) Fail("repeats must not be negative");
    in_shape.insert(in_shape.end(), {1, x.shape()[i]});
    out_shape.insert(out_shape.end(), {repeats[i], x.shape()[i]});
    final_shape.push_back(repeats[i] * x.shape()[i]);
  }
  Tensor y = StridedView(x, out_shape, BroadcastStrides(in_shape, out_shape), 0);
  return {y.Reshaped(final_shape)};
}

Tensor ConcatTensors(const std::vector<Tensor>& inputs, std::int64_t axis_attr) {
  const Tensor& first = inputs.at(0);
  const auto rank = static_cast<std::int64_t>(first.rank());
  const auto axis = static_cast<std::size_t>(NormalizeAxis(axis_attr, rank));
  Shape shape = first.shape();
  shape[axis] = 0;
  for (const auto& t : inputs) {
    if (t.elem_type() != first.elem_type()) Fail("Concat inputs have different element types");
    if (t.rank() != first.rank()) Fail("Concat inputs have different ranks");
    for (std::size_t d = 0; d < t.rank(); ++d)
      if (d != axis && t.shape()[d] != first.shape()[d])
        Fail("Concat inputs " + t.Describe() + " and " + first.Describe() + " differ outside the axis");
    shape[axis] += t.shape()[axis];
  }
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= shape[d];
  std::int64_t inner = 1;
  for (std::size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  return DispatchStorage(first.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(first.elem_type(), shape);
    T* dst = out.MutableData<T>();
    const std::int64_t row = shape[axis] * inner;
    std::int64_t col = 0;
    for (const auto& t : inputs) {
      const T* src = t.Data<T>();
      const std::int64_t chunk = t.shape()[axis] * inner;
      for (std::int64_t o = 0; o < outer; ++o)
        std::copy(src + o * chunk, src + (o + 1) * chunk, dst + o * row + col);
      col += chunk;
    }
    return out;
  });
}

std::vector<Value> ConcatKernel(KernelContext& ctx) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < ctx.InputCount(); ++i)
    if (ctx.HasInput(i)) inputs.push_back(ctx.TensorInput(i));
  auto axis = ctx.IntAttribute("axis");
  if (!axis) Fail("attribute axis is required");
  return {ConcatTensors(inputs, *axis)};
}

// Slice [start, start + len) of `axis`.
Tensor SliceAxis(const Tensor& x, std::size_t axis, std::int64_t start, std::int64_t len) {
  Shape shape = x.shape();
  shape[axis] = len;
  Shape strides = Strides(x.shape());
  return StridedView(x, shape, strides, start * strides[axis]);
}

std::vector<Value> SplitKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.rank())));
  const std::int64_t dim = x.shape()[axis];
  std::vector<std::int64_t> split;
  if (ctx.OpsetVersion() >= 13 || (ctx.OpsetVersion() < 2 && ctx.HasInput(1))) {
    if (ctx.HasInput(1)) split = InputInts(ctx, 1);
  } else {
    split = ctx.IntsAttribute("split").value_or(std::vector<std::int64_t>{});
  }
  const auto n = static_cast<std::int64_t>(ctx.OutputCount());
  if (split.empty()) {
    if (auto num = ctx.IntAttribute("num_outputs")) {
      const std::int64_t chunk = (dim + *num - 1) / *num;
      for (std::int64_t i = 0; i < *num; ++i) split.push_back(std::max<std::int64_t>(0, std::min(chunk, dim - i * chunk)));
    } else {
      if (dim % n != 0) Fail("dim " + std::to_string(dim) + " cannot be split evenly into " + std::to_string(n) + " outputs");
      split.assign(static_cast<std::size_t>(n), dim / n);
    }
  }
  if (std::accumulate(split.begin(), split.end(), std::int64_t{0}) != dim)
    Fail("split sizes do not add up to dim " + std::to_string(dim));
  std::vector<Value> out;
  std::int64_t start = 0;
  for (auto len : split) {
    out.push_back(SliceAxis(x, axis, start, len));
    start += len;
  }
  return out;
}

std::vector<Value> SliceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (ctx.OpsetVersion() < 10) {
    starts = ctx.IntsAttribute("starts").value_or(std::vector<std::int64_t>{});
    ends = ctx.IntsAttribute("ends").value_or(std::vector<std::int64_t>{});
    axes = ctx.IntsAttribute("axes").value_or(std::vector<std::int64_t>{});
  } else {
    starts = InputInts(ctx, 1);
    ends = InputInts(ctx, 2);
    axes = OptionalInputInts(ctx, 3).value_or(std::vector<std::int64_t>{});
    steps = OptionalInputInts(ctx, 4).value_or(std::vector<std::int64_t>{});
  }
  if (ends.size() != starts.size()) Fail("starts and ends have different lengths");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) Fail("axes or steps length differs from starts");
  axes = NormalizeAxes(axes, rank);
  Shape shape = x.shape();
  Shape in_strides = Strides(x.shape());
  Shape strides = in_strides;
  std::int64_t offset = 0;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(axes[i]);
    const std::int64_t dim = x.shape()[a], step = steps[i];
    if (step == 0) Fail("slice step cannot be 0");
    std::int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    std::int64_t len;
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      len = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<std::int64_t>(s, -1, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      len = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    shape[a] = len;
    strides[a] = in_strides[a] * step;
    if (len > 0) offset += s * in_strides[a];
  }
  return {StridedView(x, shape, strides, offset)};
}

// Pad ---------------------------------------------------------------------------------

std::vector<Value> PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::string mode = ctx.StringAttribute("mode").value_or("constant");
  std::vector<std::int64_t> pads;
  double value = 0;
  bool has_value = false;
  if (ctx.OpsetVersion() < 11) {
    pads = ctx.IntsAttribute(ctx.OpsetVersion() < 2 ? "paddings" : "pads").value_or(std::vector<std::int64_t>{});
    value = ctx.FloatAttribute("value").value_or(0.0f);
    has_value = true;
  } else {
    pads = InputInts(ctx, 1);
    if (ctx.HasInput(2) && ctx.TensorInput(2).size() > 0) has_value = true;
  }
  std::vector<std::int64_t> axes;
  if (ctx.OpsetVersion() >= 18 && ctx.HasInput(3)) axes = NormalizeAxes(InputInts(ctx, 3), rank);
  else
    for (std::int64_t i = 0; i < rank; ++i) axes.push_back(i);
  if (pads.size() != 2 * axes.size()) Fail("pads has " + std::to_string(pads.size()) + " entries for " + std::to_string(axes.size()) + " axes");
  Shape begin(x.rank(), 0), end(x.rank(), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    begin[static_cast<std::size_t>(axes[i])] = pads[i];
    end[static_cast<std::size_t>(axes[i])] = pads[i + axes.size()];
  }
  Shape shape(x.rank());
  for (std::size_t d = 0; d < x.rank(); ++d) {
    shape[d] = x.shape()[d] + begin[d] + end[d];
    if (shape[d] < 0) Fail("pads make dim " + std::to_string(d) + " negative");
    if (mode != "constant" && x.shape()[d] == 0 && shape[d] > 0) Fail("cannot pad an empty dim in mode " + mode);
  }
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") Fail("unknown Pad mode " + mode);
  Tensor xc = x;
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    T fill{};
    if constexpr (!std::is_same_v<T, std::string>) {
      if (has_value) {
        if (ctx.OpsetVersion() < 11) {
          if constexpr (std::is_arithmetic_v<T>) fill = static_cast<T>(value);
        } else {
          const Tensor& cv = ctx.TensorInput(2);
          if (cv.elem_type() != x.elem_type()) Fail("constant_value has another type than the data");
          fill = cv.Data<T>()[0];
        }
      }
    } else {
      if (has_value && ctx.OpsetVersion() >= 11) fill = ctx.TensorInput(2).Data<std::string>()[0];
    }
    const T* src = xc.Data<T>();
    T* dst = out.MutableData<T>();
    Shape in_strides = Strides(x.shape());
    const std::size_t r = shape.size();
    Shape index(r, 0);
    const std::int64_t total = out.size();
    for (std::int64_t i = 0; i < total; ++i) {
      std::int64_t off = 0;
      bool outside = false;
      for (std::size_t d = 0; d < r; ++d) {
        std::int64_t k = index[d] - begin[d];
        const std::int64_t n = x.shape()[d];
        if (k < 0 || k >= n) {
          if (mode == "constant") {
            outside = true;
            break;
          } else if (mode == "edge") {
            k = k < 0 ? 0 : n - 1;
          } else if (mode == "wrap") {
            k = ((k % n) + n) % n;
          } else {  // reflect
            if (n == 1) {
              k = 0;
            } else {
              const std::int64_t period = 2 * (n - 1);
              k = ((k % period) + period) % period;
              if (k >= n) k = period - k;
            }
          }
        }
        off += k * in_strides[d];
      }
      dst[i] = outside ? fill : src[off];
      for (std::size_t d = r; d-- > 0;) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
    return out;
  })};
}

// Indexing ----------------------------------------------------------------------------

std::int64_t CheckIndex(std::int64_t i, std::int64_t dim) {
  if (i < -dim || i >= dim) Fail("index " + std::to_string(i) + " is out of range for a dim of size " + std::to_string(dim));
  return i < 0 ? i + dim : i;
}

std::vector<Value> GatherKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  auto indices = ctx.TensorInput(1).ToInt64Vector();
  const Shape& ishape = ctx.TensorInput(1).shape();
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.rank())));
  if (x.rank() == 0) Fail("Gather data must have rank >= 1");
  Shape shape(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), ishape.begin(), ishape.end());
  shape.insert(shape.end(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape().end());
  const std::int64_t dim = x.shape()[axis];
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (std::size_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  for (auto& i : indices) i = CheckIndex(i, dim);
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    const auto n = static_cast<std::int64_t>(indices.size());
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < n; ++k) {
        const T* from = src + (o * dim + indices[static_cast<std::size_t>(k)]) * inner;
        std::copy(from, from + inner, dst + (o * n + k) * inner);
      }
    return out;
  })};
}

// Calls f(flat index in data, flat index in indices) for GatherElements/ScatterElements.
template <class F>
void ForEachElementIndex(const Shape& data_shape, const Shape& ishape, const std::vector<std::int64_t>& indices,
                         std::size_t axis, F&& f) {
  Shape dstrides = Strides(data_shape);
  const std::size_t r = ishape.size();
  Shape index(r, 0);
  const std::int64_t total = ShapeSize(ishape);
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < r; ++d) {
      const std::int64_t k = d == axis ? CheckIndex(indices[static_cast<std::size_t>(i)], data_shape[d]) : index[d];
      off += k * dstrides[d];
    }
    f(off, i);
    for (std::size_t d = r; d-- > 0;) {
      if (++index[d] < ishape[d]) break;
      index[d] = 0;
    }
  }
}

std::vector<Value> GatherElementsKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  if (it.rank() != x.rank()) Fail("indices must have the rank of data");
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.rank())));
  auto indices = it.ToInt64Vector();
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), it.shape());
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    ForEachElementIndex(x.shape(), it.shape(), indices, axis, [&](std::int64_t d, std::int64_t i) { dst[i] = src[d]; });
    return out;
  })};
}

template <class T>
void Reduce(T& target, const T& v, const std::string& reduction) {
  if constexpr (std::is_same_v<T, std::string>) {
    target = v;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (reduction == "add" || reduction == "max") target = target || v;
    else if (reduction == "mul" || reduction == "min") target = target && v;
    else target = v;
  } else {
    if (reduction == "add") target = static_cast<T>(target + v);
    else if (reduction == "mul") target = static_cast<T>(target * v);
    else if (reduction == "max") target = std::max(target, v);
    else if (reduction == "min") target = std::min(target, v);
    else target = v;
  }
}

std::vector<Value> ScatterElementsKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  const Tensor& u_in = ctx.TensorInput(2);
  if (it.shape() != u_in.shape()) Fail("indices and updates have different shapes");
  if (it.rank() != x_in.rank()) Fail("indices must have the rank of data");
  const std::string reduction = ctx.StringAttribute("reduction").value_or("none");
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x_in.rank())));
  auto indices = it.ToInt64Vector();
  Tensor x = ToComputeType(x_in), u = ToComputeType(u_in);
  Tensor y = DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = x;
    T* dst = out.MutableData<T>();
    const T* up = u.Data<T>();
    ForEachElementIndex(x.shape(), it.shape(), indices, axis, [&](std::int64_t d, std::int64_t i) { Reduce(dst[d], up[i], reduction); });
    return out;
  });
  return {FromComputeType(y, x_in.elem_type())};
}

// Offsets (in elements of data) of the slices addressed by the last dim of `indices`.
struct NdIndex {
  Shape batch_shape;        // indices.shape[:-1]
  std::int64_t slice = 1;   // elements per addressed slice
  std::vector<std::int64_t> offsets;
};

NdIndex ResolveNd(const Shape& data, const Tensor& it, std::int64_t batch_dims) {
  if (it.rank() == 0) Fail("indices must have rank >= 1");
  const auto k = it.shape().back();
  const auto b = static_cast<std::size_t>(batch_dims);
  if (static_cast<std::size_t>(k) + b > data.size()) Fail("the last dim of indices is too large for the data rank");
  NdIndex r;
  r.batch_shape.assign(it.shape().begin(), it.shape().end() - 1);
  for (std::size_t d = b + static_cast<std::size_t>(k); d < data.size(); ++d) r.slice *= data[d];
  Shape strides = Strides(data);
  auto idx = it.ToInt64Vector();
  const std::int64_t count = ShapeSize(r.batch_shape);
  std::int64_t per_batch = 1;
  for (std::size_t d = b; d < r.batch_shape.size(); ++d) per_batch *= r.batch_shape[d];
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t off = 0;
    // Batch position: the first b dims of indices match the first b dims of data.
    std::int64_t batch = per_batch ? i / per_batch : 0;
    for (std::size_t d = b; d-- > 0;) {
      off += (batch % data[d]) * strides[d];
      batch /= data[d];
    }
    for (std::int64_t j = 0; j < k; ++j) {
      const auto dd = b + static_cast<std::size_t>(j);
      off += CheckIndex(idx[static_cast<std::size_t>(i * k + j)], data[dd]) * strides[dd];
    }
    r.offsets.push_back(off);
  }
  return r;
}

std::vector<Value> GatherNDKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  const std::int64_t b = ctx.IntAttribute("batch_dims").value_or(0);
  NdIndex nd = ResolveNd(x.shape(), it, b);
  Shape shape = nd.batch_shape;
  shape.insert(shape.end(), x.shape().begin() + b + it.shape().back(), x.shape().end());
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    for (std::size_t i = 0; i < nd.offsets.size(); ++i)
      std::copy(src + nd.offsets[i], src + nd.offsets[i] + nd.slice, dst + static_cast<std::int64_t>(i) * nd.slice);
    return out;
  })};
}

std::vector<Value> ScatterNDKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  const std::string reduction = ctx.StringAttribute("reduction").value_or("none");
  NdIndex nd = ResolveNd(x_in.shape(), it, 0);
  Tensor x = ToComputeType(x_in), u = ToComputeType(ctx.TensorInput(2));
  if (u.size() != static_cast<std::int64_t>(nd.offsets.size()) * nd.slice) Fail("updates have the wrong size");
  Tensor y = DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = x;
    T* dst = out.MutableData<T>();
    const T* up = u.Data<T>();
    for (std::size_t i = 0; i < nd.offsets.size(); ++i)
      for (std::int64_t j = 0; j < nd.slice; ++j)
        Reduce(dst[nd.offsets[i] + j], up[static_cast<std::int64_t>(i) * nd.slice + j], reduction);
    return out;
  });
  return {FromComputeType(y, x_in.elem_type())};
}

std::vector<Value> CompressKernel(KernelContext& ctx) {
  Tensor x = ctx.TensorInput(0);
  auto cond = ctx.TensorInput(1).ToInt64Vector();
  auto axis_attr = ctx.IntAttribute("axis");
  if (!axis_attr) x = x.Reshaped({x.size()});
  const auto axis = static_cast<std::size_t>(NormalizeAxis(axis_attr.value_or(0), static_cast<std::int64_t>(x.rank())));
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < cond.size() && static_cast<std::int64_t>(i) < x.shape()[axis]; ++i)
    if (cond[i]) parts.push_back(SliceAxis(x, axis, static_cast<std::int64_t>(i), 1));
  if (parts.empty()) return {SliceAxis(x, axis, 0, 0)};
  return {ConcatTensors(parts, static_cast<std::int64_t>(axis))};
}

// Generators --------------------------------------------------------------------------

std::vector<Value> RangeKernel(KernelContext& ctx) {
  const Tensor& s = ctx.TensorInput(0);
  return {DispatchNumeric(s.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T start = ctx.TensorInput(0).Data<T>()[0];
    const T limit = ctx.TensorInput(1).Data<T>()[0];
    const T delta = ctx.TensorInput(2).Data<T>()[0];
    if (delta == 0) Fail("Range delta cannot be 0");
    const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
    const auto count = static_cast<std::int64_t>(std::max(0.0, n));
    Tensor out(s.elem_type(), {count});
    T* p = out.MutableData<T>();
    for (std::int64_t i = 0; i < count; ++i) p[i] = static_cast<T>(start + static_cast<T>(i) * delta);
    return out;
  })};
}

std::vector<Value> ConstantOfShapeKernel(KernelContext& ctx) {
  Shape shape = InputInts(ctx, 0);
  auto value = ctx.TensorAttribute("value");
  Tensor v = value ? *value : Tensor(TensorProto::FLOAT, {1});
  if (v.size() != 1) Fail("value must have one element");
  return {ExpandTo(v.Reshaped({}), shape)};
}

std::vector<Value> EyeLikeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() != 2) Fail("EyeLike input must be 2-D");
  const int type = static_cast<int>(ctx.IntAttribute("dtype").value_or(x.elem_type()));
  const std::int64_t k = ctx.IntAttribute("k").value_or(0);
  Tensor out(type == TensorProto::FLOAT16 || type == TensorProto::BFLOAT16 ? TensorProto::FLOAT : type, x.shape());
  DispatchNumericOrBool(out.elem_type(), [&]<class T>(std::type_identity<T>) {
    T* p = out.MutableData<T>();
    for (std::int64_t i = 0; i < x.shape()[0]; ++i) {
      const std::int64_t j = i + k;
      if (j >= 0 && j < x.shape()[1]) p[i * x.shape()[1] + j] = T(1);
    }
    return 0;
  });
  return {FromComputeType(out, type)};
}

std::vector<Value> TriluKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 2) Fail("Trilu input must have rank >= 2");
  const bool upper = ctx.IntAttribute("upper").value_or(1) != 0;
  const std::int64_t k = ctx.HasInput(1) ? InputInts(ctx, 1).at(0) : 0;
  const std::int64_t rows = x.shape()[x.rank() - 2], cols = x.shape()[x.rank() - 1];
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = x;
    T* p = out.MutableData<T>();
    const std::int64_t matrix = rows * cols;
    const std::int64_t batches = matrix != 0 ? x.size() / matrix : 0;
    for (std::int64_t m = 0; m < batches; ++m)
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          const bool keep = upper ? j - i >= k : j - i <= k;
          if (!keep) p[(m * rows + i) * cols + j] = T{};
        }
    return out;
  })};
}

std::vector<Value> CumSumKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  Tensor x = ToComputeType(x_in);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(InputInts(ctx, 1).at(0), static_cast<std::int64_t>(x.rank())));
  const bool exclusive = ctx.IntAttribute("exclusive").value_or(0) != 0;
  const bool reverse = ctx.IntAttribute("reverse").value_or(0) != 0;
  std::int64_t outer = 1, inner = 1;
  const std::int64_t n = x.shape()[axis];
  for (std::size_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (std::size_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  Tensor y = DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), x.shape());
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        T acc{};
        for (std::int64_t s = 0; s < n; ++s) {
          const std::int64_t k = reverse ? n - 1 - s : s;
          const std::int64_t pos = (o * n + k) * inner + in;
          if (exclusive) {
            dst[pos] = acc;
            acc = static_cast<T>(acc + src[pos]);
          } else {
            acc = static_cast<T>(acc + src[pos]);
            dst[pos] = acc;
          }
        }
      }
    return out;
  });
  return {FromComputeType(y, x_in.elem_type())};
}

std::vector<Value> OneHotKernel(KernelContext& ctx) {
  auto indices = ctx.TensorInput(0).ToDoubleVector();
  const Shape& ishape = ctx.TensorInput(0).shape();
  const auto depth = static_cast<std::int64_t>(InputScalar(ctx, 1));
  const Tensor& values = ctx.TensorInput(2);
  if (values.size() != 2) Fail("values must have two elements");
  const auto out_rank = static_cast<std::int64_t>(ishape.size() + 1);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), out_rank));
  Shape shape = ishape;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= ishape[d];
  for (std::size_t d = axis; d < ishape.size(); ++d) inner *= ishape[d];
  return {DispatchStorage(values.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(values.elem_type(), shape);
    const T off = values.Data<T>()[0], on = values.Data<T>()[1];
    T* p = out.MutableData<T>();
    std::fill_n(p, out.size(), off);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        auto k = static_cast<std::int64_t>(indices[static_cast<std::size_t>(o * inner + i)]);
        if (k < 0) k += depth;
        if (k >= 0 && k < depth) p[(o * depth + k) * inner + i] = on;
      }
    return out;
  })};
}

std::vector<Value> NonZeroKernel(KernelContext& ctx) {
  Tensor x = ToComputeType(ctx.TensorInput(0));
  std::vector<std::int64_t> flat;
  DispatchNumericOrBool(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* p = x.Data<T>();
    for (std::int64_t i = 0; i < x.size(); ++i)
      if (p[i] != T(0)) flat.push_back(i);
    return 0;
  });
  const auto rank = static_cast<std::int64_t>(x.rank());
  const auto n = static_cast<std::int64_t>(flat.size());
  Tensor out(TensorProto::INT64, {rank, n});
  auto* q = out.MutableData<std::int64_t>();
  Shape strides = Strides(x.shape());
  for (std::int64_t j = 0; j < n; ++j) {
    std::int64_t rem = flat[static_cast<std::size_t>(j)];
    for (std::int64_t d = 0; d < rank; ++d) {
      q[d * n + j] = rem / strides[static_cast<std::size_t>(d)];
      rem %= strides[static_cast<std::size_t>(d)];
    }
  }
  return {out};
}

std::vector<Value> DepthSpaceKernel(KernelContext& ctx, bool to_space) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() != 4) Fail("input must be 4-D");
  const std::int64_t b = ctx.IntAttribute("blocksize").value_or(0);
  if (b <= 0) Fail("blocksize must be positive");
  const std::int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  if (to_space) {
    if (c % (b * b)) Fail("channels are not divisible by blocksize^2");
    const bool crd = ctx.StringAttribute("mode").value_or("DCR") == "CRD";
    const std::int64_t c2 = c / (b * b);
    Tensor t = crd ? TransposeTensor(x.Reshaped({n, c2, b, b, h, w}), {0, 1, 4, 2, 5, 3})
                   : TransposeTensor(x.Reshaped({n, b, b, c2, h, w}), {0, 3, 4, 1, 5, 2});
    return {t.Reshaped({n, c2, h * b, w * b})};
  }
  if (h % b || w % b) Fail("spatial dims are not divisible by blocksize");
  Tensor t = TransposeTensor(x.Reshaped({n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return {t.Reshaped({n, c * b * b, h / b, w / b})};
}

// TopK / ArgMax / reductions ----------------------------------------------------------

std::vector<Value> TopKKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  Tensor x = ToComputeType(x_in);
  const std::int64_t k = ctx.OpsetVersion() < 10 ? ctx.IntAttribute("k").value_or(0) : InputInts(ctx, 1).at(0);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), static_cast<std::int64_t>(x.rank())));
  const bool largest = ctx.IntAttribute("largest").value_or(1) != 0;
  const std::int64_t n = x.shape()[axis];
  if (k < 0 || k > n) Fail("k " + std::to_string(k) + " is out of range for a dim of size " + std::to_string(n));
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (std::size_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  Shape shape = x.shape();
  shape[axis] = k;
  Tensor idx(TensorProto::INT64, shape);
  auto* pi = idx.MutableData<std::int64_t>();
  Tensor vals = DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        auto at = [&](std::int64_t j) { return src[(o * n + j) * inner + in]; };
        std::iota(order.begin(), order.end(), 0);
        // Ties keep the lower index first (stable sort on index order).
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
          return largest ? at(a) > at(b) : at(a) < at(b);
        });
        for (std::int64_t j = 0; j < k; ++j) {
          const std::int64_t pos = (o * k + j) * inner + in;
          dst[pos] = at(order[static_cast<std::size_t>(j)]);
          pi[pos] = order[static_cast<std::size_t>(j)];
        }
      }
    return out;
  });
  return {FromComputeType(vals, x_in.elem_type()), idx};
}

std::vector<Value> ArgKernel(KernelContext& ctx, bool max) {
  Tensor x = ToComputeType(ctx.TensorInput(0));
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.rank())));
  const bool keepdims = ctx.IntAttribute("keepdims").value_or(1) != 0;
  const bool last = ctx.IntAttribute("select_last_index").value_or(0) != 0;
  const std::int64_t n = x.shape()[axis];
  if (n == 0) Fail("cannot take ArgMax/ArgMin of an empty axis");
  std::int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (std::size_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  Shape shape = x.shape();
  if (keepdims) shape[axis] = 1;
  else shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor out(TensorProto::INT64, shape);
  auto* q = out.MutableData<std::int64_t>();
  DispatchNumericOrBool(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* src = x.Data<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        std::int64_t best = 0;
        for (std::int64_t j = 1; j < n; ++j) {
          const T v = src[(o * n + j) * inner + in], b = src[(o * n + best) * inner + in];
          const bool better = max ? (last ? v >= b : v > b) : (last ? v <= b : v < b);
          if (better) best = j;
        }
        q[o * inner + in] = best;
      }
    return 0;
  });
  return {out};
}

enum class ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

template <class T>
Tensor ReduceTensor(const Tensor& x, const std::vector<bool>& reduced, bool keepdims, ReduceOp op) {
  Shape keep_shape = x.shape(), shape;
  for (std::size_t d = 0; d < x.rank(); ++d) {
    if (reduced[d]) keep_shape[d] = 1;
    if (!reduced[d] || keepdims) shape.push_back(keep_shape[d]);
  }
  using Acc = std::conditional_t<kIsFloat<T>, double, std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>>;
  const std::int64_t out_size = ShapeSize(keep_shape);
  std::vector<Acc> acc(static_cast<std::size_t>(out_size));
  Acc init{};
  if (op == ReduceOp::kProd) init = Acc(1);
  if (op == ReduceOp::kMax)
    init = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
  if (op == ReduceOp::kMin)
    init = std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
  std::fill(acc.begin(), acc.end(), init);
  Shape ostrides = BroadcastStrides(keep_shape, x.shape());
  const T* src = x.Data<T>();
  // Walk the input in order; the output offset uses stride 0 on reduced dims.
  const std::size_t r = x.rank();
  Shape index(r, 0);
  std::int64_t pos = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const Acc v = static_cast<Acc>(src[i]);
    Acc& a = acc[static_cast<std::size_t>(pos)];
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
      case ReduceOp::kLogSum: a = static_cast<Acc>(a + v); break;
      case ReduceOp::kMax:
        if constexpr (kIsFloat<Acc>) {
          if (std::isnan(v) || std::isnan(a)) { a = std::numeric_limits<Acc>::quiet_NaN(); break; }
        }
        a = std::max(a, v);
        break;
      case ReduceOp::kMin:
        if constexpr (kIsFloat<Acc>) {
          if (std::isnan(v) || std::isnan(a)) { a = std::numeric_limits<Acc>::quiet_NaN(); break; }
        }
        a = std::min(a, v);
        break;
      case ReduceOp::kProd: a = static_cast<Acc>(a * v); break;
      case ReduceOp::kL1: a = static_cast<Acc>(a + (v < Acc(0) ? static_cast<Acc>(Acc(0) - v) : v)); break;
      case ReduceOp::kL2:
      case ReduceOp::kSumSquare: a = static_cast<Acc>(a + v * v); break;
      case ReduceOp::kLogSumExp:
        if constexpr (kIsFloat<Acc>) a += std::exp(v);
        else a = static_cast<Acc>(a + static_cast<Acc>(std::exp(static_cast<double>(v))));
        break;
    }
    for (std::size_t d = r; d-- > 0;) {
      pos += ostrides[d];
      if (++index[d] < x.shape()[d]) break;
      pos -= ostrides[d] * index[d];
      index[d] = 0;
    }
  }
  const std::int64_t count = out_size ? x.size() / out_size : 0;
  Tensor out(x.elem_type(), shape);
  T* dst = out.MutableData<T>();
  for (std::int64_t i = 0; i < out_size; ++i) {
    Acc a = acc[static_cast<std::size_t>(i)];
    double v = static_cast<double>(a);
    switch (op) {
      case ReduceOp::kMean: v = v / static_cast<double>(count); break;
      case ReduceOp::kL2: v = std::sqrt(v); break;
      case ReduceOp::kLogSum:
      case ReduceOp::kLogSumExp: v = std::log(v); break;
      default: dst[i] = static_cast<T>(a); continue;
    }
    dst[i] = static_cast<T>(v);
  }
  return out;
}

Kernel ReduceKernel(ReduceOp op, std::int64_t axes_input_since) {
  return [op, axes_input_since](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& x_in = ctx.TensorInput(0);
    Tensor x = ToComputeType(x_in);
    const bool keepdims = ctx.IntAttribute("keepdims").value_or(1) != 0;
    const bool noop = ctx.IntAttribute("noop_with_empty_axes").value_or(0) != 0;
    auto axes = NormalizeAxes(AxesFromAttrOrInput(ctx, axes_input_since, 1), static_cast<std::int64_t>(x.rank()));
    if (axes.empty() && noop) return {x_in};
    std::vector<bool> reduced(x.rank(), axes.empty());
    for (auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
    Tensor y = DispatchNumericOrBool(x.elem_type(), [&]<class T>(std::type_identity<T>) {
      return ReduceTensor<T>(x, reduced, keepdims, op);
    });
    return {FromComputeType(y, x_in.elem_type())};
  };
}

}  // namespace

void RegisterTensorKernels() {
  Register("Shape", ShapeKernel);
  Register("Size", SizeKernel);
  Register("Reshape", ReshapeKernel);
  Register("Flatten", FlattenKernel);
  Register("Squeeze", SqueezeKernel);
  Register("Unsqueeze", UnsqueezeKernel);
  Register("Transpose", TransposeKernel);
  Register("Expand", ExpandKernel);
  Register("Tile", TileKernel);
  Register("Concat", ConcatKernel);
  Register("Split", SplitKernel);
  Register("Slice", SliceKernel);
  Register("Pad", PadKernel);
  Register("Gather", GatherKernel);
  Register("GatherElements", GatherElementsKernel);
  Register("GatherND", GatherNDKernel);
  Register("ScatterND", ScatterNDKernel);
  Register("ScatterElements", ScatterElementsKernel);
  Register("Scatter", ScatterElementsKernel);
  Register("Compress", CompressKernel);
  Register("Range", RangeKernel);
  Register("ConstantOfShape", ConstantOfShapeKernel);
  Register("EyeLike", EyeLikeKernel);
  Register("Trilu", TriluKernel);
  Register("CumSum", CumSumKernel);
  Register("OneHot", OneHotKernel);
  Register("NonZero", NonZeroKernel);
  Register("DepthToSpace", [](KernelContext& ctx) { return DepthSpaceKernel(ctx, true); });
  Register("SpaceToDepth", [](KernelContext& ctx) { return DepthSpaceKernel(ctx, false); });
  Register("TopK", TopKKernel);
  Register("ArgMax", [](KernelContext& ctx) { return ArgKernel(ctx, true); });
  Register("ArgMin", [](KernelContext& ctx) { return ArgKernel(ctx, false); });
  Register("ReduceSum", ReduceKernel(ReduceOp::kSum, 13));
  Register("ReduceMean", ReduceKernel(ReduceOp::kMean, 18));
  Register("ReduceMax", ReduceKernel(ReduceOp::kMax, 18));
  Register("ReduceMin", ReduceKernel(ReduceOp::kMin, 18));
  Register("ReduceProd", ReduceKernel(ReduceOp::kProd, 18));
  Register("ReduceL1", ReduceKernel(ReduceOp::kL1, 18));
  Register("ReduceL2", ReduceKernel(ReduceOp::kL2, 18));
  Register("ReduceLogSum", ReduceKernel(ReduceOp::kLogSum, 18));
  Register("ReduceLogSumExp", ReduceKernel(ReduceOp::kLogSumExp, 18));
  Register("ReduceSumSquare", ReduceKernel(ReduceOp::kSumSquare, 18));
}

}  // namespace onnxopt::onnx_kernels
