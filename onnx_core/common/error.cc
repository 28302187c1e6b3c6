#include "onnx_core/common/error.h"

namespace onnxopt {

namespace {
std::string WithCallSite(const std::string& message, const SourceLocation& where) {
  return message + " [at " + where.file_name() + ":" + std::to_string(where.line()) + "]";
}
}  // namespace

BuilderError::BuilderError(const std::string& message, SourceLocation where)
    : Error(WithCallSite(message, where)), where_(where) {}

}  // namespace onnxopt
