#pragma once
// Loading and saving ONNX models.
//
// Load: parse the protobuf, read every tensor stored as external data into memory, after
// checking that its location stays inside the model's folder (no absolute path, no "..",
// no symbolic link, no hard link, offset and length inside the file), then check that
// the graph is well formed (ir/graph_check.h). Everything that is wrong raises ModelError
// naming the file, the tensor or the value.
//
// Save: write to a temporary file in the destination folder, then rename it over the
// destination, so a failed save leaves no partial file. Initializers at or above a size
// threshold can be written to one external data file next to the model; a model whose
// protobuf would exceed protobuf's 2 GiB limit is always saved that way.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message_lite.h>

#include "onnx_core/ir/file_io.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// The newest IR version this build knows (onnx 1.12's IR_VERSION may be older: we accept
// every released version up to this one without a warning). IR 13 is that of ONNX 1.20 to
// 1.22 (opsets 25 to 27; Versioning.md of the specification).
inline constexpr std::int64_t kNewestKnownIrVersion = 13;

struct LoadOptions {
  // Read external data into the tensors (raw_data). When false, external references are
  // kept as they are and only the model protobuf is read.
  bool load_external_data = true;
  // Check the graph after parsing (ir::CheckModel).
  bool check_graph = true;
};

// Loads `path`. Warnings (a newer IR version, an unknown external-data key) are appended
// to `warnings` when it is not null; the external data files read, to
// `external_data_files` (paths below the model's folder). Throws ModelError or IoError:
// IoError too when `path` is no regular file (a FIFO, a device: ir::OpenRegularFile).
ModelProto LoadModel(const std::filesystem::path& path, const LoadOptions& options = {},
                     std::vector<std::string>* warnings = nullptr,
                     std::vector<std::filesystem::path>* external_data_files = nullptr);

// Parses serialized model bytes. `origin` names the source in error messages. External
// data, if any, is resolved relative to `base_dir` when it is set and left as a reference
// otherwise.
ModelProto ParseModel(std::string_view bytes, std::string_view origin,
                      const std::optional<std::filesystem::path>& base_dir = std::nullopt,
                      const LoadOptions& options = {},
                      std::vector<std::string>* warnings = nullptr);

struct SaveOptions {
  // Initializers whose data is at least this many bytes go to the external data file.
  // Unset: everything stays inside the protobuf unless the 2 GiB limit forces otherwise.
  std::optional<std::uint64_t> external_data_threshold;
  // Name of the external data file, relative to the model's folder. Default:
  // "<model file name>.data".
  std::string external_data_file;
};

// Saves `model` to `path` atomically. The model is taken by reference because tensor
// bytes are moved out while writing external data and moved back afterwards (no copy of
// the weights); on return, `model` is unchanged. Throws IoError when the folder cannot
// be written or `path` is a directory or another file that is not a regular one; the
// destination is then untouched.
void SaveModel(ModelProto& model, const std::filesystem::path& path, const SaveOptions& options = {});

// The external data file SaveModel writes for a model saved to `path`, when it writes one.
std::filesystem::path ExternalDataPath(const std::filesystem::path& path, const SaveOptions& options = {});

// SaveModel's writing without the publishing: the external data file (when one is
// written) and then the model are added to `outputs` as temporary files, renamed into
// place by outputs.Commit() together with a command's other outputs.
void PrepareModel(ModelProto& model, const std::filesystem::path& path, const SaveOptions& options,
                  OutputFiles& outputs);

// Deterministic serialization (map ordering fixed), used for saving and for comparing
// two models (or graphs, nodes, attributes) byte for byte. Throws ModelError above
// protobuf's 2 GiB limit.
std::string SerializeDeterministic(const google::protobuf::MessageLite& message);

}  // namespace onnxopt::core::ir
