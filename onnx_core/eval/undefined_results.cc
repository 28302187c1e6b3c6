#include "onnx_core/eval/undefined_results.h"

namespace onnxopt::core::eval {

namespace {

thread_local ScopedUndefinedResults* innermost_scope = nullptr;

}  // namespace

ScopedUndefinedResults::ScopedUndefinedResults() : enclosing_(innermost_scope) { innermost_scope = this; }

ScopedUndefinedResults::~ScopedUndefinedResults() { innermost_scope = enclosing_; }

void NoteUndefinedResult(std::string_view what) {
  if (innermost_scope && !innermost_scope->first_) innermost_scope->first_ = std::string(what);
}

}  // namespace onnxopt::core::eval
