#include "onnx_core/eval/value_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <vector>

#include "onnx_core/common/quote.h"
#include "onnx_core/eval/float8.h"

namespace onnxopt::core::eval {

bool IsFloatingPointType(int elem_type) {
  return elem_type == TensorProto::FLOAT || elem_type == TensorProto::DOUBLE || elem_type == TensorProto::FLOAT16 ||
         elem_type == TensorProto::BFLOAT16 || IsByteCodedFloat(elem_type);
}

// float and double: rounding differences accumulated over long reductions pass, wrong
// results do not. The 16-bit types have few significant bits: atol is about one unit in
// the last place at 1 (random inputs lie in [-1, 1)), rtol about two units (float16 2^-10,
// bfloat16 2^-7). float8 and float4 have so few values that results are expected to be
// identical.
Tolerance ToleranceOf(int elem_type, const ToleranceOptions& given) {
  Tolerance tolerance;
  switch (elem_type) {
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE: tolerance = {1e-4, 1e-3}; break;
    case TensorProto::FLOAT16: tolerance = {1e-3, 2e-3}; break;
    case TensorProto::BFLOAT16: tolerance = {1e-2, 1.6e-2}; break;
    default: break;
  }
  return {given.atol.value_or(tolerance.atol), given.rtol.value_or(tolerance.rtol)};
}

bool FloatsMatch(double a, double b, const Tolerance& tolerance) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= tolerance.atol + tolerance.rtol * std::max(std::abs(a), std::abs(b));
}

namespace {

std::string ElementMismatch(std::int64_t count, std::int64_t total, std::int64_t first, const std::string& a,
                            const std::string& b) {
  return std::to_string(count) + "/" + std::to_string(total) + " elements differ, first at " + std::to_string(first) +
         ": " + a + " vs " + b;
}

std::string FormatDouble(double value) {
  std::ostringstream out;
  out << std::setprecision(9) << value;
  return out.str();
}

}  // namespace

Comparison CompareTensors(const Tensor& a, const Tensor& b, const ToleranceOptions& tolerances) {
  Comparison result;
  if (a.elem_type() != b.elem_type() || a.shape() != b.shape())
    return {false, 0, a.Describe() + " vs " + b.Describe(), false};
  std::int64_t bad = 0, first = -1;
  if (a.elem_type() == TensorProto::STRING) {
    const std::string* x = a.Data<std::string>();
    const std::string* y = b.Data<std::string>();
    for (std::int64_t i = 0; i < a.size(); ++i)
      if (x[i] != y[i] && bad++ == 0) first = i;
    if (bad) result = {false, 0, ElementMismatch(bad, a.size(), first, Quote(x[first]), Quote(y[first]))};
    return result;
  }
  if (!IsFloatingPointType(a.elem_type())) {
    // Compared as stored: through doubles, int64 values above 2^53 would collapse.
    const std::size_t width = StorageBytes(a.elem_type());
    for (std::int64_t i = 0; i < a.size(); ++i)
      if (std::memcmp(a.RawData() + i * width, b.RawData() + i * width, width) != 0 && bad++ == 0) first = i;
    if (bad) {
      const std::vector<double> x = a.ToDoubleVector(), y = b.ToDoubleVector();
      double max_abs_diff = 0;  // through doubles: a display figure, the test above is exact
      for (std::size_t i = 0; i < x.size(); ++i) max_abs_diff = std::max(max_abs_diff, std::abs(x[i] - y[i]));
      result = {false, max_abs_diff,
                ElementMismatch(bad, a.size(), first, FormatDouble(x[static_cast<std::size_t>(first)]),
                                FormatDouble(y[static_cast<std::size_t>(first)]))};
    }
    return result;
  }
  const Tolerance tolerance = ToleranceOf(a.elem_type(), tolerances);
  const std::vector<double> x = a.ToDoubleVector();
  const std::vector<double> y = b.ToDoubleVector();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(std::isnan(x[i]) && std::isnan(y[i])) && x[i] != y[i]) {
      const double diff = std::abs(x[i] - y[i]);
      result.max_abs_diff = std::isnan(diff) ? INFINITY : std::max(result.max_abs_diff, diff);
    }
    if (!FloatsMatch(x[i], y[i], tolerance) && bad++ == 0) first = static_cast<std::int64_t>(i);
  }
  if (bad) {
    result.ok = false;
    result.reason = ElementMismatch(bad, a.size(), first, FormatDouble(x[static_cast<std::size_t>(first)]),
                                    FormatDouble(y[static_cast<std::size_t>(first)]));
  }
  return result;
}

Comparison CompareValues(const Value& a, const Value& b, const ToleranceOptions& tolerances) {
  if (a.index() != b.index())
    return {false, 0, "different kinds of value (tensor, sequence, absent optional)", false};
  if (const auto* ta = std::get_if<Tensor>(&a)) return CompareTensors(*ta, std::get<Tensor>(b), tolerances);
  if (const auto* sa = std::get_if<Sequence>(&a)) {
    const auto& sb = std::get<Sequence>(b);
    if (sa->size() != sb.size())
      return {false, 0, "sequences of " + std::to_string(sa->size()) + " and " + std::to_string(sb.size()) + " tensors",
              false};
    Comparison total;
    for (std::size_t i = 0; i < sa->size(); ++i) {
      Comparison one = CompareTensors((*sa)[i], sb[i], tolerances);
      total.max_abs_diff = std::max(total.max_abs_diff, one.max_abs_diff);
      if (!one.ok && total.ok)
        total = {false, total.max_abs_diff, "element " + std::to_string(i) + ": " + one.reason, one.elements_compared};
    }
    return total;
  }
  return {};
}

}  // namespace onnxopt::core::eval
