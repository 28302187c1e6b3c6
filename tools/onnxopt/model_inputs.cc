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

// mulberry32, bit for bit the generator of tests/ort/prng.js.
class Mulberry32 {
 public:
  explicit Mulberry32(std::uint32_t seed) : state_(seed) {}
  double Next() {
    state_ += 0x6D2B79F5u;
    std::uint32_t t = state_;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }

 private:
  std::uint32_t state_;
};

template <class T>
void FillIntegers(Tensor& tensor, Mulberry32& rand, std::int64_t int_max) {
  T* data = tensor.MutableData<T>();
  for (std::int64_t i = 0; i < tensor.size(); ++i)
    data[i] = static_cast<T>(std::floor(rand.Next() * static_cast<double>(int_max)));
}

Tensor RandomTensor(const std::string& name, int elem_type, std::vector<std::int64_t> shape, Mulberry32& rand,
                    const RandomInputOptions& options) {
  Tensor tensor(elem_type, std::move(shape));
  const std::int64_t n = tensor.size();
  const double r = options.float_range;
  switch (elem_type) {
    case TensorProto::FLOAT: {
      float* data = tensor.MutableData<float>();
      for (std::int64_t i = 0; i < n; ++i) data[i] = static_cast<float>((rand.Next() * 2 - 1) * r);
      break;
    }
    case TensorProto::DOUBLE: {
      double* data = tensor.MutableData<double>();
      for (std::int64_t i = 0; i < n; ++i) data[i] = (rand.Next() * 2 - 1) * r;
      break;
    }
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: {
      std::uint16_t* data = tensor.MutableData<std::uint16_t>();
      const bool half = elem_type == TensorProto::FLOAT16;
      for (std::int64_t i = 0; i < n; ++i) {
        const auto value = static_cast<float>((rand.Next() * 2 - 1) * r);
        data[i] = half ? core::eval::FloatToHalf(value) : core::eval::FloatToBFloat16(value);
      }
      break;
    }
    case TensorProto::INT8: FillIntegers<std::int8_t>(tensor, rand, options.int_max); break;
    case TensorProto::INT16: FillIntegers<std::int16_t>(tensor, rand, options.int_max); break;
    case TensorProto::INT32: FillIntegers<std::int32_t>(tensor, rand, options.int_max); break;
    case TensorProto::INT64: FillIntegers<std::int64_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT8: FillIntegers<std::uint8_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT16: FillIntegers<std::uint16_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT32: FillIntegers<std::uint32_t>(tensor, rand, options.int_max); break;
    case TensorProto::UINT64: FillIntegers<std::uint64_t>(tensor, rand, options.int_max); break;
    case TensorProto::BOOL: {
      bool* data = tensor.MutableData<bool>();
      for (std::int64_t i = 0; i < n; ++i) data[i] = rand.Next() < 0.5;
      break;
    }
    case TensorProto::STRING: {
      std::string* data = tensor.MutableData<std::string>();
      for (std::int64_t i = 0; i < n; ++i)
        data[i] = "s" + std::to_string(static_cast<std::int64_t>(std::floor(rand.Next() * static_cast<double>(options.int_max))));
      break;
    }
    default:
      throw ModelError("input '" + name + "' has element type " + std::to_string(elem_type) +
                       ", for which no random generator exists: give it with --input NAME=FILE.npy");
  }
  return tensor;
}

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
  std::vector<double> values;
  try {
    values = tensor.ToDoubleVector();
  } catch (const Error&) {
    return text + " (values not printable)";
  }
  if (!values.empty()) {
    double min = std::numeric_limits<double>::infinity(), max = -min, sum = 0;
    std::int64_t nan = 0;
    for (double v : values) {
      if (std::isnan(v)) {
        ++nan;
        continue;
      }
      min = std::min(min, v);
      max = std::max(max, v);
      sum += v;
    }
    if (nan < static_cast<std::int64_t>(values.size()))
      text += " min=" + FormatNumber(min) + " max=" + FormatNumber(max) +
              " mean=" + FormatNumber(sum / static_cast<double>(values.size() - static_cast<std::size_t>(nan)));
    if (nan) text += " nan=" + std::to_string(nan);
  }
  text += " [";
  for (std::size_t i = 0; i < std::min(values.size(), static_cast<std::size_t>(kShown)); ++i)
    text += (i ? ", " : "") + FormatNumber(values[i]);
  return text + (values.size() > kShown ? ", ...]" : "]");
}

}  // namespace

core::eval::ValueMap RandomInputs(const ModelProto& model, const RandomInputOptions& options,
                                  std::map<std::string, std::int64_t>* symbols) {
  std::set<std::string, std::less<>> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  Mulberry32 rand(options.seed);
  std::map<std::string, std::int64_t> used;
  core::eval::ValueMap inputs;
  for (const auto& input : model.graph().input()) {
    if (initializers.contains(input.name())) continue;
    if (!input.type().has_tensor_type())
      throw ModelError("input '" + input.name() + "' is not a tensor: random inputs cannot be generated for it");
    const auto& type = input.type().tensor_type();
    std::vector<std::int64_t> shape;
    for (const auto& dim : type.shape().dim()) {
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        shape.push_back(dim.dim_value());
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        auto [it, inserted] = used.try_emplace(dim.dim_param(), 2);
        if (inserted)
          if (auto given = options.dims.find(dim.dim_param()); given != options.dims.end()) it->second = given->second;
        shape.push_back(it->second);
      } else {
        shape.push_back(2);
      }
    }
    inputs[input.name()] = RandomTensor(input.name(), type.elem_type(), std::move(shape), rand, options);
  }
  if (symbols) *symbols = std::move(used);
  return inputs;
}

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
  for (const auto& dim : dims) {
    auto [name, value] = SplitAssignment(dim, "--dim");
    options.dims[name] = ParseInteger(value, "--dim", 0, std::int64_t{1} << 31);
  }
  return options;
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
