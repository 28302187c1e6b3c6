// Kernels that reorder or select elements: ReverseSequence (reverses a prefix of each
// sequence of a batch) and Unique (distinct elements or slices, sorted or in order of
// first occurrence, with their first indices, inverse indices and counts).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

// ReverseSequence(input, sequence_lens): along time_axis, the first sequence_lens[b]
// elements of batch b in reverse order, the others unchanged.
std::vector<Value> ReverseSequenceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  if (x.rank() < 2) Fail("input must have rank 2 or more, found shape " + ShapeToString(x.shape()));
  const std::int64_t batch_axis = ctx.IntAttribute("batch_axis").value_or(1);
  const std::int64_t time_axis = ctx.IntAttribute("time_axis").value_or(0);
  if ((batch_axis != 0 && batch_axis != 1) || (time_axis != 0 && time_axis != 1) || batch_axis == time_axis)
    Fail("batch_axis and time_axis must be 0 and 1 in some order, found batch_axis=" + std::to_string(batch_axis) +
         ", time_axis=" + std::to_string(time_axis));
  const std::int64_t batch = x.shape()[static_cast<std::size_t>(batch_axis)];
  const std::int64_t time = x.shape()[static_cast<std::size_t>(time_axis)];
  const Tensor& lens_tensor = ctx.TensorInput(1);
  if (lens_tensor.elem_type() != TensorProto::INT64)
    Fail("sequence_lens must be int64, found " + ElemTypeName(lens_tensor.elem_type()));
  if (lens_tensor.rank() != 1 || lens_tensor.shape()[0] != batch)
    Fail("sequence_lens must be a 1-D tensor of batch_size=" + std::to_string(batch) + " elements, found shape " +
         ShapeToString(lens_tensor.shape()));
  const std::vector<std::int64_t> lens = lens_tensor.ToInt64Vector();
  for (std::size_t b = 0; b < lens.size(); ++b)
    if (lens[b] < 0 || lens[b] > time)
      Fail("sequence_lens value " + std::to_string(lens[b]) + " at index " + std::to_string(b) +
           " is out of range [0, " + std::to_string(time) + "] (the time axis)");
  const std::int64_t inner = ShapeSize(Shape(x.shape().begin() + 2, x.shape().end()));
  // Nothing moves in an empty tensor, whose other dimensions may be huge.
  if (x.size() == 0) return {x};
  // Offset of the slice (t, b) in the row-major layout.
  const auto offset = [&](std::int64_t t, std::int64_t b) {
    return (time_axis == 0 ? t * batch + b : b * time + t) * inner;
  };
  Tensor y = x;
  DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t t = 0; t < lens[static_cast<std::size_t>(b)]; ++t)
        std::copy_n(in + offset(lens[static_cast<std::size_t>(b)] - 1 - t, b), inner, out + offset(t, b));
  });
  return {y};
}

// Unique ------------------------------------------------------------------------------

// Ascending order with every NaN after the numbers and equal to the other NaNs (as
// NumPy's unique groups them); -0 and +0 are equal.
template <class T>
int CompareElements(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

// The items compared by Unique: `count` slices of `length` elements, slice i made of
// `outer` runs of `inner` elements at (o * count + i) * inner.
struct UniqueItems {
  std::int64_t count = 0, outer = 1, inner = 1;
};

struct UniqueGroups {
  std::vector<std::int64_t> first;    // per unique item, in output order: index of its first occurrence
  std::vector<std::int64_t> counts;   // per unique item
  std::vector<std::int64_t> inverse;  // per input item: index of its unique item
};

template <class T>
UniqueGroups GroupItems(const T* data, const UniqueItems& items, bool sorted) {
  const auto compare = [&](std::int64_t a, std::int64_t b) {
    // Empty slices are all equal (and outer may be huge then).
    if (items.outer == 0 || items.inner == 0) return 0;
    for (std::int64_t o = 0; o < items.outer; ++o)
      for (std::int64_t j = 0; j < items.inner; ++j) {
        const int c = CompareElements(data[(o * items.count + a) * items.inner + j],
                                      data[(o * items.count + b) * items.inner + j]);
        if (c != 0) return c;
      }
    return 0;
  };
  std::vector<std::int64_t> order(static_cast<std::size_t>(items.count));
  std::iota(order.begin(), order.end(), 0);
  // Stable: the first item of each run of equal items is the first occurrence.
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return compare(a, b) < 0; });
  UniqueGroups g;
  g.inverse.resize(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || compare(order[k - 1], order[k]) != 0) {
      g.first.push_back(order[k]);
      g.counts.push_back(0);
    }
    ++g.counts.back();
    g.inverse[static_cast<std::size_t>(order[k])] = static_cast<std::int64_t>(g.first.size()) - 1;
  }
  if (sorted) return g;
  // Order of first occurrence: renumber the groups by their first index.
  std::vector<std::int64_t> by_first(g.first.size());
  std::iota(by_first.begin(), by_first.end(), 0);
  std::sort(by_first.begin(), by_first.end(), [&](std::int64_t a, std::int64_t b) {
    return g.first[static_cast<std::size_t>(a)] < g.first[static_cast<std::size_t>(b)];
  });
  std::vector<std::int64_t> renumber(by_first.size());
  UniqueGroups r;
  for (std::size_t k = 0; k < by_first.size(); ++k) {
    renumber[static_cast<std::size_t>(by_first[k])] = static_cast<std::int64_t>(k);
    r.first.push_back(g.first[static_cast<std::size_t>(by_first[k])]);
    r.counts.push_back(g.counts[static_cast<std::size_t>(by_first[k])]);
  }
  for (std::int64_t& i : g.inverse) i = renumber[static_cast<std::size_t>(i)];
  r.inverse = std::move(g.inverse);
  return r;
}

