#pragma once
// Comparing two models' outputs on random inputs: the core of `onnxopt verify`, also run
// by `onnxopt optimize --check` and onnxopt.optimize(check=N) in Python.

#include <ostream>
#include <string>

#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/verify/random_inputs.h"

namespace onnxopt::core::verify {

// Runs both models with the reference evaluator on one draw of random inputs
// (options.seed; the inputs either model needs, each model receiving those it declares)
// and one evaluation seed, compares the outputs by name (onnxopt verify --help gives the
// rules), prints one line per output and the verdict to `out`, and returns whether every
// comparable output matches. `name_a` and `name_b` name the models in messages. A model
// that fails to run throws ModelError naming it.
//
// With Rounding::kJudgeAgainstFloat64 (model_b is model_a rewritten), an output that
// differs beyond the tolerances still matches when model_b's is as accurate as model_a's
// against a float64 evaluation of model_a (float64_reference.h: rewrites that reorder
// float rounding, amplified by the model); the line says so, with both errors.
enum class Rounding { kTolerancesOnly, kJudgeAgainstFloat64 };
bool CompareOnRandomInputs(const ModelProto& model_a, const std::string& name_a, const ModelProto& model_b,
                           const std::string& name_b, const RandomInputOptions& options,
                           const eval::ToleranceOptions& tolerances, std::ostream& out,
                           Rounding rounding = Rounding::kTolerancesOnly);

}  // namespace onnxopt::core::verify
