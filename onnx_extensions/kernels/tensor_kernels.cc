// Tensor kernels: shape manipulation, indexing, scatter/gather, reductions.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "onnx_core/utils/range_count.h"
#include "onnx_extensions/kernels/kernel_call.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/kernel_signature.h"

namespace onnxopt::onnx_kernels {
namespace {

using core::eval::Arity;
using core::eval::Kernel;
using core::eval::RegisterKernel;

void Register(std::string_view op, Arity arity, Kernel kernel) { RegisterKernel("", op, arity, std::move(kernel)); }

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
  // A zero stride (Expand, Tile) copies one string many times.
  StringCopies copies("the characters of the output strings");
  Shape index(rank, 0);
  std::int64_t pos = offset;
  const std::int64_t inner = out_shape[rank - 1], inner_stride = strides[rank - 1];
  for (std::int64_t i = 0; i < total; i += inner) {
    for (std::int64_t j = 0; j < inner; ++j) {
      copies.Count(src[pos + j * inner_stride]);
      dst[i + j] = src[pos + j * inner_stride];
    }
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
    Tensor out = Tensor::ForOverwrite(x.elem_type(), out_shape);  // StridedCopy writes every element
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
  const std::vector<std::int64_t> requested = shape;
  const bool allowzero = IntAttributeIn(ctx, "allowzero", 0, 0, 1) != 0;
  auto cannot = [&] { Fail("cannot reshape " + x.Describe() + " to " + ShapeToString(requested)); };
  int infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x.rank()) Fail("a 0 in the shape refers to a missing input dim " + std::to_string(i));
      shape[i] = x.shape()[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) Fail("the shape " + ShapeToString(requested) + " has more than one -1");
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      Fail("the shape " + ShapeToString(requested) + " has a negative dim " + std::to_string(shape[i]));
    }
  }
  if (allowzero && infer >= 0 && std::count(shape.begin(), shape.end(), 0) > 0)
    Fail("the shape " + ShapeToString(requested) + " has both 0 and -1, which allowzero=1 forbids");
  // The product of the known dims (0 when one is 0, however large the others).
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (static_cast<int>(i) != infer && shape[i] == 0) known = 0;
  for (std::size_t i = 0; i < shape.size() && known != 0; ++i)
    if (static_cast<int>(i) != infer && __builtin_mul_overflow(known, shape[i], &known)) cannot();
  if (infer >= 0) {
    if (known == 0 || x.size() % known != 0) cannot();
    shape[static_cast<std::size_t>(infer)] = x.size() / known;
  } else if (known != x.size()) {
    cannot();
  }
  return {x.Reshaped(shape)};
}

std::vector<Value> FlattenKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::int64_t axis = ctx.IntAttribute("axis").value_or(1);
  if (axis < -rank || axis > rank) Fail("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += rank;
  const auto split = static_cast<std::size_t>(axis);
  return {x.Reshaped({ShapeSize(x.shape(), 0, split), ShapeSize(x.shape(), split)})};
}

std::vector<std::int64_t> AxesFromAttrOrInput(KernelContext& ctx, std::int64_t input_since, std::size_t input) {
  if (ctx.OpsetVersion() < input_since) return ctx.IntsAttribute("axes").value_or(std::vector<std::int64_t>{});
  return OptionalInputInts(ctx, input).value_or(std::vector<std::int64_t>{});
}

std::vector<Value> SqueezeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  // Repeated axes are not forbidden: each counts once.
  const auto axes = NormalizeAxes(AxesFromAttrOrInput(ctx, 13, 1), rank, "axes", true);
  // Marks, not a search among the axes for each dim: linear in the rank, which an axes
  // input and a Reshape to 10^6 ones make as large as the data.
  const std::vector<bool> listed = AxisMarks(axes, rank);
  Shape shape;
  for (std::int64_t i = 0; i < rank; ++i) {
    const std::int64_t d = x.shape()[static_cast<std::size_t>(i)];
    const bool squeezed = listed[static_cast<std::size_t>(i)];
    if (squeezed && d != 1) Fail("cannot squeeze axis " + std::to_string(i) + " of size " + std::to_string(d));
    if (axes.empty() ? d != 1 : !squeezed) shape.push_back(d);
  }
  return {x.Reshaped(shape)};
}

std::vector<Value> UnsqueezeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  auto raw = AxesFromAttrOrInput(ctx, 13, 1);
  const auto out_rank = static_cast<std::int64_t>(x.rank() + raw.size());
  const std::vector<bool> inserted = AxisMarks(NormalizeAxes(raw, out_rank), out_rank);  // as Squeeze's
  Shape shape;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < out_rank; ++i) shape.push_back(inserted[static_cast<std::size_t>(i)] ? 1 : x.shape()[next++]);
  return {x.Reshaped(shape)};
}

std::vector<Value> TransposeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  std::vector<std::int64_t> perm = ctx.IntsAttribute("perm").value_or(std::vector<std::int64_t>{});
  if (perm.empty()) {
    for (std::int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  CheckPermutation(perm, x.rank());
  return {TransposeTensor(x, perm)};
}

Tensor ExpandTo(const Tensor& x, const Shape& shape) {
  return StridedView(x, shape, BroadcastStrides(x.shape(), shape), 0);
}

std::vector<Value> ExpandKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Shape requested = InputInts(ctx, 1);
  ExpectAtLeast(requested, 0, InputLabel(ctx, 1));
  Shape shape = BroadcastShapes({x.shape(), requested});
  return {ExpandTo(x, shape)};
}

std::vector<Value> TileKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  auto repeats = InputInts(ctx, 1);
  if (repeats.size() != x.rank()) Fail("repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(x.rank()));
  // View x as [1, d0, 1, d1, ...] broadcast to [r0, d0, r1, d1, ...].
  Shape in_shape, out_shape, final_shape;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (repeats[i] < 0) Fail("repeats " + ShapeToString(repeats) + " has a negative value");
    in_shape.insert(in_shape.end(), {1, x.shape()[i]});
    out_shape.insert(out_shape.end(), {repeats[i], x.shape()[i]});
    final_shape.push_back(CheckedMul(repeats[i], x.shape()[i], "the tiled dim"));
  }
  Tensor::CheckShape(x.elem_type(), final_shape);
  Tensor y = StridedView(x, out_shape, BroadcastStrides(in_shape, out_shape), 0);
  return {y.Reshaped(final_shape)};
}

Tensor ConcatTensors(const std::vector<Tensor>& inputs, std::int64_t axis_attr) {
  if (inputs.empty()) Fail("no input to concatenate");
  const Tensor& first = inputs.front();
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
    shape[axis] = CheckedAdd(shape[axis], t.shape()[axis], "the concatenated dim");
  }
  Tensor::CheckShape(first.elem_type(), shape);
  const std::int64_t outer = ShapeSize(shape, 0, axis), inner = ShapeSize(shape, axis + 1);
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
  return {ConcatTensors(inputs, RequiredIntAttribute(ctx, "axis"))};
}