Tensor Int64Vector(const std::vector<std::int64_t>& values) {
  Tensor t(TensorProto::INT64, {static_cast<std::int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.MutableData<std::int64_t>());
  return t;
}

// Unique(X) -> (Y, indices, inverse_indices, counts)
std::vector<Value> UniqueKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  // Their stored bits do not sort like their values (and the spec does not list them).
  if (x.elem_type() >= core::eval::kFloat8E4M3FN && !core::eval::ByteIntegerOf(x.elem_type()))
    Fail("unsupported element type " + ElemTypeName(x.elem_type()));
  const std::int64_t sorted = ctx.IntAttribute("sorted").value_or(1);
  if (sorted != 0 && sorted != 1) Fail("sorted must be 0 or 1, found " + std::to_string(sorted));
  UniqueItems items{x.size(), 1, 1};
  std::int64_t axis = -1;
  if (const auto a = ctx.IntAttribute("axis")) {
    axis = NormalizeAxis(*a, static_cast<std::int64_t>(x.rank()));
    items.count = x.shape()[static_cast<std::size_t>(axis)];
    items.outer = ShapeSize(Shape(x.shape().begin(), x.shape().begin() + axis));
    items.inner = ShapeSize(Shape(x.shape().begin() + axis + 1, x.shape().end()));
  }
  // Allocated first: when the slices are empty, their count is not bounded by X's data.
  Tensor inverse(TensorProto::INT64, {items.count});
  // float16 is compared through float; the other types by their stored values.
  const Tensor keys = ToComputeType(x);
  const UniqueGroups g = DispatchStorage(keys.elem_type(), [&]<class T>(std::type_identity<T>) {
    return GroupItems(keys.Data<T>(), items, sorted == 1);
  });
  std::copy(g.inverse.begin(), g.inverse.end(), inverse.MutableData<std::int64_t>());
  const auto unique = static_cast<std::int64_t>(g.first.size());
  Shape y_shape{unique};
  if (axis >= 0) {
    y_shape = x.shape();
    y_shape[static_cast<std::size_t>(axis)] = unique;
  }
  Tensor y(x.elem_type(), y_shape);
  if (y.size() > 0) DispatchStorage(x.elem_type(), [&]<class T>(std::type_identity<T>) {
    const T* in = x.Data<T>();
    T* out = y.MutableData<T>();
    for (std::int64_t o = 0; o < items.outer; ++o)
      for (std::int64_t k = 0; k < unique; ++k)
        std::copy_n(in + (o * items.count + g.first[static_cast<std::size_t>(k)]) * items.inner, items.inner,
                    out + (o * unique + k) * items.inner);
  });
  return {y, Int64Vector(g.first), inverse, Int64Vector(g.counts)};
}

}  // namespace

void RegisterReorderKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "ReverseSequence", ReverseSequenceKernel);
  RegisterKernel("", "Unique", UniqueKernel);
}

}  // namespace onnxopt::onnx_kernels
