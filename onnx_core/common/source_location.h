#pragma once
// A minimal stand-in for std::source_location.
//
// g++ 12 has <source_location>; clang 14 (used for the libFuzzer build) does not. Code
// records call sites through onnxopt::SourceLocation so that both compilers build it.

#include <cstdint>

#if defined(__cpp_lib_source_location) || (__has_include(<source_location>) && !defined(__clang__))
#include <source_location>
#define ONNXOPT_HAS_STD_SOURCE_LOCATION 1
#endif

namespace onnxopt {

#ifdef ONNXOPT_HAS_STD_SOURCE_LOCATION
using SourceLocation = std::source_location;
#else
// Same interface as std::source_location::current(), built on the builtins that
// clang 14 already provides.
class SourceLocation {
 public:
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          const char* function = __builtin_FUNCTION(),
                                          std::uint_least32_t line = __builtin_LINE()) noexcept {
    SourceLocation location;
    location.file_ = file;
    location.function_ = function;
    location.line_ = line;
    return location;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return 0; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
};
#endif

}  // namespace onnxopt
