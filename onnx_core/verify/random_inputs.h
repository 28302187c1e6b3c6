#pragma once
// Seeded random inputs for a model: the conventions of tests/ort/compare_models.js, so
// that a seed means the same inputs for onnxopt and for the onnxruntime harness.

#include <cstdint>
#include <map>
#include <string>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::verify {

struct RandomInputOptions {
  std::uint32_t seed = 0;
  // Value of each symbolic dimension by name (--dim NAME=VALUE); others are 2.
  std::map<std::string, std::int64_t, std::less<>> dims;
  double float_range = 1.0;  // floats uniform in [-R, R)
  std::int64_t int_max = 16;  // integers uniform in [0, int_max)
};

// One tensor per graph input that is not an initializer, in graph order, drawn from
// mulberry32(seed) element after element like compare_models.js: floats
// (rand() * 2 - 1) * R, integers floor(rand() * int_max), bool rand() < 0.5, strings
// "s<int>". Symbolic dimensions take their --dim value (2 by default), the same for
// every input sharing the name; unknown dimensions are 2. `symbols` receives the values
// used. Throws ModelError for an input that is not a tensor or whose type has no
// generator (float8, int4...).
eval::ValueMap RandomInputs(const ModelProto& model, const RandomInputOptions& options,
                            std::map<std::string, std::int64_t>* symbols = nullptr);

}  // namespace onnxopt::core::verify