// Slice [start, start + len) of `axis`.
Tensor SliceAxis(const Tensor& x, std::size_t axis, std::int64_t start, std::int64_t len) {
  Shape shape = x.shape();
  shape[axis] = len;
  Shape strides = Strides(x.shape());
  return StridedView(x, shape, strides, start * strides[axis]);
}

// The sizes of the parts: the split input (opset 13+; 1 with a second input) or attribute,
// else num_outputs parts of ceil(dim / num_outputs) (opset 18; the last ones smaller),
// else equal parts, one per output.
std::vector<std::int64_t> SplitSizes(const KernelContext& ctx, std::int64_t dim) {
  std::optional<std::vector<std::int64_t>> sizes;
  if (ctx.OpsetVersion() >= 13 || (ctx.OpsetVersion() < 2 && ctx.HasInput(1))) sizes = OptionalInputInts(ctx, 1);
  else sizes = ctx.IntsAttribute("split");
  if (sizes && sizes->empty()) sizes.reset();
  const auto outputs = static_cast<std::int64_t>(ctx.OutputCount());
  const auto num_outputs = ctx.IntAttribute("num_outputs");
  if (sizes) {
    if (num_outputs) Fail("both the split sizes and attribute 'num_outputs' are given");
    if (static_cast<std::int64_t>(sizes->size()) != outputs)
      Fail("split " + ShapeToString(*sizes) + " has " + std::to_string(sizes->size()) + " sizes for " +
           std::to_string(outputs) + " outputs");
    ExpectAtLeast(*sizes, 0, "split");
    std::int64_t total = 0;
    for (auto size : *sizes) total = CheckedAdd(total, size, "the sum of the split sizes");
    if (total != dim) Fail("split " + ShapeToString(*sizes) + " does not add up to the dim " + std::to_string(dim));
    return *sizes;
  }
  if (num_outputs) {
    if (*num_outputs != outputs)
      Fail("attribute 'num_outputs' is " + std::to_string(*num_outputs) + ", the node has " + std::to_string(outputs) +
           " outputs");
    if (outputs > dim)
      Fail("cannot split a dim of " + std::to_string(dim) + " into " + std::to_string(outputs) + " parts");
    const std::int64_t chunk = (dim + outputs - 1) / outputs;
    std::vector<std::int64_t> split;
    for (std::int64_t i = 0; i < outputs; ++i) split.push_back(std::clamp<std::int64_t>(dim - i * chunk, 0, chunk));
    return split;
  }
  if (ctx.OpsetVersion() >= 18) Fail("either input 'split' or attribute 'num_outputs' is required");
  if (dim % outputs != 0)
    Fail("the dim " + std::to_string(dim) + " cannot be split evenly into " + std::to_string(outputs) + " outputs");
  return std::vector<std::int64_t>(static_cast<std::size_t>(outputs), dim / outputs);
}

std::vector<Value> SplitKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.rank())));
  const std::vector<std::int64_t> split = SplitSizes(ctx, x.shape()[axis]);
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
    if (step == 0) Fail("steps " + ShapeToString(steps) + " has a 0");
    // Negative starts/ends count from the end (adding dim cannot overflow: they are < 0),
    // then clamp to [0, dim] forward or [-1, dim-1] backward.
    const std::int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    const std::int64_t s = std::clamp<std::int64_t>(starts[i] < 0 ? starts[i] + dim : starts[i], lo, hi);
    const std::int64_t e = std::clamp<std::int64_t>(ends[i] < 0 ? ends[i] + dim : ends[i], lo, hi);
    // Element count ceil(|e - s| / |step|) in unsigned arithmetic: |INT64_MIN| is 2^63.
    const std::uint64_t magnitude = step > 0 ? static_cast<std::uint64_t>(step)
                                             : static_cast<std::uint64_t>(-(step + 1)) + 1;
    const std::int64_t span = step > 0 ? e - s : s - e;
    const std::int64_t len =
        span > 0 ? static_cast<std::int64_t>((static_cast<std::uint64_t>(span) - 1) / magnitude + 1) : 0;
    shape[a] = len;
    // With two elements or more |step| < dim, so the stride fits; otherwise it is unused.
    strides[a] = len > 1 ? in_strides[a] * step : 0;
    if (len > 0) offset += s * in_strides[a];
  }
  return {StridedView(x, shape, strides, offset)};
}

// Pad ---------------------------------------------------------------------------------

