#include "tools/onnxopt/cli.h"

#include <algorithm>
#include <charconv>
#include <iostream>

#include "onnx_core/common/error.h"
#include "onnx_core/utils/close_names.h"

namespace onnxopt::cli {

namespace {
bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}
}  // namespace

Arguments::Arguments(std::vector<std::string> args, std::vector<std::string> value_options,
                     std::vector<std::string> flags) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional_.insert(positional_.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.starts_with("--")) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    if (Contains(flags, name)) {
      if (inline_value) throw UsageError("option " + name + " takes no value");
      flags_.push_back(name);
    } else if (Contains(value_options, name)) {
      if (!inline_value && i + 1 >= args.size()) throw UsageError("option " + name + " needs a value");
      values_[name] = inline_value ? *inline_value : args[++i];
    } else {
      std::vector<std::string> known = value_options;
      known.insert(known.end(), flags.begin(), flags.end());
      throw UsageError("unknown option " + name + utils::DidYouMean(utils::CloseNames(name, known), ""));
    }
  }
}

bool Arguments::Flag(std::string_view name) const { return Contains(flags_, name); }

std::optional<std::string> Arguments::Value(std::string_view name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

const std::vector<std::string>& Arguments::Positional(std::size_t min_count, std::size_t max_count) const {
  if (positional_.size() < min_count) throw UsageError("missing argument");
  if (positional_.size() > max_count) throw UsageError("unexpected argument '" + positional_[max_count] + "'");
  return positional_;
}

namespace {

// `expected` says what the option takes, in the error: "a byte count such as 1024, 64K".
std::uint64_t ParseScaledCount(std::string_view text, std::string_view option, std::string_view expected) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  std::uint64_t scale = 1;
  if (suffix == "K" || suffix == "KiB") scale = 1ull << 10;
  else if (suffix == "M" || suffix == "MiB") scale = 1ull << 20;
  else if (suffix == "G" || suffix == "GiB") scale = 1ull << 30;
  else if (!suffix.empty()) error = std::errc::invalid_argument;
  if (error != std::errc() || end == text.data() || value > UINT64_MAX / scale)
    throw UsageError(std::string(option) + " expects " + std::string(expected) + ", got '" + std::string(text) + "'");
  return value * scale;
}

}  // namespace

std::uint64_t ParseByteCount(std::string_view text, std::string_view option) {
  return ParseScaledCount(text, option, "a byte count such as 1024, 64K, 16M or 1G");
}

std::uint64_t ParseStepCount(std::string_view text, std::string_view option) {
  return ParseScaledCount(text, option, "a number of steps such as 1000000, 256M or 4G");
}

int RunReportingErrors(const std::string& command, const std::string& usage, const std::function<int()>& body) {
  const std::string prefix = "onnxopt " + command + ": ";
  try {
    return body();
  } catch (const UsageError& error) {
    std::cerr << prefix << error.what() << "\nusage: " << usage << "\nTry 'onnxopt " << command
              << " --help' for more information.\n";
    return kUsage;
  } catch (const InputFileError& error) {
    std::cerr << prefix << error.what() << "\n";
    return kInvalidInput;
  } catch (const ModelError& error) {
    std::cerr << prefix << "invalid model: " << error.what() << "\n";
    return kInvalidInput;
  } catch (const IoError& error) {
    std::cerr << prefix << error.what() << "\n";
    return kInvalidInput;
  } catch (const std::bad_alloc&) {
    std::cerr << prefix << "out of memory\n";
    return kInternal;
  } catch (const std::exception& error) {
    std::cerr << prefix << "internal error: " << error.what()
              << "\nThis is a bug in onnxopt; please report it with the model that triggers it.\n";
    return kInternal;
  }
}

}  // namespace onnxopt::cli
