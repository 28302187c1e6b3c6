#include "onnx_core/ir/model_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <exception>
#include <functional>
#include <unordered_map>
#include <utility>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/file_io.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::ir {
namespace {

namespace fs = std::filesystem;

// protobuf parses and serializes messages of at most INT_MAX bytes.
constexpr std::uint64_t kMaxProtoBytes = INT_MAX;
// Initializers moved out when a model is too large for one protobuf and no threshold is given.
constexpr std::uint64_t kForcedExternalThreshold = 1024;
// Offsets in the external data file are page multiples, so that readers can mmap tensors
// (ExternalData.md).
constexpr std::uint64_t kExternalDataAlignment = 4096;
// SaveModel writes the serialized model in pieces of this size.
constexpr int kSaveBufferBytes = 1 << 20;

// Serializes `message`, whose sizes ByteSizeLong() has just cached (`size` bytes),
// deterministically into `stream`. False when the stream failed or the message changed
// size meanwhile.
bool WriteDeterministic(const google::protobuf::MessageLite& message, std::size_t size,
                        google::protobuf::io::ZeroCopyOutputStream& stream) {
  google::protobuf::io::CodedOutputStream output(&stream);
  output.SetSerializationDeterministic(true);
  message.SerializeWithCachedSizes(&output);
  output.Trim();  // hands the unused part of the stream's last buffer back
  return !output.HadError() && static_cast<std::size_t>(output.ByteCount()) == size;
}

// What protobuf serializes, appended to an AtomicFile through a buffer: a saved model is
// never held whole in memory as bytes (for a model of 2 GB, 2 GB more at peak).
// protobuf learns of a failed write from `false`; the IoError is kept for the caller.
class AtomicFileSink : public google::protobuf::io::CopyingOutputStream {
 public:
  explicit AtomicFileSink(AtomicFile& file) : file_(file) {}

  bool Write(const void* buffer, int size) override {
    try {
      file_.WriteAt(std::string_view(static_cast<const char*>(buffer), static_cast<std::size_t>(size)), offset_);
    } catch (const IoError&) {
      error_ = std::current_exception();
      return false;
    }
    offset_ += static_cast<std::uint64_t>(size);
    return true;
  }
  void RethrowError() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  AtomicFile& file_;
  std::uint64_t offset_ = 0;
  std::exception_ptr error_;
};

// ---------------------------------------------------------------------------------------
// Files

std::string ReadModelFile(const fs::path& path) {
  return ReadRegularFile(path, "model", kMaxProtoBytes, "protobuf's limit of 2 GiB - 1");
}

// Whether `path` is `base` or below it (both canonical).
bool IsInside(const fs::path& base, const fs::path& path) {
  return std::mismatch(base.begin(), base.end(), path.begin(), path.end()).first == base.end();
}

// Why a relative location given in a model may not be used below the model folder; empty
// when it may.
std::string LexicalLocationProblem(const fs::path& location) {
  if (location.empty()) return "the location is empty";
  if (location.has_root_path()) return "the location is an absolute path";
  for (const fs::path& part : location)
    if (part == "..") return "the location has a '..' component, which may leave the model folder";
  return {};
}

// ---------------------------------------------------------------------------------------
// Walking over a model

// Calls `on_graph` for every graph (main, nested at any depth, training) and `on_node` for
// every node (of graphs and function bodies).
class ModelWalker {
 public:
  std::function<void(GraphProto&)> on_graph = [](GraphProto&) {};
  std::function<void(NodeProto&)> on_node = [](NodeProto&) {};

  void Walk(ModelProto& model) {
    if (model.has_graph()) WalkGraph(*model.mutable_graph());
    for (FunctionProto& function : *model.mutable_functions()) WalkNodes(*function.mutable_node());
    for (onnx::TrainingInfoProto& training : *model.mutable_training_info()) {
      if (training.has_initialization()) WalkGraph(*training.mutable_initialization());
      if (training.has_algorithm()) WalkGraph(*training.mutable_algorithm());
    }
  }

 private:
  void WalkGraph(GraphProto& graph) {
    on_graph(graph);
    WalkNodes(*graph.mutable_node());
  }