// Pad: negative pads crop first, then the mode pads the cropped tensor (as onnxruntime and
// the ONNX reference do): reflect and wrap read the cropped data.
std::vector<Value> PadKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const auto rank = static_cast<std::int64_t>(x.rank());
  const std::string mode = StringAttributeIn(ctx, "mode", "constant", {"constant", "reflect", "edge", "wrap"});
  std::vector<std::int64_t> pads;
  // The constant padding, a tensor of one element of x's type; none pads with zeros.
  std::optional<Tensor> value;
  if (ctx.OpsetVersion() < 11) {
    pads = ctx.IntsAttribute(ctx.OpsetVersion() < 2 ? "paddings" : "pads").value_or(std::vector<std::int64_t>{});
    // A float attribute then, converted as Cast converts: float16 is encoded (a cast of the
    // float to the storage type uint16 gave other bits, and inf is out of its range).
    Tensor attribute(TensorProto::FLOAT, {});
    attribute.MutableData<float>()[0] = ctx.FloatAttribute("value").value_or(0.0f);
    value = core::eval::AsTensor(CallKernel("Cast", {MakeIntAttribute("to", x.elem_type())}, {attribute}, 21)[0],
                                 "the padding value");
  } else {
    pads = InputInts(ctx, 1);
    if (ctx.HasInput(2)) {
      const Tensor& constant = ctx.TensorInput(2);
      ExpectSameElemType(constant, x, InputLabel(ctx, 2), "the data");
      if (constant.size() > 1) Fail(InputLabel(ctx, 2) + " must be a scalar, found " + constant.Describe());
      if (constant.size() == 1) value = constant;
    }
  }
  std::vector<std::int64_t> axes;
  if (ctx.OpsetVersion() >= 18 && ctx.HasInput(3)) axes = NormalizeAxes(InputInts(ctx, 3), rank);
  else
    for (std::int64_t i = 0; i < rank; ++i) axes.push_back(i);
  if (pads.size() != 2 * axes.size())
    Fail("pads has " + std::to_string(pads.size()) + " entries for " + std::to_string(axes.size()) + " axes");
  // Per dim: the kept range [crop_begin, crop_end) of the input and the added counts.
  Shape crop_begin(x.rank(), 0), crop_end = x.shape(), add_begin(x.rank(), 0), add_end(x.rank(), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto d = static_cast<std::size_t>(axes[i]);
    const std::int64_t dim = x.shape()[d], begin = pads[i], end = pads[i + axes.size()];
    if (begin < -dim || end < -dim || std::min<std::int64_t>(begin, 0) + std::min<std::int64_t>(end, 0) < -dim)
      Fail("pads " + ShapeToString(pads) + " remove more than the " + std::to_string(dim) + " elements of dim " +
           std::to_string(d));
    crop_begin[d] = begin < 0 ? -begin : 0;
    crop_end[d] = end < 0 ? dim + end : dim;
    add_begin[d] = std::max<std::int64_t>(begin, 0);
    add_end[d] = std::max<std::int64_t>(end, 0);
  }
  Shape shape(x.rank());
  for (std::size_t d = 0; d < x.rank(); ++d) {
    const std::int64_t kept = crop_end[d] - crop_begin[d];
    shape[d] = CheckedAdd(CheckedAdd(kept, add_begin[d], "the padded dim"), add_end[d], "the padded dim");
    if (mode != "constant" && kept == 0 && shape[d] > 0) Fail("cannot pad an empty dim in mode " + mode);
  }
  Tensor::CheckShape(x.elem_type(), shape);
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    const T fill = value ? value->Data<T>()[0] : T{};
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    Shape in_strides = Strides(x.shape());
    const std::size_t r = shape.size();
    Shape index(r, 0);
    const std::int64_t total = out.size();
    StringCopies copies("the characters of the output strings");  // edges and the pad value repeat
    for (std::int64_t i = 0; i < total; ++i) {
      std::int64_t off = 0;
      bool outside = false;
      for (std::size_t d = 0; d < r; ++d) {
        // k indexes the kept range [0, n) of dim d.
        std::int64_t k = index[d] - add_begin[d];
        const std::int64_t n = crop_end[d] - crop_begin[d];
        if (k < 0 || k >= n) {
          if (mode == "constant") {
            outside = true;
            break;
          } else if (mode == "edge") {
            k = k < 0 ? 0 : n - 1;
          } else if (mode == "wrap") {
            k = ((k % n) + n) % n;
          } else if (n == 1) {  // reflect
            k = 0;
          } else {
            const std::int64_t period = 2 * (n - 1);
            k = ((k % period) + period) % period;
            if (k >= n) k = period - k;
          }
        }
        off += (crop_begin[d] + k) * in_strides[d];
      }
      const T& element = outside ? fill : src[off];
      copies.Count(element);
      dst[i] = element;
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

// The slices of x along `axis` at the positions (in [0, dim)) that for_each_index(f)
// gives in order as f(k, position), k counting from 0; the axis is replaced by the dims
// `ishape` of the positions (Gather: its indices; Compress: the selected positions, given
// without a list of them).
template <class ForEachIndex>
Tensor GatherSlices(const Tensor& x, std::size_t axis, const Shape& ishape, ForEachIndex&& for_each_index) {
  Shape shape(x.shape().begin(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis));
  shape.insert(shape.end(), ishape.begin(), ishape.end());
  shape.insert(shape.end(), x.shape().begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape().end());
  const std::int64_t dim = x.shape()[axis];
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), inner = ShapeSize(x.shape(), axis + 1);
  const std::int64_t n = ShapeSize(ishape);
  return DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    StringCopies copies("the characters of the output strings");  // an index may repeat
    for (std::int64_t o = 0; o < outer; ++o)
      for_each_index([&](std::int64_t k, std::int64_t position) {
        const T* from = src + (o * dim + position) * inner;
        copies.Count(from, from + inner);
        std::copy(from, from + inner, dst + (o * n + k) * inner);
      });
    return out;
  });
}

std::vector<Value> GatherKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  ExpectRank(x, 1, Arity::kAny, InputLabel(ctx, 0));
  ExpectIndexType(ctx.TensorInput(1), InputLabel(ctx, 1));
  auto indices = ctx.TensorInput(1).ToInt64Vector();
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(x.rank())));
  for (auto& i : indices) i = CheckIndex(i, x.shape()[axis]);
  return {GatherSlices(x, axis, ctx.TensorInput(1).shape(), [&](auto&& f) {
    for (std::size_t k = 0; k < indices.size(); ++k) f(static_cast<std::int64_t>(k), indices[k]);
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

// GatherElements / ScatterElements: indices of the rank of data, of an index type, no
// larger than data outside the axis; returns the normalized axis.
std::size_t CheckElementIndices(const KernelContext& ctx, const Tensor& data, const Tensor& indices) {
  ExpectIndexType(indices, InputLabel(ctx, 1));
  ExpectRank(data, 1, Arity::kAny, InputLabel(ctx, 0));
  if (indices.rank() != data.rank())
    Fail(InputLabel(ctx, 1) + " " + indices.Describe() + " must have the rank of the data " + data.Describe());
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(0), static_cast<std::int64_t>(data.rank())));
  for (std::size_t d = 0; d < data.rank(); ++d)
    if (d != axis && indices.shape()[d] > data.shape()[d])
      Fail(InputLabel(ctx, 1) + " " + indices.Describe() + " is larger than the data " + data.Describe() + " in dim " +
           std::to_string(d));
  return axis;
}

std::vector<Value> GatherElementsKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  const std::size_t axis = CheckElementIndices(ctx, x, it);
  auto indices = it.ToInt64Vector();
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), it.shape());
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    StringCopies copies("the characters of the output strings");  // an index may repeat
    ForEachElementIndex(x.shape(), it.shape(), indices, axis, [&](std::int64_t d, std::int64_t i) {
      copies.Count(src[d]);
      dst[i] = src[d];
    });
    return out;
  })};
}

