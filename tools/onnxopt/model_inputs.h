#pragma once
// Inputs and outputs of `onnxopt run` and `onnxopt verify`: the options of the seeded
// random inputs (onnx_core/verify/random_inputs.h draws them), output summaries and output
// file names.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/input_shapes.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/verify/random_inputs.h"

namespace onnxopt::cli {

// The random inputs are drawn by onnx_core/verify (the Python package compares models too).
using core::verify::RandomInputOptions;
using core::verify::RandomInputs;

// Removes every occurrence of the value option `name` (`--name VALUE` or `--name=VALUE`)
// from `args` and returns the values in order (cli::Arguments keeps only the last).
std::vector<std::string> TakeRepeatedOption(std::vector<std::string>& args, std::string_view name);
// Parses NAME=VALUE; throws UsageError mentioning `option`.
std::pair<std::string, std::string> SplitAssignment(const std::string& text, std::string_view option);
// Parses the shared options --seed, --dim (already taken out), --float-range, --int-max.
RandomInputOptions ParseRandomInputOptions(const std::vector<std::string>& dims, const std::optional<std::string>& seed,
                                           const std::optional<std::string>& float_range,
                                           const std::optional<std::string>& int_max);
// core::ir::ParseInputShapeSettings (--overwrite-input-shape, --dim), throwing UsageError.
core::ir::InputShapeSettings ParseInputShapeSettings(const std::vector<std::string>& input_shapes,
                                                     const std::vector<std::string>& dims);
double ParseNonNegativeNumber(const std::string& text, std::string_view option);

// "float[2,3] min=-0.5 max=0.9 mean=0.1 [0.25, -0.5, ...]"; sequences and absent
// optionals too.
std::string SummarizeValue(const core::eval::Value& value);

// A file name for an output: characters outside [A-Za-z0-9._-] are percent-encoded
// (%XX of each UTF-8 byte), which keeps distinct names distinct; "." and ".." are
// encoded too.
std::string EscapeFileName(std::string_view name);

}  // namespace onnxopt::cli