  void WalkNodes(google::protobuf::RepeatedPtrField<NodeProto>& nodes) {
    for (NodeProto& node : nodes) {
      on_node(node);
      for (AttributeProto& attribute : *node.mutable_attribute()) {
        if (attribute.has_g()) WalkGraph(*attribute.mutable_g());
        for (GraphProto& graph : *attribute.mutable_graphs()) WalkGraph(graph);
      }
    }
  }
};

void ForEachTensor(ModelProto& model, const std::function<void(TensorProto&)>& visit) {
  // Only present fields: calling mutable_*() on an absent one would add it to the model.
  auto visit_sparse = [&](SparseTensorProto& sparse) {
    if (sparse.has_values()) visit(*sparse.mutable_values());
    if (sparse.has_indices()) visit(*sparse.mutable_indices());
  };
  ModelWalker walker;
  walker.on_graph = [&](GraphProto& graph) {
    for (TensorProto& tensor : *graph.mutable_initializer()) visit(tensor);
    for (SparseTensorProto& sparse : *graph.mutable_sparse_initializer()) visit_sparse(sparse);
  };
  walker.on_node = [&](NodeProto& node) {
    for (AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_t()) visit(*attribute.mutable_t());
      for (TensorProto& tensor : *attribute.mutable_tensors()) visit(tensor);
      if (attribute.has_sparse_tensor()) visit_sparse(*attribute.mutable_sparse_tensor());
      for (SparseTensorProto& sparse : *attribute.mutable_sparse_tensors()) visit_sparse(sparse);
    }
  };
  walker.Walk(model);
}

// ---------------------------------------------------------------------------------------
// Loading

struct ExternalReference {
  std::string location;
  std::uint64_t offset = 0;
  std::optional<std::uint64_t> length;
};

// Reads external tensor data into raw_data, refusing every location that could reach a
// file outside the model folder (ExternalDataSecurity.md).
class ExternalDataReader {
 public:
  ExternalDataReader(const fs::path& base_dir, std::string origin, std::vector<std::string>* warnings)
      : origin_(std::move(origin)), warnings_(warnings) {
    std::error_code error;
    base_ = fs::canonical(base_dir.empty() ? fs::path(".") : base_dir, error);
    if (error) throw IoError("cannot open model folder " + Quote(base_dir.string()) + ": " + error.message());
  }

  void Load(TensorProto& tensor) {
    const ExternalReference reference = ParseReference(tensor);
    const DataFile& file = Open(tensor, reference.location);
    auto fail = [&](const std::string& what) { Fail(tensor, reference.location, what); };
    if (reference.offset > file.size) {
      fail("offset " + std::to_string(reference.offset) + " is past the end of the file (" +
           std::to_string(file.size) + " bytes)");
    }
    const std::uint64_t length = reference.length.value_or(file.size - reference.offset);
    if (length > file.size - reference.offset) {
      fail("offset " + std::to_string(reference.offset) + " + length " + std::to_string(length) +
           " is past the end of the file (" + std::to_string(file.size) + " bytes)");
    }
    CheckLength(tensor, reference.location, length);
    std::string& data = *tensor.mutable_raw_data();
    data.clear();
    data.shrink_to_fit();
    data.resize(length);
    if (std::string error = ReadFully(file.fd.get(), data.data(), length, reference.offset); !error.empty())
      fail("cannot read: " + error);
    tensor.clear_external_data();
    tensor.clear_data_location();
  }

  // The files read so far, as opened.
  std::vector<fs::path> Paths() const {
    std::vector<fs::path> paths;
    for (const auto& [location, file] : files_) paths.push_back(base_ / location);
    return paths;
  }

 private:
  struct DataFile {
    FileDescriptor fd;
    std::uint64_t size = 0;
  };

  [[noreturn]] void Fail(const TensorProto& tensor, const std::string& location, const std::string& what) const {
    const std::string where = location.empty() ? "" : " in " + Quote(location);
    throw ModelError(origin_ + ": external data of tensor " + Quote(tensor.name()) + where + ": " + what);
  }