// One update of a scatter reduction. Updates combine in the data's own type one after the
// other (as in the ONNX reference): float16/bfloat16 data, computed in float here, is
// rounded back to its type after every step (`storage_type`).
template <class T>
void Reduce(T& target, const T& v, const std::string& reduction, int storage_type) {
  if constexpr (std::is_same_v<T, float>) {
    if (reduction != "none" && IsHalfType(storage_type)) {
      Reduce(target, v, reduction, TensorProto::FLOAT);
      target = RoundToHalfType(target, storage_type);
      return;
    }
  }
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

std::string ScatterReduction(const KernelContext& ctx) {
  return StringAttributeIn(ctx, "reduction", "none", {"none", "add", "mul", "max", "min"});
}

std::vector<Value> ScatterElementsKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  const Tensor& u_in = ctx.TensorInput(2);
  ExpectSameElemType(u_in, x_in, InputLabel(ctx, 2), "the data");
  if (it.shape() != u_in.shape())
    Fail("indices " + it.Describe() + " and updates " + u_in.Describe() + " have different shapes");
  const std::size_t axis = CheckElementIndices(ctx, x_in, it);
  const std::string reduction = ScatterReduction(ctx);
  auto indices = it.ToInt64Vector();
  Tensor x = ToComputeType(x_in), u = ToComputeType(u_in);
  Tensor y = DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = x;
    T* dst = out.MutableData<T>();
    const T* up = u.Data<T>();
    ForEachElementIndex(x.shape(), it.shape(), indices, axis, [&](std::int64_t d, std::int64_t i) { Reduce(dst[d], up[i], reduction, x_in.elem_type()); });
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
  ExpectIndexType(it, "the indices");
  if (it.rank() == 0) Fail("the indices must have rank >= 1");
  if (batch_dims < 0 || batch_dims >= static_cast<std::int64_t>(std::min(it.rank(), data.size())))
    Fail("attribute 'batch_dims' is " + std::to_string(batch_dims) + ", expected a value in [0, " +
         std::to_string(std::min(it.rank(), data.size())) + ")");
  const auto k = it.shape().back();
  const auto b = static_cast<std::size_t>(batch_dims);
  if (static_cast<std::size_t>(k) + b > data.size())
    Fail("the last dim of the indices " + it.Describe() + " is too large for data of rank " + std::to_string(data.size()));
  for (std::size_t d = 0; d < b; ++d)
    if (it.shape()[d] != data[d])
      Fail("the first " + std::to_string(b) + " dims of the indices " + it.Describe() + " and the data " +
           ShapeToString(data) + " differ");
  NdIndex r;
  r.batch_shape.assign(it.shape().begin(), it.shape().end() - 1);
  r.slice = ShapeSize(data, b + static_cast<std::size_t>(k));
  Shape strides = Strides(data);
  auto idx = it.ToInt64Vector();
  const std::int64_t count = ShapeSize(r.batch_shape);
  const std::int64_t per_batch = ShapeSize(r.batch_shape, b);
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
    StringCopies copies("the characters of the output strings");  // an index may repeat
    for (std::size_t i = 0; i < nd.offsets.size(); ++i) {
      copies.Count(src + nd.offsets[i], src + nd.offsets[i] + nd.slice);
      std::copy(src + nd.offsets[i], src + nd.offsets[i] + nd.slice, dst + static_cast<std::int64_t>(i) * nd.slice);
    }
    return out;
  })};
}

std::vector<Value> ScatterNDKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  const Tensor& it = ctx.TensorInput(1);
  const Tensor& u_in = ctx.TensorInput(2);
  ExpectSameElemType(u_in, x_in, InputLabel(ctx, 2), "the data");
  const std::string reduction = ScatterReduction(ctx);
  NdIndex nd = ResolveNd(x_in.shape(), it, 0);
  Shape updates_shape = nd.batch_shape;
  updates_shape.insert(updates_shape.end(), x_in.shape().begin() + it.shape().back(), x_in.shape().end());
  if (u_in.shape() != updates_shape)
    Fail("updates " + u_in.Describe() + " must have the shape " + ShapeToString(updates_shape));
  Tensor x = ToComputeType(x_in), u = ToComputeType(u_in);
  Tensor y = DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = x;
    T* dst = out.MutableData<T>();
    const T* up = u.Data<T>();
    for (std::size_t i = 0; i < nd.offsets.size(); ++i)
      for (std::int64_t j = 0; j < nd.slice; ++j)
        Reduce(dst[nd.offsets[i] + j], up[static_cast<std::int64_t>(i) * nd.slice + j], reduction, x_in.elem_type());
    return out;
  });
  return {FromComputeType(y, x_in.elem_type())};
}

// TensorScatter (opset 24): a copy of past_cache whose rows at positions write_indices[b]
// onward along `axis` (every prefix whose first index is batch row b) are update's rows.
// Linear mode refuses a write past the cache's end; circular mode wraps each position
// modulo the cache length (numpy's mod: a negative write index wraps too). The spec's
// pseudocode applies np.mod to the whole index tuple, but its text (and the ONNX
// reference) wrap the sequence position alone: a prefix index taken modulo the cache
// length would write another head's rows.
std::vector<Value> TensorScatterKernel(KernelContext& ctx) {
  const Tensor& cache = ctx.TensorInput(0);
  const Tensor& update = ctx.TensorInput(1);
  ExpectSameElemType(update, cache, InputLabel(ctx, 1), InputLabel(ctx, 0));
  ExpectRank(cache, 2, Arity::kAny, InputLabel(ctx, 0));
  if (update.rank() != cache.rank())
    Fail(InputLabel(ctx, 1) + " " + update.Describe() + " must have the rank of " + InputLabel(ctx, 0) + " " +
         cache.Describe());
  const bool circular = StringAttributeIn(ctx, "mode", "linear", {"linear", "circular"}) == "circular";
  const auto rank = static_cast<std::int64_t>(cache.rank());
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(-2), rank));
  if (axis == 0) Fail("attribute 'axis' cannot name dim 0, the batch dim");
  for (std::size_t d = 0; d < cache.rank(); ++d)
    if (d != axis && update.shape()[d] != cache.shape()[d])
      Fail(InputLabel(ctx, 1) + " " + update.Describe() + " must have the shape of " + InputLabel(ctx, 0) + " " +
           cache.Describe() + " outside axis " + std::to_string(axis));
  const std::int64_t max_length = cache.shape()[axis];
  const std::int64_t length = update.shape()[axis];
  if (length > max_length)
    Fail(InputLabel(ctx, 1) + " " + update.Describe() + " is longer than " + InputLabel(ctx, 0) + " " +
         cache.Describe() + " along axis " + std::to_string(axis));
  const std::int64_t batch = cache.shape()[0];
  // Per batch row, given (input 2); empty when every row writes from 0: the batch dim of
  // an empty cache may be longer than any data, and a vector of it took 8 bytes a row.
  std::vector<std::int64_t> starts;
  if (ctx.HasInput(2)) {
    const Tensor& indices = ctx.TensorInput(2);
    ExpectElemType(indices, TensorProto::INT64, InputLabel(ctx, 2));
    if (indices.shape() != Shape{batch})
      Fail(InputLabel(ctx, 2) + " " + indices.Describe() + " must have the shape [" + std::to_string(batch) +
           "] (one index per batch row)");
    starts = indices.ToInt64Vector();
  }
  for (std::size_t b = 0; b < starts.size(); ++b) {
    std::int64_t& start = starts[b];
    if (circular) {
      if (max_length > 0) start = (start % max_length + max_length) % max_length;
    } else if (start < 0 || start > max_length - length) {
      Fail("write index " + std::to_string(start) + " of batch row " + std::to_string(b) + " is out of range: " +
           std::to_string(length) + " rows from it do not fit in a cache of length " + std::to_string(max_length));
    }
  }
  // Row-major: [outer, axis, inner] with outer = batch * (dims between batch and axis).
  const std::int64_t inner = ShapeSize(cache.shape(), axis + 1);
  const std::int64_t per_batch = ShapeSize(cache.shape(), 1, axis);
  return {DispatchStorage(cache.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = cache;
    if (length == 0 || inner == 0) return out;
    T* dst = out.MutableData<T>();
    const T* src = update.Data<T>();
    for (std::int64_t o = 0; o < batch * per_batch; ++o) {
      const std::int64_t start = starts.empty() ? 0 : starts[static_cast<std::size_t>(o / per_batch)];
      for (std::int64_t s = 0; s < length; ++s) {
        const std::int64_t position = circular ? (start + s) % max_length : start + s;
        const T* row = src + (o * length + s) * inner;
        std::copy(row, row + inner, dst + (o * max_length + position) * inner);
      }
    }
    return out;
  })};
}

