#pragma once
// Comparison of two evaluations' values, the rule of `onnxopt verify` (and of the graph
// fuzzer, which checks the optimizer the same way): types and shapes equal; integers, bool
// and strings identical; floating-point elements a and b match when both are NaN, or both
// are the same infinity, or both are finite and |a - b| <= atol + rtol * max(|a|, |b|).
// Symmetric: the order of the two values never changes the verdict.

#include <optional>
#include <string>

#include "onnx_core/eval/tensor.h"

namespace onnxopt::core::eval {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
};

// Tolerances chosen by a user, each replacing the default of every floating-point type.
struct ToleranceOptions {
  std::optional<double> atol, rtol;
};

// float, double, float16, bfloat16 and the float8/float4 types.
bool IsFloatingPointType(int elem_type);

// The tolerance for `elem_type`: `given` where set, else the type's default (float and
// double 1e-4 / 1e-3; float16 1e-3 / 2e-3 and bfloat16 1e-2 / 1.6e-2, about one and two
// units in the last place at 1, so that a computation in another precision is still
// caught; the float8 and float4 types 0).
Tolerance ToleranceOf(int elem_type, const ToleranceOptions& given = {});

bool FloatsMatch(double a, double b, const Tolerance& tolerance);

struct Comparison {
  bool ok = true;
  double max_abs_diff = 0;  // over the numeric elements that differ (inf: a NaN on one side)
  std::string reason;       // when not ok: what differs ("3/10 elements differ, first at 2: ...")
  // False when the values could not be compared element by element (another kind, type or
  // shape): max_abs_diff then says nothing.
  bool elements_compared = true;
};

Comparison CompareTensors(const Tensor& a, const Tensor& b, const ToleranceOptions& tolerances = {});
// Tensors, sequences (element by element) and absent optionals.
Comparison CompareValues(const Value& a, const Value& b, const ToleranceOptions& tolerances = {});

}  // namespace onnxopt::core::eval