  ExternalReference ParseReference(const TensorProto& tensor) const {
    ExternalReference reference;
    bool has_location = false;
    for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
      if (entry.key() == "location") {
        reference.location = entry.value();
        has_location = true;
      } else if (entry.key() == "offset") {
        reference.offset = ParseSize(tensor, entry);
      } else if (entry.key() == "length") {
        reference.length = ParseSize(tensor, entry);
      } else if (entry.key() != "checksum" && entry.key() != "basepath" && warnings_ != nullptr) {
        warnings_->push_back(origin_ + ": external data of tensor " + Quote(tensor.name()) + ": unknown key " +
                             Quote(entry.key()) + " ignored");
      }
    }
    if (!has_location) Fail(tensor, "", "no 'location' key");
    return reference;
  }

  std::uint64_t ParseSize(const TensorProto& tensor, const onnx::StringStringEntryProto& entry) const {
    const std::string& text = entry.value();
    // from_chars alone would accept a prefix ("12abc") and, for unsigned types, nothing
    // negative, but the message must name the whole text.
    const bool digits_only =
        !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    std::uint64_t value = 0;
    const std::errc error = std::from_chars(text.data(), text.data() + text.size(), value).ec;
    if (!digits_only || error != std::errc() || value > static_cast<std::uint64_t>(INT64_MAX)) {
      Fail(tensor, "", entry.key() + " " + Quote(text) + " is not a non-negative decimal integer");
    }
    return value;
  }

  void CheckLength(const TensorProto& tensor, const std::string& location, std::uint64_t length) const {
    const std::optional<std::uint64_t> expected = RawDataBytes(tensor);
    if (!expected) {
      Fail(tensor, location,
           "the tensor (type " + ElementTypeName(tensor.data_type()) +
               ") has no fixed-size element type or an invalid shape, so its bytes cannot be stored externally");
    }
    if (*expected != length) {
      Fail(tensor, location,
           "the data has " + std::to_string(length) + " bytes but the tensor's shape and type " +
               ElementTypeName(tensor.data_type()) + " need " + std::to_string(*expected));
    }
  }

  const DataFile& Open(const TensorProto& tensor, const std::string& location) {
    if (auto it = files_.find(location); it != files_.end()) return it->second;
    auto fail = [&](const std::string& what) { Fail(tensor, location, what); };
    if (std::string problem = LexicalLocationProblem(location); !problem.empty()) fail(problem);
    const fs::path path = base_ / location;
    const struct stat info = CheckComponents(tensor, location);
    std::error_code error;
    if (!IsInside(base_, fs::weakly_canonical(path, error)) || error)
      fail(Quote(path.string()) + " resolves outside the model folder " + Quote(base_.string()));
    FileDescriptor fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    struct stat opened {};
    if (!fd.valid() || fstat(fd.get(), &opened) != 0) {
      const int open_error = errno;
      fail("cannot open " + Quote(path.string()) + ": " + std::strerror(open_error));
    }
    // The file opened must be the one checked: no swap between the checks and open().
    if (opened.st_dev != info.st_dev || opened.st_ino != info.st_ino || opened.st_nlink != 1)
      fail(Quote(path.string()) + " changed while it was being opened");
    return files_.emplace(location, DataFile{std::move(fd), static_cast<std::uint64_t>(opened.st_size)})
        .first->second;
  }

  // Checks every component of `location` below the model folder with lstat (a link in a
  // parent folder is as dangerous as a final one) and returns the final component's status.
  struct stat CheckComponents(const TensorProto& tensor, const std::string& location) const {
    auto fail = [&](const std::string& what) { Fail(tensor, location, what); };
    fs::path current = base_;
    struct stat info {};
    for (const fs::path& part : fs::path(location)) {
      if (part.empty() || part == ".") continue;
      current /= part;
      if (lstat(current.c_str(), &info) != 0) {
        const int error = errno;
        fail(error == ENOENT ? "file " + Quote(current.string()) + " does not exist"
                             : "cannot access " + Quote(current.string()) + ": " + std::strerror(error));
      }
      if (S_ISLNK(info.st_mode)) fail(Quote(current.string()) + " is a symbolic link");
    }
    if (!S_ISREG(info.st_mode)) fail(Quote(current.string()) + " is not a regular file");
    if (info.st_nlink > 1) {
      fail(Quote(current.string()) + " has " + std::to_string(info.st_nlink) +
           " hard links (it may be a link to a file outside the model folder)");
    }
    return info;
  }

  fs::path base_;
  std::string origin_;
  std::vector<std::string>* warnings_;
  std::unordered_map<std::string, DataFile> files_;
};