// The selected positions gathered in one copy, read from the condition: a tensor per
// selected slice takes some 200 bytes however small the slice (20 GB for a condition of
// 10^8 ones), a list of the positions 8 bytes each (8 times a bool condition).
std::vector<Value> CompressKernel(KernelContext& ctx) {
  Tensor x = ctx.TensorInput(0);
  const Tensor& condition = ctx.TensorInput(1);
  ExpectElemType(condition, TensorProto::BOOL, InputLabel(ctx, 1));
  ExpectRank(condition, 1, 1, InputLabel(ctx, 1));
  auto axis_attr = ctx.IntAttribute("axis");
  if (!axis_attr) x = x.Reshaped({x.size()});
  const auto axis = static_cast<std::size_t>(NormalizeAxis(axis_attr.value_or(0), static_cast<std::int64_t>(x.rank())));
  const bool* selects = condition.Data<bool>();
  const std::int64_t candidates = std::min(condition.size(), x.shape()[axis]);
  const auto selected = static_cast<std::int64_t>(std::count(selects, selects + candidates, true));
  return {GatherSlices(x, axis, {selected}, [&](auto&& f) {
    for (std::int64_t i = 0, k = 0; i < candidates; ++i)
      if (selects[i]) f(k++, i);
  })};
}

// Generators --------------------------------------------------------------------------

// Range: three scalars of one type; count max(ceil((limit - start) / delta), 0), computed
// exactly for integers (in 128 bits: limit - start may overflow the type), refused when it
// is not finite or not an int64, and then by the tensor size limit.
std::vector<Value> RangeKernel(KernelContext& ctx) {
  const Tensor& given_start = ctx.TensorInput(0);
  for (std::size_t i = 0; i < 3; ++i) {
    const Tensor& t = ctx.TensorInput(i);
    if (i > 0) ExpectSameElemType(t, given_start, InputLabel(ctx, i), "start");
    if (t.rank() != 0) Fail(InputLabel(ctx, i) + " must be a scalar, found " + t.Describe());
  }
  // float16 and bfloat16 (opset 27): with stash_type 1, the default, start, limit and delta
  // are cast to float, the range computed in float and cast back. The other stash type the
  // specification allows, the inputs' own, is not implemented here.
  const int type = given_start.elem_type();
  if (IsHalfType(type)) {
    const std::int64_t stash_type = ctx.IntAttribute("stash_type").value_or(TensorProto::FLOAT);
    if (stash_type != TensorProto::FLOAT)
      Fail("Range of " + ElemTypeName(type) + " with stash_type " + std::to_string(stash_type) +
           ": only stash_type 1 (float) is implemented");
  }
  const Tensor s = ToComputeType(given_start);
  Tensor range = DispatchNumeric(s.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T start = s.Data<T>()[0];
    const T limit = ToComputeType(ctx.TensorInput(1)).Data<T>()[0];
    const T delta = ToComputeType(ctx.TensorInput(2)).Data<T>()[0];
    if (delta == T(0)) Fail("delta cannot be 0");
    std::int64_t count = 0;
    if constexpr (kIsFloat<T>) {
      const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
      // Only an int64 count can be checked against the tensor size limit (the output's
      // constructor does it).
      if (!(std::isfinite(n) && n < 0x1p63))
        Fail("the range from " + std::to_string(start) + " to " + std::to_string(limit) + " by " + std::to_string(delta) +
             " has no finite element count in int64");
      count = static_cast<std::int64_t>(std::max(0.0, n));
    } else {
      const __int128 n = utils::RangeCount(start, limit, delta);
      if (n > INT64_MAX)
        Fail("the range from " + std::to_string(start) + " to " + std::to_string(limit) + " by " + std::to_string(delta) +
             " has no finite element count in int64");
      count = static_cast<std::int64_t>(n);
    }
    Tensor out(s.elem_type(), {count});
    T* p = out.MutableData<T>();
    for (std::int64_t i = 0; i < count; ++i) {
      if constexpr (kIsFloat<T>) p[i] = static_cast<T>(start + static_cast<T>(i) * delta);
      else p[i] = static_cast<T>(static_cast<__int128>(start) + static_cast<__int128>(i) * delta);
    }
    return out;
  });
  return {FromComputeType(range, type)};
}

std::vector<Value> ConstantOfShapeKernel(KernelContext& ctx) {
  Shape shape = InputInts(ctx, 0);
  ExpectAtLeast(shape, 0, InputLabel(ctx, 0));
  auto value = ctx.TensorAttribute("value");
  Tensor v = value ? *value : Tensor(TensorProto::FLOAT, {1});
  if (v.size() != 1) Fail("attribute 'value' must have one element, found " + v.Describe());
  Tensor::CheckShape(v.elem_type(), shape);
  return {ExpandTo(v.Reshaped({}), shape)};
}

std::vector<Value> EyeLikeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() != 2) Fail("EyeLike input must be 2-D");
  const std::int64_t dtype = ctx.IntAttribute("dtype").value_or(x.elem_type());
  if (dtype <= 0 || dtype > std::numeric_limits<int>::max() || dtype == TensorProto::STRING)
    Fail("attribute 'dtype' " + std::to_string(dtype) + " is not a numeric element type");
  const int type = static_cast<int>(dtype);
  const std::int64_t k = ctx.IntAttribute("k").value_or(0);
  const std::int64_t rows = x.shape()[0], cols = x.shape()[1];
  Tensor out(IsHalfType(type) ? int{TensorProto::FLOAT} : type, x.shape());
  DispatchNumericOrBool(out.elem_type(), [&]<class T>(std::type_identity<T>) {
    T* p = out.MutableData<T>();
    // Ones at (i, i + k); k beyond the matrix leaves it all zeros (and i + k cannot overflow).
    if (k >= cols || k <= -rows) return 0;
    for (std::int64_t i = std::max<std::int64_t>(0, -k); i < rows && i + k < cols; ++i) p[i * cols + i + k] = T(1);
    return 0;
  });
  return {FromComputeType(out, type)};
}

std::vector<Value> TriluKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 2) Fail("Trilu input must have rank >= 2");
  const bool upper = ctx.IntAttribute("upper").value_or(1) != 0;
  const std::int64_t k = ctx.HasInput(1) ? InputIntScalar(ctx, 1) : 0;
  const std::int64_t rows = x.shape()[x.rank() - 2], cols = x.shape()[x.rank() - 1];
  return {DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out = x;
    T* p = out.MutableData<T>();
    const std::int64_t matrix = rows * cols;
    const std::int64_t batches = matrix != 0 ? x.size() / matrix : 0;
    for (std::int64_t m = 0; m < batches; ++m)
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          // j - i cannot overflow: both are dims.
          const bool keep = upper ? j - i >= k : j - i <= k;
          if (!keep) p[(m * rows + i) * cols + j] = T{};
        }
    return out;
  })};
}

