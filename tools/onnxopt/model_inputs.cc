#include "tools/onnxopt/model_inputs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "onnx_core/common/error.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace {

using core::eval::Tensor;
using core::eval::Value;

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << std::setprecision(6) << value;
  return out.str();
}

std::string SummarizeTensor(const Tensor& tensor) {
  std::string text = tensor.Describe();
  constexpr std::int64_t kShown = 6;
  if (tensor.elem_type() == TensorProto::STRING) {
    const std::string* data = tensor.Data<std::string>();
    text += " [";
    for (std::int64_t i = 0; i < std::min(tensor.size(), kShown); ++i)
      text += (i ? ", \"" : "\"") + data[i] + "\"";
    return text + (tensor.size() > kShown ? ", ...]" : "]");
  }
  // In pieces: a whole output as doubles would take twice or four times its own memory
  // (on llama_forward, a third of the page faults of `onnxopt run`).
  constexpr std::int64_t kPiece = 1 << 16;
  std::vector<double> first_values;
  double min = std::numeric_limits<double>::infinity(), max = -min, sum = 0;
  std::int64_t nan = 0;
  // One conversion even of an empty tensor: it says whether the type is printable.
  for (std::int64_t first = 0; first == 0 || first < tensor.size(); first += kPiece) {
    std::vector<double> values;
    try {
      values = tensor.ToDoubleVector(first, std::min(kPiece, tensor.size() - first));
    } catch (const Error&) {
      return text + " (values not printable)";
    }
    if (first == 0) first_values.assign(values.begin(), values.begin() + std::min<std::ptrdiff_t>(kShown, std::ssize(values)));
    for (double v : values) {
      if (std::isnan(v)) {
        ++nan;
        continue;
      }
      min = std::min(min, v);
      max = std::max(max, v);
      sum += v;
    }
  }
  if (tensor.size() > 0) {
    if (nan < tensor.size())
      text += " min=" + FormatNumber(min) + " max=" + FormatNumber(max) +
              " mean=" + FormatNumber(sum / static_cast<double>(tensor.size() - nan));
    if (nan) text += " nan=" + std::to_string(nan);
  }
  text += " [";
  for (std::size_t i = 0; i < first_values.size(); ++i) text += (i ? ", " : "") + FormatNumber(first_values[i]);
  return text + (tensor.size() > kShown ? ", ...]" : "]");
}

}  // namespace

std::vector<std::string> TakeRepeatedOption(std::vector<std::string>& args, std::string_view name) {
  std::vector<std::string> values, rest;
  const std::string prefix = std::string(name) + "=";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    if (args[i] == name) {
      if (i + 1 >= args.size()) throw UsageError("option " + std::string(name) + " needs a value");
      values.push_back(args[++i]);
    } else if (args[i].starts_with(prefix)) {
      values.push_back(args[i].substr(prefix.size()));
    } else {
      rest.push_back(args[i]);
    }
  }
  args = std::move(rest);
  return values;
}

std::pair<std::string, std::string> SplitAssignment(const std::string& text, std::string_view option) {
  const auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError(std::string(option) + " expects NAME=VALUE, got '" + text + "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

double ParseNonNegativeNumber(const std::string& text, std::string_view option) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value >= 0) || std::isinf(value))
    throw UsageError(std::string(option) + " expects a non-negative number, got '" + text + "'");
  return value;
}

namespace {
std::int64_t ParseInteger(const std::string& text, std::string_view option, std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(std::string(option) + " expects an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got '" + text + "'");
  return value;
}
}  // namespace

RandomInputOptions ParseRandomInputOptions(const std::vector<std::string>& dims, const std::optional<std::string>& seed,
                                           const std::optional<std::string>& float_range,
                                           const std::optional<std::string>& int_max) {
  RandomInputOptions options;
  if (seed) options.seed = static_cast<std::uint32_t>(ParseInteger(*seed, "--seed", 0, UINT32_MAX));
  if (float_range) options.float_range = ParseNonNegativeNumber(*float_range, "--float-range");
  if (int_max) options.int_max = ParseInteger(*int_max, "--int-max", 1, std::int64_t{1} << 31);
  for (const auto& [symbol, value] : ParseInputShapeSettings({}, dims).dims) options.dims[symbol] = value;
  return options;
}

core::ir::InputShapeSettings ParseInputShapeSettings(const std::vector<std::string>& input_shapes,
                                                     const std::vector<std::string>& dims) {
  try {
    return core::ir::ParseInputShapeSettings(input_shapes, dims);
  } catch (const Error& error) {
    throw UsageError(error.what());
  }
}

std::string SummarizeValue(const core::eval::Value& value) {
  if (const auto* tensor = std::get_if<Tensor>(&value)) return SummarizeTensor(*tensor);
  if (const auto* sequence = std::get_if<core::eval::Sequence>(&value)) {
    std::string text = "sequence of " + std::to_string(sequence->size()) + " tensors";
    for (std::size_t i = 0; i < sequence->size() && i < 3; ++i) text += "\n    [" + std::to_string(i) + "] " + SummarizeTensor((*sequence)[i]);
    return text;
  }
  return "optional without a value";
}

std::string EscapeFileName(std::string_view name) {
  const bool dots = name == "." || name == "..";
  std::string out;
  for (char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '-';
    if (!dots && plain) {
      out += c;
    } else {
      constexpr char kHex[] = "0123456789ABCDEF";
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

}  // namespace onnxopt::cli