// protobuf's default bound on nested messages while parsing (a nested graph costs three:
// node, attribute, graph), which keeps a hostile file from exhausting the stack.
constexpr int kProtobufRecursionLimit = 100;

// Whether bytes that failed to parse would parse with a deeper recursion bound: then the
// model is well formed but nested too deeply, which deserves its own message. The retry's
// bound is still small enough for any thread's stack.
bool NestedTooDeeply(std::string_view bytes) {
  constexpr int kDiagnosisRecursionLimit = 2000;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(kDiagnosisRecursionLimit);
  ModelProto model;
  return model.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

ModelProto ParseProto(std::string_view bytes, const std::string& origin, std::vector<std::string>* warnings) {
  if (bytes.empty()) throw ModelError(origin + ": empty file, not an ONNX model");
  if (bytes.size() > kMaxProtoBytes)
    throw ModelError(origin + ": " + std::to_string(bytes.size()) + " bytes, more than protobuf's limit of 2 GiB - 1");
  ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    if (NestedTooDeeply(bytes))
      throw ModelError(origin + ": not a valid ONNX model: its messages nest deeper than protobuf's limit of " +
                       std::to_string(kProtobufRecursionLimit) + " (about " +
                       std::to_string(kProtobufRecursionLimit / 3) + " levels of nested graphs)");
    throw ModelError(origin + ": not a valid ONNX model (truncated or malformed protobuf)");
  }
  if (!model.has_ir_version()) throw ModelError(origin + ": not a valid ONNX model: it has no ir_version");
  if (model.ir_version() <= 0)
    throw ModelError(origin + ": not a valid ONNX model: invalid ir_version " + std::to_string(model.ir_version()));
  if (!model.has_graph()) throw ModelError(origin + ": not a valid ONNX model: it has no graph");
  if (model.ir_version() > kNewestKnownIrVersion && warnings != nullptr) {
    warnings->push_back(origin + ": IR version " + std::to_string(model.ir_version()) +
                        " is newer than this build knows (" + std::to_string(kNewestKnownIrVersion) +
                        "); loading anyway");
  }
  return model;
}

// Checks the graph and reads external data: the parts of loading after parsing.
void CompleteLoad(ModelProto& model, const std::string& origin, const std::optional<fs::path>& base_dir,
                  const LoadOptions& options, std::vector<std::string>* warnings,
                  std::vector<fs::path>* external_data_files = nullptr) {
  if (options.check_graph) {
    try {
      CheckModel(model);
    } catch (const ModelError& error) {
      throw ModelError(origin + ": " + error.what());
    }
  }
  if (!base_dir || !options.load_external_data) return;
  ExternalDataReader reader(*base_dir, origin, warnings);
  ForEachTensor(model, [&](TensorProto& tensor) {
    if (HasExternalData(tensor)) reader.Load(tensor);
  });
  if (external_data_files != nullptr) *external_data_files = reader.Paths();
}

// ---------------------------------------------------------------------------------------
// Saving

// Initializers of every graph whose data takes at least `threshold` bytes and can be
// written as raw bytes.
std::vector<TensorProto*> ExternalCandidates(ModelProto& model, std::uint64_t threshold) {
  std::vector<TensorProto*> candidates;
  ModelWalker walker;
  walker.on_graph = [&](GraphProto& graph) {
    for (TensorProto& tensor : *graph.mutable_initializer()) {
      const std::optional<std::uint64_t> bytes = RawDataBytes(tensor);
      if (HasExternalData(tensor) || !bytes || *bytes < threshold) continue;
      if (tensor.has_raw_data() ? tensor.raw_data().size() == *bytes : RawBytes(tensor).has_value())
        candidates.push_back(&tensor);
    }
  };
  walker.Walk(model);
  return candidates;
}

void SwapDataFields(TensorProto& a, TensorProto& b) {
  a.mutable_raw_data()->swap(*b.mutable_raw_data());
  a.mutable_float_data()->Swap(b.mutable_float_data());
  a.mutable_int32_data()->Swap(b.mutable_int32_data());
  a.mutable_int64_data()->Swap(b.mutable_int64_data());
  a.mutable_double_data()->Swap(b.mutable_double_data());
  a.mutable_uint64_data()->Swap(b.mutable_uint64_data());
}

