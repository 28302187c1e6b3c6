#pragma once
// The files a command reads and writes, checked against each other before anything is
// computed: no two outputs are one file, and no output replaces a file the command reads
// (the model, its external data files, an input .npy). Paths are compared as the files
// they designate (ir::ResolvedReadPath, ir::ResolvedWritePath), not as strings:
// "m.onnx", "./m.onnx" and "../dir/m.onnx" are one file.
//
// One exception: an output model may replace the input model and its external data files
// when -o names the input model itself (optimizing in place). The whole model is read
// into memory before anything is written and every output is written atomically, so the
// input stays intact until the new model replaces it.

#include <filesystem>
#include <string>
#include <vector>

namespace onnxopt::cli {

class FilePlan {
 public:
  enum class Role {
    kModel,      // the input model, or the output model (-o)
    kModelData,  // an external data file of that model
    kOther,      // a rewrite file, a report, a .npy file
  };

  // Registers a file the command reads or writes; throws UsageError when it conflicts
  // with one registered before. `description` names its part in messages: "-o",
  // "--record", "the input model". Register the input model before the output model.
  void Read(const std::filesystem::path& path, std::string description, Role role = Role::kOther);
  void Write(const std::filesystem::path& path, std::string description, Role role = Role::kOther);

 private:
  struct Entry {
    std::filesystem::path path;      // as given
    std::filesystem::path resolved;  // the file it designates
    std::string description;
    Role role;
  };

  // Whether the output model replaces the input model.
  bool InPlace() const;
  void CheckOverwrite(const Entry& output, const Entry& input) const;

  std::vector<Entry> reads_;
  std::vector<Entry> writes_;
};

}  // namespace onnxopt::cli