// CumSum and CumProd (opset 26): running sums or products along an axis, integers
// wrapping around in two's complement like Add and Mul.
template <bool kProduct>
std::vector<Value> CumulativeKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  Tensor x = ToComputeType(x_in);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(InputIntScalar(ctx, 1), static_cast<std::int64_t>(x.rank())));
  const bool exclusive = ctx.IntAttribute("exclusive").value_or(0) != 0;
  const bool reverse = ctx.IntAttribute("reverse").value_or(0) != 0;
  const std::int64_t n = x.shape()[axis];
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), inner = ShapeSize(x.shape(), axis + 1);
  Tensor y = DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), x.shape());
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    const auto step = [](T acc, T value) { return kProduct ? WrappingMul(acc, value) : WrappingAdd(acc, value); };
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        T acc = kProduct ? T(1) : T{};
        for (std::int64_t s = 0; s < n; ++s) {
          const std::int64_t k = reverse ? n - 1 - s : s;
          const std::int64_t pos = (o * n + k) * inner + in;
          if (exclusive) {
            dst[pos] = acc;
            acc = step(acc, src[pos]);
          } else {
            acc = step(acc, src[pos]);
            dst[pos] = acc;
          }
        }
      }
    return out;
  });
  return {FromComputeType(y, x_in.elem_type())};
}

std::vector<Value> OneHotKernel(KernelContext& ctx) {
  ExpectRank(ctx.TensorInput(0), 1, Arity::kAny, InputLabel(ctx, 0));
  const Tensor indices = ToComputeType(ctx.TensorInput(0));
  const Shape& ishape = indices.shape();
  const double depth_value = InputScalar(ctx, 1);
  if (!(depth_value >= 1) || depth_value > static_cast<double>(MaxElementCount()))
    Fail(InputLabel(ctx, 1) + " (depth) is " + std::to_string(depth_value) + ", expected a positive count");
  const auto depth = static_cast<std::int64_t>(depth_value);
  const Tensor& values = ctx.TensorInput(2);
  if (values.size() != 2 || values.rank() != 1)
    Fail(InputLabel(ctx, 2) + " must hold [off_value, on_value], found " + values.Describe());
  const auto out_rank = static_cast<std::int64_t>(ishape.size() + 1);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), out_rank));
  Shape shape = ishape;
  shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(axis), depth);
  const std::int64_t outer = ShapeSize(ishape, 0, axis), inner = ShapeSize(ishape, axis);
  return {DispatchStorage(values.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(values.elem_type(), shape);
    const T off = values.Data<T>()[0], on = values.Data<T>()[1];
    T* p = out.MutableData<T>();
    std::fill_n(p, out.size(), off);
    // Read in their own type: as doubles, int8 indices took 8 times their bytes.
    DispatchNumericOrBool(indices.elem_type(), [&]<class I>(std::type_identity<I>) {
      const I* index_data = indices.Data<I>();
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          // Indices outside [-depth, depth-1] (NaN included) select nothing.
          const auto index = static_cast<double>(index_data[o * inner + i]);
          if (!(index >= -static_cast<double>(depth) && index < static_cast<double>(depth))) continue;
          auto k = static_cast<std::int64_t>(index);
          if (k < 0) k += depth;
          if (k >= 0 && k < depth) p[(o * depth + k) * inner + i] = on;
        }
    });
    return out;
  })};
}

// NonZero: like numpy.nonzero, a scalar counts as a one-element vector.
std::vector<Value> NonZeroKernel(KernelContext& ctx) {
  Tensor x = ToComputeType(ctx.TensorInput(0));
  if (x.rank() == 0) x = x.Reshaped({1});
  const auto rank = static_cast<std::int64_t>(x.rank());
  const Shape strides = Strides(x.shape());
  return {DispatchNumericOrBool(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* p = x.Data<T>();
    // Counted first, so that the output is refused above the limit before it is filled:
    // collected in a vector, the positions of a bool tensor at the limit took 8 times it.
    const auto n = static_cast<std::int64_t>(std::count_if(p, p + x.size(), [](const T& v) { return v != T(0); }));
    Tensor out(TensorProto::INT64, {rank, n});
    auto* q = out.MutableData<std::int64_t>();
    std::int64_t j = 0;
    for (std::int64_t i = 0; i < x.size(); ++i) {
      if (p[i] == T(0)) continue;
      std::int64_t rem = i;
      for (std::int64_t d = 0; d < rank; ++d) {
        q[d * n + j] = rem / strides[static_cast<std::size_t>(d)];
        rem %= strides[static_cast<std::size_t>(d)];
      }
      ++j;
    }
    return out;
  })};
}

