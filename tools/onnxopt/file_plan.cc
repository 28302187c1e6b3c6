#include "tools/onnxopt/file_plan.h"

#include "onnx_core/common/quote.h"
#include "onnx_core/ir/file_io.h"
#include "tools/onnxopt/cli.h"

namespace onnxopt::cli {

namespace fs = std::filesystem;

void FilePlan::Read(const fs::path& path, std::string description, Role role) {
  Entry input{path, core::ir::ResolvedReadPath(path), std::move(description), role};
  for (const Entry& output : writes_) CheckOverwrite(output, input);
  reads_.push_back(std::move(input));
}

void FilePlan::Write(const fs::path& path, std::string description, Role role) {
  Entry output{path, core::ir::ResolvedWritePath(path), std::move(description), role};
  for (const Entry& other : writes_) {
    if (other.resolved == output.resolved)
      throw UsageError(Quote(output.path.string()) + " is given as two outputs (" + other.description + " and " +
                       output.description + ")");
  }
  writes_.push_back(output);
  for (const Entry& input : reads_) CheckOverwrite(output, input);
}

bool FilePlan::InPlace() const {
  for (const Entry& output : writes_)
    for (const Entry& input : reads_)
      if (output.role == Role::kModel && input.role == Role::kModel && output.resolved == input.resolved) return true;
  return false;
}

void FilePlan::CheckOverwrite(const Entry& output, const Entry& input) const {
  if (output.resolved != input.resolved) return;
  const bool model_files = output.role != Role::kOther && input.role != Role::kOther;
  if (model_files && InPlace()) return;
  throw UsageError(output.description + " " + Quote(output.path.string()) + " would overwrite " + input.description +
                   " " + Quote(input.path.string()) + " (outputs never replace a file the command reads" +
                   (output.role == Role::kModel ? ", except -o naming the input model itself)" : ")"));
}

}  // namespace onnxopt::cli
