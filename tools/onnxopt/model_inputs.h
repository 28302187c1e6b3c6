#pragma once
// Inputs and outputs of `onnxopt run` and `onnxopt verify`: seeded random inputs (the
// conventions of tests/ort/compare_models.js, so that a seed means the same inputs for
// onnxopt and for the onnxruntime harness), output summaries and output file names.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::cli {

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
core::eval::ValueMap RandomInputs(const ModelProto& model, const RandomInputOptions& options,
                                  std::map<std::string, std::int64_t>* symbols = nullptr);

// Removes every occurrence of the value option `name` (`--name VALUE` or `--name=VALUE`)
// from `args` and returns the values in order (cli::Arguments keeps only the last).
std::vector<std::string> TakeRepeatedOption(std::vector<std::string>& args, std::string_view name);
// Parses NAME=VALUE; throws UsageError mentioning `option`.
std::pair<std::string, std::string> SplitAssignment(const std::string& text, std::string_view option);
// Parses the shared options --seed, --dim (already taken out), --float-range, --int-max.
RandomInputOptions ParseRandomInputOptions(const std::vector<std::string>& dims, const std::optional<std::string>& seed,
                                           const std::optional<std::string>& float_range,
                                           const std::optional<std::string>& int_max);
double ParseNonNegativeNumber(const std::string& text, std::string_view option);

// "float[2,3] min=-0.5 max=0.9 mean=0.1 [0.25, -0.5, ...]"; sequences and absent
// optionals too.
std::string SummarizeValue(const core::eval::Value& value);

// A file name for an output: characters outside [A-Za-z0-9._-] are percent-encoded
// (%XX of each UTF-8 byte), which keeps distinct names distinct; "." and ".." are
// encoded too.
std::string EscapeFileName(std::string_view name);

}  // namespace onnxopt::cli
