// Linear algebra: Det, by LU decomposition with partial pivoting in double.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

// Determinant of the n x n row-major matrix `a` (overwritten): the product of the pivots
// of its LU decomposition, negated for every row swap. 1 for n = 0.
double Determinant(double* a, std::int64_t n) {
  double det = 1;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t pivot = k;
    for (std::int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[pivot * n + k])) pivot = i;
    if (a[pivot * n + k] == 0) return 0;
    if (pivot != k) {
      std::swap_ranges(a + pivot * n, a + pivot * n + n, a + k * n);
      det = -det;
    }
    const double p = a[k * n + k];
    det *= p;
    for (std::int64_t i = k + 1; i < n; ++i) {
      const double factor = a[i * n + k] / p;
      for (std::int64_t j = k + 1; j < n; ++j) a[i * n + j] -= factor * a[k * n + j];
    }
  }
  return det;
}

// Det(X [*, M, M]) -> [*]
std::vector<Value> DetKernel(KernelContext& ctx) {
  const Tensor& x = ctx.TensorInput(0);
  const int type = x.elem_type();
  const bool ok = type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
                  (type == TensorProto::BFLOAT16 && ctx.OpsetVersion() >= 22);
  if (!ok) Fail("X must be a float tensor, found " + ElemTypeName(type));
  const std::size_t rank = x.rank();
  if (rank < 2 || x.shape()[rank - 1] != x.shape()[rank - 2])
    Fail("X must have shape [*, M, M] (square matrices), found " + ShapeToString(x.shape()));
  const std::int64_t n = x.shape()[rank - 1];
  const Shape batch_shape(x.shape().begin(), x.shape().end() - 2);
  // Allocated first: with M = 0 the batch dimensions are not bounded by X's data.
  Tensor det(TensorProto::DOUBLE, batch_shape);
  // The elimination takes about n^3/3 multiply-adds per matrix: a 4 MB input of one
  // 1000 x 1000 matrix costs 3*10^8, its output is one value.
  ChargeWork(static_cast<double>(det.size()) * std::pow(static_cast<double>(n), 3) / 3, "Det's elimination");
  double* d = det.MutableData<double>();
  std::vector<double> values = nn::ReadAs<double>(x);
  for (std::int64_t b = 0; b < det.size(); ++b) d[b] = Determinant(values.data() + b * n * n, n);
  return {type == TensorProto::DOUBLE ? det : nn::WriteAs(type, batch_shape, d)};
}

}  // namespace

void RegisterLinalgKernels() { core::eval::RegisterKernel("", "Det", DetKernel); }

}  // namespace onnxopt::onnx_kernels