void AddEntry(TensorProto& tensor, const std::string& key, const std::string& value) {
  onnx::StringStringEntryProto* entry = tensor.add_external_data();
  entry->set_key(key);
  entry->set_value(value);
}

// Moves the data of tensors into an external data file for the time of a save, and moves
// it back when destroyed, so that the caller's model ends unchanged without copying the
// weights.
class Externalizer {
 public:
  Externalizer(AtomicFile& file, std::string location) : file_(file), location_(std::move(location)) {}
  Externalizer(const Externalizer&) = delete;
  Externalizer& operator=(const Externalizer&) = delete;
  ~Externalizer() {
    for (Moved& moved : moved_) Restore(moved);
  }

  void Move(TensorProto& tensor) {
    // Typed fields (float_data, ...) are converted: the file holds the raw_data layout.
    std::optional<std::string> converted;
    if (!tensor.has_raw_data()) converted = RawBytes(tensor);
    Moved& moved = moved_.emplace_back(Moved{&tensor, {}, tensor.has_raw_data(), tensor.has_data_location()});
    SwapDataFields(tensor, moved.data);
    tensor.clear_raw_data();
    const std::string& bytes = converted ? *converted : moved.data.raw_data();
    const std::uint64_t offset = (end_ + kExternalDataAlignment - 1) / kExternalDataAlignment * kExternalDataAlignment;
    file_.WriteAt(bytes, offset);
    end_ = offset + bytes.size();
    tensor.set_data_location(TensorProto::EXTERNAL);
    AddEntry(tensor, "location", location_);
    AddEntry(tensor, "offset", std::to_string(offset));
    AddEntry(tensor, "length", std::to_string(bytes.size()));
  }

 private:
  struct Moved {
    TensorProto* tensor;
    TensorProto data;  // holds the data fields while the tensor is external
    bool had_raw_data;
    bool had_data_location;
  };

  static void Restore(Moved& moved) {
    TensorProto& tensor = *moved.tensor;
    tensor.clear_external_data();
    if (moved.had_data_location)
      tensor.set_data_location(TensorProto::DEFAULT);
    else
      tensor.clear_data_location();
    SwapDataFields(tensor, moved.data);
    if (!moved.had_raw_data) tensor.clear_raw_data();
  }

  AtomicFile& file_;
  std::string location_;
  std::uint64_t end_ = 0;
  std::vector<Moved> moved_;
};

// The external data file's name relative to the model folder, before checks.
std::string DataLocationOf(const fs::path& path, const SaveOptions& options) {
  return options.external_data_file.empty() ? path.filename().string() + ".data" : options.external_data_file;
}

class ModelSaver {
 public:
  ModelSaver(ModelProto& model, const fs::path& path, const SaveOptions& options)
      : model_(model), path_(path), options_(options), error_prefix_("cannot save model to " + Quote(path.string())) {}

  // Writes the external data file, if any, then the model (a model is never published
  // pointing at a data file that does not exist yet: OutputFiles commits in this order).
  void Prepare(OutputFiles& outputs) {
    std::vector<TensorProto*> moved = ExternalCandidates(model_, Threshold());
    if (moved.empty()) return WriteModel(outputs);
    const std::string location = DataLocation();
    AtomicFile& data_file = outputs.Add(Folder() / location, error_prefix_ + ": external data file " + Quote(location));
    Externalizer externalizer(data_file, location);
    for (TensorProto* tensor : moved) externalizer.Move(*tensor);
    WriteModel(outputs);
  }

 private:
  fs::path Folder() const { return path_.has_parent_path() ? path_.parent_path() : fs::path("."); }

  std::uint64_t Threshold() const {
    if (options_.external_data_threshold) return *options_.external_data_threshold;
    return model_.ByteSizeLong() > kMaxProtoBytes ? kForcedExternalThreshold : UINT64_MAX;
  }

