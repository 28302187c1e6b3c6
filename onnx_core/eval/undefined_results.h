#pragma once
// Results the ONNX specification leaves undefined. Cast says a float converted to an
// integer type out of its range is undefined; the evaluator must still compute something
// (it saturates, and NaN gives 0), but runtimes compute other values (onnxruntime on x86
// gives the type's smallest value, as the processor's conversion does). Evaluating a model
// on purpose may show such a value; constant folding must not write it into a model, where
// it would replace what the user's runtime computes. Kernels report each such result with
// NoteUndefinedResult; a caller that must know (folding) holds a ScopedUndefinedResults
// around the kernel call.

#include <optional>
#include <string>
#include <string_view>

namespace onnxopt::core::eval {

// Records on the calling thread's innermost ScopedUndefinedResults, if any, that a kernel
// computed a value the spec leaves undefined. `what` says which (a noun phrase: "a float
// out of int32's range converted to it"); only the first one of a scope is kept.
void NoteUndefinedResult(std::string_view what);

// Watches the kernel calls made on the calling thread while it lives. Scopes nest: a note
// reaches the innermost one only.
class ScopedUndefinedResults {
 public:
  ScopedUndefinedResults();
  ~ScopedUndefinedResults();
  ScopedUndefinedResults(const ScopedUndefinedResults&) = delete;
  ScopedUndefinedResults& operator=(const ScopedUndefinedResults&) = delete;
  // What the first undefined result noted in this scope was, if any.
  const std::optional<std::string>& first() const { return first_; }

 private:
  friend void NoteUndefinedResult(std::string_view what);
  ScopedUndefinedResults* enclosing_;
  std::optional<std::string> first_;
};

}  // namespace onnxopt::core::eval
