#pragma once
// The error types of onnxopt.
//
// Every failure a user can cause (a bad file, a hostile model, a folder that cannot be
// written) is an onnxopt::Error whose message says what is wrong and where (file,
// tensor, node, value). The command line maps the categories to exit codes:
//   ModelError, IoError -> 2 (the input or the output is at fault)
//   BuilderError        -> 3 (a contract inside onnxopt was broken: a bug)

#include <stdexcept>
#include <string>

#include "onnx_core/common/source_location.h"

namespace onnxopt {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The model is not valid: unreadable protobuf, an inconsistent graph, external data
// that is missing or points outside the model folder.
class ModelError : public Error {
 public:
  using Error::Error;
};

// A file given besides the model (an input .npy) is malformed. Reported like a ModelError
// (exit code 2), but its message starts with "invalid input file 'NAME': ", not with
// "invalid model".
class InputFileError : public ModelError {
 public:
  using ModelError::ModelError;
};

// The file system refused an operation (missing file, permission, full disk).
class IoError : public Error {
 public:
  using Error::Error;
};

// A broken contract inside onnxopt or in a pattern (a bug, not bad input). Its message
// ends with the C++ call site that raised it.
class BuilderError : public Error {
 public:
  explicit BuilderError(const std::string& message,
                        SourceLocation where = SourceLocation::current());
  const SourceLocation& where() const noexcept { return where_; }

 private:
  SourceLocation where_;
};

}  // namespace onnxopt