  // The external data file's name relative to the model folder, checked to stay in it.
  std::string DataLocation() const {
    const std::string location = DataLocationOf(path_, options_);
    std::string problem = LexicalLocationProblem(location);
    std::error_code error;
    const fs::path folder = fs::weakly_canonical(Folder(), error);
    if (problem.empty() && (error || !IsInside(folder, fs::weakly_canonical(folder / location, error)) || error))
      problem = "it resolves outside the model folder";
    if (problem.empty() && fs::path(location).lexically_normal() == path_.filename())
      problem = "it is the model file itself";
    if (!problem.empty()) throw IoError(error_prefix_ + ": external data file " + Quote(location) + ": " + problem);
    CheckNotReferenced(location);
    return location;
  }

  // Replacing a data file that tensors kept as references (LoadOptions::load_external_data
  // false) still point into would corrupt them.
  void CheckNotReferenced(const std::string& location) const {
    const fs::path normal = fs::path(location).lexically_normal();
    ForEachTensor(model_, [&](TensorProto& tensor) {
      for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
        if (entry.key() == "location" && fs::path(entry.value()).lexically_normal() == normal) {
          throw IoError(error_prefix_ + ": external data file " + Quote(location) +
                        " would replace the data of tensor " + Quote(tensor.name()) + ", which is still stored there");
        }
      }
    });
  }

  void WriteModel(OutputFiles& outputs) {
    const std::size_t size = model_.ByteSizeLong();
    if (size > kMaxProtoBytes) {
      throw ModelError(error_prefix_ + ": its protobuf would have " + std::to_string(size) +
                       " bytes, more than protobuf's limit of 2 GiB - 1, even with initializers of " +
                       std::to_string(kForcedExternalThreshold) + " bytes or more in external data");
    }
    AtomicFile& model_file = outputs.Add(path_, error_prefix_);
    AtomicFileSink sink(model_file);
    bool written;
    {
      google::protobuf::io::CopyingOutputStreamAdaptor buffer(&sink, kSaveBufferBytes);
      written = WriteDeterministic(model_, size, buffer);
      written = buffer.Flush() && written;
    }
    sink.RethrowError();
    if (!written) throw ModelError(error_prefix_ + ": the model changed while it was being serialized");
  }

  ModelProto& model_;
  const fs::path& path_;
  const SaveOptions& options_;
  std::string error_prefix_;
};

}  // namespace

ModelProto LoadModel(const fs::path& path, const LoadOptions& options, std::vector<std::string>* warnings,
                     std::vector<fs::path>* external_data_files) {
  const std::string origin = path.string();
  ModelProto model;
  {
    // The serialized bytes are released before external data is read.
    const std::string bytes = ReadModelFile(path);
    model = ParseProto(bytes, origin, warnings);
  }
  CompleteLoad(model, origin, path.parent_path(), options, warnings, external_data_files);
  return model;
}

ModelProto ParseModel(std::string_view bytes, std::string_view origin, const std::optional<fs::path>& base_dir,
                      const LoadOptions& options, std::vector<std::string>* warnings) {
  const std::string name(origin);
  ModelProto model = ParseProto(bytes, name, warnings);
  CompleteLoad(model, name, base_dir, options, warnings);
  return model;
}

fs::path ExternalDataPath(const fs::path& path, const SaveOptions& options) {
  return (path.has_parent_path() ? path.parent_path() : fs::path(".")) / DataLocationOf(path, options);
}

void PrepareModel(ModelProto& model, const fs::path& path, const SaveOptions& options, OutputFiles& outputs) {
  ModelSaver(model, path, options).Prepare(outputs);
}

void SaveModel(ModelProto& model, const fs::path& path, const SaveOptions& options) {
  OutputFiles outputs;
  PrepareModel(model, path, options, outputs);
  outputs.Commit();
}

std::string SerializeDeterministic(const google::protobuf::MessageLite& message) {
  const std::size_t size = message.ByteSizeLong();
  if (size > kMaxProtoBytes) {
    throw ModelError("the model needs " + std::to_string(size) +
                     " bytes, more than protobuf's limit of 2 GiB - 1 (store its weights as external data)");
  }
  std::string bytes(size, '\0');
  google::protobuf::io::ArrayOutputStream array(bytes.data(), static_cast<int>(size));
  if (!WriteDeterministic(message, size, array)) throw ModelError("the model changed while it was being serialized");
  return bytes;
}

}  // namespace onnxopt::core::ir