std::vector<Value> DepthSpaceKernel(KernelContext& ctx, bool to_space) {
  const Tensor& x = ctx.TensorInput(0);
  ExpectRank(x, 4, 4, InputLabel(ctx, 0));
  const std::int64_t b = RequiredIntAttribute(ctx, "blocksize");
  const std::int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  if (b <= 0) Fail("attribute 'blocksize' is " + std::to_string(b) + ", expected a positive size");
  const char* what = "the output dim";
  if (to_space) {
    const bool crd = StringAttributeIn(ctx, "mode", "DCR", {"DCR", "CRD"}) == "CRD";
    if (c % b || (c / b) % b) Fail("the channels " + std::to_string(c) + " are not divisible by blocksize^2");
    const std::int64_t c2 = c / b / b;
    const Shape out_shape{n, c2, CheckedMul(h, b, what), CheckedMul(w, b, what)};
    // Empty: the 6-D view below would have the block size twice among its rows.
    if (x.size() == 0) return {Tensor(x.elem_type(), out_shape)};
    Tensor t = crd ? TransposeTensor(x.Reshaped({n, c2, b, b, h, w}), {0, 1, 4, 2, 5, 3})
                   : TransposeTensor(x.Reshaped({n, b, b, c2, h, w}), {0, 3, 4, 1, 5, 2});
    return {t.Reshaped(out_shape)};
  }
  if (h % b || w % b) Fail("the spatial dims of " + x.Describe() + " are not divisible by blocksize");
  // c first: 0 channels give 0 whatever the block size.
  const Shape out_shape{n, CheckedMul(CheckedMul(c, b, what), b, what), h / b, w / b};
  if (x.size() == 0) return {Tensor(x.elem_type(), out_shape)};
  Tensor t = TransposeTensor(x.Reshaped({n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  return {t.Reshaped(out_shape)};
}

// TopK / ArgMax / reductions ----------------------------------------------------------

std::vector<Value> TopKKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  Tensor x = ToComputeType(x_in);
  const std::int64_t k = ctx.OpsetVersion() < 10 ? RequiredIntAttribute(ctx, "k") : InputIntScalar(ctx, 1);
  const auto axis = static_cast<std::size_t>(NormalizeAxis(ctx.IntAttribute("axis").value_or(-1), static_cast<std::int64_t>(x.rank())));
  const bool largest = ctx.IntAttribute("largest").value_or(1) != 0;
  const std::int64_t n = x.shape()[axis];
  if (k < 0 || k > n) Fail("k " + std::to_string(k) + " is out of range for a dim of size " + std::to_string(n));
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), inner = ShapeSize(x.shape(), axis + 1);
  Shape shape = x.shape();
  shape[axis] = k;
  Tensor idx(TensorProto::INT64, shape);
  auto* pi = idx.MutableData<std::int64_t>();
  Tensor vals = DispatchNumeric(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    Tensor out(x.elem_type(), shape);
    // Nothing to sort; the axis of an empty tensor may be longer than any data, and its
    // order takes 8 bytes a position.
    if (x.size() == 0) return out;
    const T* src = x.Data<T>();
    T* dst = out.MutableData<T>();
    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        auto at = [&](std::int64_t j) { return src[(o * n + j) * inner + in]; };
        std::iota(order.begin(), order.end(), 0);
        // Ties keep the lower index first (stable sort on index order); NaN is larger
        // than every number, so that the order is total.
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
          const T va = at(a), vb = at(b);
          if constexpr (kIsFloat<T>) {
            if (std::isnan(va) || std::isnan(vb)) return largest ? !std::isnan(vb) : !std::isnan(va);
          }
          return largest ? va > vb : va < vb;
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
  const bool keepdims = BoolAttribute(ctx, "keepdims", true);
  const bool last = BoolAttribute(ctx, "select_last_index", false);
  const std::int64_t n = x.shape()[axis];
  if (n == 0) Fail("cannot take ArgMax/ArgMin of an empty axis");
  const std::int64_t outer = ShapeSize(x.shape(), 0, axis), inner = ShapeSize(x.shape(), axis + 1);
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

// The shapes of a reduction's output: `keep_shape` with each reduced dim 1, `shape` without
// them unless keepdims.
struct ReducedShapes {
  Shape keep_shape, shape;
};
ReducedShapes ReduceShapes(const Shape& in, const std::vector<bool>& reduced, bool keepdims) {
  ReducedShapes out{in, {}};
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (reduced[d]) out.keep_shape[d] = 1;
    if (!reduced[d] || keepdims) out.shape.push_back(out.keep_shape[d]);
  }
  return out;
}

// Calls visit(offset) for each element of the array of `sizes` laid out with `strides`
// from `first`, in row-major order (a stride may be 0: reduced dims of an output).
template <class Visit>
void ForEachOffset(std::int64_t first, const Shape& sizes, const Shape& strides, Visit&& visit) {
  if (ShapeSize(sizes) == 0) return;
  Shape index(sizes.size(), 0);
  std::int64_t offset = first;
  for (;;) {
    visit(offset);
    std::size_t d = sizes.size();
    while (d-- > 0) {
      offset += strides[d];
      if (++index[d] < sizes[d]) break;
      offset -= strides[d] * index[d];
      index[d] = 0;
    }
    if (d == static_cast<std::size_t>(-1)) return;  // every index wrapped: done
  }
}

// log(sum(exp(x))) of a row, accumulated as m + log(s) with m the largest element so far and
// s = sum(exp(x - m)): exp(x) overflows double beyond 709 (a float32 row of 1000 gave
// infinity, onnxruntime 1000), and log(exp(1)) is not 1 in double (an integer row [1] gave 0).
struct LogSumExpAccumulator {
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0;  // of exp(x - max)

  void Add(double x) {
    if (std::isnan(x) || std::isnan(max)) {
      max = std::numeric_limits<double>::quiet_NaN();
    } else if (x == max) {
      sum += 1;  // also for two infinities, where x - max is NaN
    } else if (x > max) {
      sum = sum * std::exp(max - x) + 1;
      max = x;
    } else {
      sum += std::exp(x - max);
    }
  }
  // -inf for no element (log 0), +inf when an element is, NaN when one is.
  double Result() const { return std::isinf(max) ? max : max + std::log(sum); }
};

// Row by row (the reduced elements of one output element after another), so that no
// accumulator per output element is needed: 16 bytes each, 16 times an int8 input.
template <class T>
Tensor LogSumExpTensor(const Tensor& x, const std::vector<bool>& reduced, bool keepdims) {
  const Shape& in = x.shape();
  const Shape strides = Strides(in);
  Shape kept_sizes, kept_strides, row_sizes, row_strides;
  for (std::size_t d = 0; d < in.size(); ++d) {
    (reduced[d] ? row_sizes : kept_sizes).push_back(in[d]);
    (reduced[d] ? row_strides : kept_strides).push_back(strides[d]);
  }
  Tensor out(x.elem_type(), ReduceShapes(in, reduced, keepdims).shape);
  T* dst = out.MutableData<T>();
  const T* src = x.Data<T>();
  ForEachOffset(0, kept_sizes, kept_strides, [&](std::int64_t first) {
    LogSumExpAccumulator acc;
    ForEachOffset(first, row_sizes, row_strides, [&](std::int64_t i) { acc.Add(static_cast<double>(src[i])); });
    *dst++ = ConvertNumber<T>(acc.Result());
  });
  return out;
}

template <class T>
Tensor ReduceTensor(const Tensor& x, const std::vector<bool>& reduced, bool keepdims, ReduceOp op) {
  if (op == ReduceOp::kLogSumExp) return LogSumExpTensor<T>(x, reduced, keepdims);
  const auto [keep_shape, shape] = ReduceShapes(x.shape(), reduced, keepdims);
  using Acc = std::conditional_t<kIsFloat<T>, double, std::conditional_t<std::is_same_v<T, bool>, std::int64_t, T>>;
  const std::int64_t out_size = ShapeSize(keep_shape);
  Acc init{};
  if (op == ReduceOp::kProd) init = Acc(1);
  if (op == ReduceOp::kMax)
    init = std::numeric_limits<Acc>::has_infinity ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
  if (op == ReduceOp::kMin)
    init = std::numeric_limits<Acc>::has_infinity ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
  // Of no element, the minimum (maximum) value of the type, as the spec says: for bool,
  // False (True), not the accumulator's int64 extremes, which both read as True.
  if constexpr (std::is_same_v<T, bool>) {
    if (op == ReduceOp::kMax) init = 0;
    if (op == ReduceOp::kMin) init = 1;
  }
  const std::int64_t count = out_size ? x.size() / out_size : 0;
  // The output element of an accumulated value.
  const auto result = [&](Acc a) -> T {
    double v = static_cast<double>(a);
    switch (op) {
      case ReduceOp::kMean: v = v / static_cast<double>(count); break;
      case ReduceOp::kL2: v = std::sqrt(v); break;
      case ReduceOp::kLogSum: v = std::log(v); break;
      default: return static_cast<T>(a);
    }
    return ConvertNumber<T>(v);
  };
  Tensor out(x.elem_type(), shape);
  T* dst = out.MutableData<T>();
  // Nothing to accumulate: every output is the reduction of no element. The rows of an
  // empty input may be countless, and an accumulator per row (8 bytes for bool) took up
  // to 8 times the limit on tensor sizes.
  if (x.size() == 0) {
    std::fill_n(dst, out_size, result(init));
    return out;
  }
  std::vector<Acc> acc(static_cast<std::size_t>(out_size), init);
  const T* src = x.Data<T>();
  std::int64_t i = 0;  // the input walked in order; the output offset has stride 0 on reduced dims
  ForEachOffset(0, x.shape(), BroadcastStrides(keep_shape, x.shape()), [&](std::int64_t o) {
    const Acc v = static_cast<Acc>(src[i++]);
    Acc& a = acc[static_cast<std::size_t>(o)];
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
      case ReduceOp::kLogSum: a = WrappingAdd(a, v); break;
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
      case ReduceOp::kProd: a = WrappingMul(a, v); break;
      case ReduceOp::kL1: a = WrappingAdd(a, v < Acc(0) ? WrappingNeg(v) : v); break;
      case ReduceOp::kL2:
      case ReduceOp::kSumSquare: a = WrappingAdd(a, WrappingMul(v, v)); break;
      case ReduceOp::kLogSumExp: break;  // LogSumExpTensor
    }
  });
  for (std::int64_t o = 0; o < out_size; ++o) dst[o] = result(acc[static_cast<std::size_t>(o)]);
  return out;
}

Kernel ReduceKernel(ReduceOp op, std::int64_t axes_input_since) {
  return [op, axes_input_since](KernelContext& ctx) -> std::vector<Value> {
    const Tensor& x_in = ctx.TensorInput(0);
    Tensor x = ToComputeType(x_in);
    const bool keepdims = BoolAttribute(ctx, "keepdims", true);
    const bool noop = BoolAttribute(ctx, "noop_with_empty_axes", false);
    // Repeated axes are not forbidden: each counts once.
    auto axes = NormalizeAxes(AxesFromAttrOrInput(ctx, axes_input_since, 1), static_cast<std::int64_t>(x.rank()), "axes", true);
    // With no axes and noop_with_empty_axes, nothing is reduced but the element-wise
    // steps still apply (|x| for ReduceL1, x^2 for ReduceSumSquare, log x for ReduceLogSum).
    std::vector<bool> reduced(x.rank(), axes.empty() && !noop);
    for (auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
    Tensor y = DispatchNumericOrBool(x.elem_type(), [&]<class T>(std::type_identity<T>) {
      return ReduceTensor<T>(x, reduced, keepdims, op);
    });
    return {FromComputeType(y, x_in.elem_type())};
  };
}

}  // namespace

void RegisterTensorKernels() {
  Register("Shape", Arity{1, 1}, ShapeKernel);
  Register("Size", Arity{1, 1}, SizeKernel);
  Register("Reshape", Arity{1, 2}, ReshapeKernel);
  Register("Flatten", Arity{1, 1}, FlattenKernel);
  Register("Squeeze", Arity{1, 2}, SqueezeKernel);
  Register("Unsqueeze", Arity{1, 2}, UnsqueezeKernel);
  Register("Transpose", Arity{1, 1}, TransposeKernel);
  Register("Expand", Arity{2, 2}, ExpandKernel);
  Register("Tile", Arity{2, 3}, TileKernel);
  Register("Concat", Arity{1, Arity::kAny}, ConcatKernel);
  Register("Split", Arity{1, 2, 1, Arity::kAny}, SplitKernel);
  Register("Slice", Arity{1, 5}, SliceKernel);
  Register("Pad", Arity{1, 4}, PadKernel);
  Register("Gather", Arity{2, 2}, GatherKernel);
  Register("GatherElements", Arity{2, 2}, GatherElementsKernel);
  Register("GatherND", Arity{2, 2}, GatherNDKernel);
  Register("ScatterND", Arity{3, 3}, ScatterNDKernel);
  Register("ScatterElements", Arity{3, 3}, ScatterElementsKernel);
  Register("Scatter", Arity{3, 3}, ScatterElementsKernel);
  Register("TensorScatter", Arity{2, 3}, TensorScatterKernel);
  Register("Compress", Arity{2, 2}, CompressKernel);
  Register("Range", Arity{3, 3}, RangeKernel);
  Register("ConstantOfShape", Arity{1, 1}, ConstantOfShapeKernel);
  Register("EyeLike", Arity{1, 1}, EyeLikeKernel);
  Register("Trilu", Arity{1, 2}, TriluKernel);
  Register("CumSum", Arity{2, 2}, CumulativeKernel<false>);
  Register("CumProd", Arity{2, 2}, CumulativeKernel<true>);
  Register("OneHot", Arity{3, 3}, OneHotKernel);
  Register("NonZero", Arity{1, 1}, NonZeroKernel);
  Register("DepthToSpace", Arity{1, 1}, [](KernelContext& ctx) { return DepthSpaceKernel(ctx, true); });
  Register("SpaceToDepth", Arity{1, 1}, [](KernelContext& ctx) { return DepthSpaceKernel(ctx, false); });
  Register("TopK", Arity{1, 2, 1, 2}, TopKKernel);
  Register("ArgMax", Arity{1, 1}, [](KernelContext& ctx) { return ArgKernel(ctx, true); });
  Register("ArgMin", Arity{1, 1}, [](KernelContext& ctx) { return ArgKernel(ctx, false); });
  Register("ReduceSum", Arity{1, 2}, ReduceKernel(ReduceOp::kSum, 13));
  Register("ReduceMean", Arity{1, 2}, ReduceKernel(ReduceOp::kMean, 18));
  Register("ReduceMax", Arity{1, 2}, ReduceKernel(ReduceOp::kMax, 18));
  Register("ReduceMin", Arity{1, 2}, ReduceKernel(ReduceOp::kMin, 18));
  Register("ReduceProd", Arity{1, 2}, ReduceKernel(ReduceOp::kProd, 18));
  Register("ReduceL1", Arity{1, 2}, ReduceKernel(ReduceOp::kL1, 18));
  Register("ReduceL2", Arity{1, 2}, ReduceKernel(ReduceOp::kL2, 18));
  Register("ReduceLogSum", Arity{1, 2}, ReduceKernel(ReduceOp::kLogSum, 18));
  Register("ReduceLogSumExp", Arity{1, 2}, ReduceKernel(ReduceOp::kLogSumExp, 18));
  Register("ReduceSumSquare", Arity{1, 2}, ReduceKernel(ReduceOp::kSumSquare, 18));
}

}  // namespace onnxopt::onnx_kernels
