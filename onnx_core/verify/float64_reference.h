#pragma once
// A float64 evaluation of a model, to tell rounding from a wrong result.
//
// Two models that compute the same formula with their float operations in another order
// (a rewrite of the "rounding" class: (x*a)*b as x*(a*b), a folded BatchNormalization)
// round differently, and a model can amplify one unit in the last place into a difference
// beyond any tolerance of its type: a float16 MatMul over a thousand terms, a
// normalization of values that nearly cancel. Compared with each other, both look wrong;
// compared with the same model evaluated in float64, each shows how far its own rounding
// took it. model_comparison.cc accepts a model whose outputs are no farther from that
// evaluation than the original's (AsAccurateAs).
//
// The float64 model is the original with every float, float16 and bfloat16 tensor made
// float64: initializers, graph inputs and outputs, value infos, Constant and
// ConstantOfShape values, and the float targets of Cast and of `dtype` attributes, in
// nested graphs and local functions too. Its inputs are the drawn inputs, converted
// exactly.

#include <optional>
#include <string>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::verify {

// `model` computing in float64, or nullopt with the reason in `why` when a tensor cannot
// be converted (external data that was not loaded, a sparse floating-point initializer).
std::optional<ModelProto> PromoteToFloat64(const ModelProto& model, std::string* why);

// `values` with every floating-point tensor (in sequences too) converted to float64.
eval::ValueMap ToFloat64(const eval::ValueMap& values);

// How far `value` is from the float64 evaluation `exact` of the same output, in units of
// the tolerance of `value`'s type at each element (atol + rtol * |exact|): the largest and
// the root mean square over the elements. nullopt when they cannot be compared that way:
// not tensors of a floating-point type and the same shape, or an element that is NaN or
// infinite in one of them.
struct ErrorInTolerances {
  double largest = 0, rms = 0;
};
std::optional<ErrorInTolerances> MeasureError(const eval::Value& value, const eval::Value& exact,
                                              const eval::ToleranceOptions& tolerances);

// Whether `candidate`, which differs from `original` beyond the tolerances, is as accurate
// as `original` against their float64 evaluation `exact`: its root-mean-square error at
// most twice the original's, and its largest error at most five times the original's,
// each taken as at least half a tolerance. The mean shows a small systematic error (a
// constant off by 1 %) that the largest errors of amplified rounding hide; the largest
// shows a single wrong element. A model whose original is exact is so held to 1 tolerance
// in the mean and 2.5 at the worst. (Measured on float16 sums of 1 024 terms reassociated
// as the rounding patterns do, 284 input sets: mean ratios below 0.95, largest below 3.8;
// a constant off by 0.5 % or 1 % fails on every one of 160 input sets.)
struct RoundingVerdict {
  bool as_accurate = false;
  std::optional<ErrorInTolerances> original_error, candidate_error;
};
RoundingVerdict AsAccurateAs(const eval::Value& candidate, const eval::Value& original, const eval::Value& exact,
                             const eval::ToleranceOptions& tolerances);

}  // namespace onnxopt::core::verify
