#include "onnx_core/common/environment.h"

#include <cstdlib>
#include <string_view>

namespace onnxopt {

bool EnvironmentFlag(const char* name, bool default_value) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return default_value;
  return std::string_view(value) != "0";
}

}  // namespace onnxopt
