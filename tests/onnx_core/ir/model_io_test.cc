#include "onnx_core/ir/model_io.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

namespace fs = std::filesystem;
using ::onnxopt::testing::ListFiles;
using ::onnxopt::testing::ParseText;
using ::onnxopt::testing::ReadFile;
using ::onnxopt::testing::TempDir;
using ::onnxopt::testing::WriteFile;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kSimpleModel = R"(<ir_version: 8, opset_import: ["" : 17]>
main (float[4] x) => (float[4] y) <float[4] w = {1.0, 2.0, 3.0, 4.0}, float[2] b = {5.0, 6.0}> {
  y = Mul(x, w)
})";

constexpr std::string_view kNestedModel = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
main (bool c, float[4] x) => (float[4] y) {
  k = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> ()
  y = If(c) <then_branch = then_graph () => (float[4] r) <float[4] v = {9.0, 8.0, 7.0, 6.0}> { r = Mul(x, v) },
             else_branch = else_graph () => (float[4] s) { s = local.F(k) }>
}
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  c = Constant <value = float[4] {1.0, 1.0, 1.0, 1.0}> ()
  b = Add(a, c)
})";

std::string FloatBytes(std::initializer_list<float> values) {
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), std::data(values), bytes.size());
  return bytes;
}

// Runs `action` and returns the message of the `Exception` it raises; fails the test
// when it raises nothing.
template <typename Exception, typename Action>
std::string ErrorOf(Action&& action) {
  try {
    action();
  } catch (const Exception& error) {
    return error.what();
  }
  ADD_FAILURE() << "no exception raised";
  return "";
}

const TensorProto& Initializer(const ModelProto& model, std::string_view name) {
  for (const TensorProto& tensor : model.graph().initializer())
    if (tensor.name() == name) return tensor;
  throw std::runtime_error("no initializer " + std::string(name));
}

TensorProto& Initializer(ModelProto& model, std::string_view name) {
  return const_cast<TensorProto&>(Initializer(std::as_const(model), name));
}

// Makes `tensor` refer to external data with the given keys and values.
void MakeExternal(TensorProto& tensor, const std::vector<std::pair<std::string, std::string>>& entries) {
  tensor.clear_raw_data();
  tensor.clear_float_data();
  tensor.set_data_location(TensorProto::EXTERNAL);
  for (const auto& [key, value] : entries) {
    auto* entry = tensor.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
}

// ---------------------------------------------------------------------------------------
// Loading

class ModelIoTest : public ::testing::Test {
 protected:
  fs::path WriteModel(const ModelProto& model, std::string_view name = "model.onnx") {
    WriteFile(dir_ / name, SerializeDeterministic(model));
    return dir_ / name;
  }

  TempDir dir_;
};

TEST_F(ModelIoTest, LoadsValidModel) {
  const ModelProto model = ParseText(kSimpleModel);
  std::vector<std::string> warnings;
  const ModelProto loaded = LoadModel(WriteModel(model), {}, &warnings);
  EXPECT_EQ(SerializeDeterministic(loaded), SerializeDeterministic(model));
  EXPECT_EQ(loaded.graph().node(0).op_type(), "Mul");
  EXPECT_TRUE(warnings.empty());
}

TEST_F(ModelIoTest, RoundTripKeepsEveryByte) {
  for (std::string_view text : {kSimpleModel, kNestedModel}) {
    const std::string bytes = SerializeDeterministic(ParseText(text));
    WriteFile(dir_ / "in.onnx", bytes);
    ModelProto loaded = LoadModel(dir_ / "in.onnx");
    SaveModel(loaded, dir_ / "out.onnx");
    EXPECT_EQ(ReadFile(dir_ / "out.onnx"), bytes) << text;
  }
}

TEST_F(ModelIoTest, RoundTripKeepsUnknownFields) {
  // Field 999, wire type varint (tag 999 << 3 = 7992 = 0xB8 0x3E), value 42.
  const std::string unknown_field("\xB8\x3E\x2A", 3);
  const std::string bytes = SerializeDeterministic(ParseText(kSimpleModel)) + unknown_field;
  WriteFile(dir_ / "in.onnx", bytes);
  ModelProto loaded = LoadModel(dir_ / "in.onnx");
  SaveModel(loaded, dir_ / "out.onnx");
  EXPECT_EQ(ReadFile(dir_ / "out.onnx"), bytes);
}

TEST_F(ModelIoTest, NewerIrVersionGivesWarning) {
  ModelProto model = ParseText(kSimpleModel);
  model.set_ir_version(99);
  const fs::path path = WriteModel(model);
  std::vector<std::string> warnings;
  LoadModel(path, {}, &warnings);
  EXPECT_THAT(warnings, ElementsAre(path.string() +
                                    ": IR version 99 is newer than this build knows (13); loading anyway"));
  model.set_ir_version(kNewestKnownIrVersion);
  warnings.clear();
  LoadModel(WriteModel(model), {}, &warnings);
  EXPECT_TRUE(warnings.empty());
}

TEST_F(ModelIoTest, RejectsMissingOrInvalidIrVersion) {
  ModelProto model = ParseText(kSimpleModel);
  model.clear_ir_version();
  const fs::path path = WriteModel(model);
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() + ": not a valid ONNX model: it has no ir_version");
  model.set_ir_version(-3);
  WriteModel(model);
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() + ": not a valid ONNX model: invalid ir_version -3");
}

TEST_F(ModelIoTest, RejectsModelWithoutGraph) {
  ModelProto model;
  model.set_ir_version(8);
  const fs::path path = WriteModel(model);
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }), path.string() + ": not a valid ONNX model: it has no graph");
}

TEST_F(ModelIoTest, MissingFileIsIoError) {
  const fs::path path = dir_ / "missing.onnx";
  EXPECT_EQ(ErrorOf<IoError>([&] { LoadModel(path); }),
            "cannot open model '" + path.string() + "': No such file or directory");
}

TEST_F(ModelIoTest, FolderIsNotAModel) {
  EXPECT_EQ(ErrorOf<IoError>([&] { LoadModel(dir_.path()); }),
            "cannot open model '" + dir_.path().string() + "': a directory, not a regular file");
}

TEST_F(ModelIoTest, FifoIsRefusedWithoutWaitingForAWriter) {
  // Opening a FIFO for reading blocks until a writer comes: the check must come first.
  const fs::path path = dir_ / "pipe.onnx";
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  EXPECT_EQ(ErrorOf<IoError>([&] { LoadModel(path); }),
            "cannot open model '" + path.string() + "': a FIFO, not a regular file");
}

TEST_F(ModelIoTest, RejectsEmptyFile) {
  WriteFile(dir_ / "empty.onnx", "");
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(dir_ / "empty.onnx"); }),
            (dir_ / "empty.onnx").string() + ": empty file, not an ONNX model");
}

TEST_F(ModelIoTest, RejectsFileOverProtobufLimit) {
  const fs::path path = dir_ / "huge.onnx";
  WriteFile(path, "");
  fs::resize_file(path, std::uintmax_t{1} << 31);  // sparse: takes no disk space
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() + ": the file has 2147483648 bytes, more than protobuf's limit of 2 GiB - 1");
}

TEST_F(ModelIoTest, RejectsTruncatedFile) {
  const std::string bytes = SerializeDeterministic(ParseText(kNestedModel));
  WriteFile(dir_ / "cut.onnx", bytes.substr(0, bytes.size() / 2));
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(dir_ / "cut.onnx"); }),
            (dir_ / "cut.onnx").string() + ": not a valid ONNX model (truncated or malformed protobuf)");
}

// 40 If nodes nested in each other's then-branch: 120 levels of messages, past protobuf's
// bound of 100. Well formed, so the message says what is wrong instead of "malformed".
TEST_F(ModelIoTest, NamesNestingDeeperThanProtobufParses) {
  ModelProto model = ParseText(kSimpleModel);
  GraphProto branch;
  branch.set_name("level0");
  for (int level = 1; level <= 40; ++level) {
    GraphProto outer;
    outer.set_name("level" + std::to_string(level));
    NodeProto& node = *outer.add_node();
    node.set_op_type("If");
    AttributeProto& attribute = *node.add_attribute();
    attribute.set_name("then_branch");
    attribute.set_type(AttributeProto::GRAPH);
    *attribute.mutable_g() = std::move(branch);
    branch = std::move(outer);
  }
  NodeProto& holder = *model.mutable_graph()->add_node();
  holder.set_op_type("If");
  AttributeProto& attribute = *holder.add_attribute();
  attribute.set_name("then_branch");
  attribute.set_type(AttributeProto::GRAPH);
  *attribute.mutable_g() = std::move(branch);
  WriteFile(dir_ / "deep.onnx", model.SerializeAsString());
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(dir_ / "deep.onnx"); }),
            (dir_ / "deep.onnx").string() +
                ": not a valid ONNX model: its messages nest deeper than protobuf's limit of 100 (about 33 levels of "
                "nested graphs)");
}

TEST_F(ModelIoTest, RejectsRandomBytes) {
  std::mt19937 engine(42);
  std::string bytes(4096, '\0');
  for (char& byte : bytes) byte = static_cast<char>(engine());
  WriteFile(dir_ / "random.onnx", bytes);
  EXPECT_THAT(ErrorOf<ModelError>([&] { LoadModel(dir_ / "random.onnx"); }),
              HasSubstr((dir_ / "random.onnx").string() + ": not a valid ONNX model"));
}

TEST_F(ModelIoTest, ChecksGraphUnlessDisabled) {
  ModelProto model = ParseText(kSimpleModel);
  model.mutable_graph()->mutable_node(0)->set_input(1, "ghost");
  const fs::path path = WriteModel(model);
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() + ": node #0 (Mul) in graph 'main' reads 'ghost', which is not defined (IR.md: a node "
                "input is an input, an initializer or a node output of its graph, or a value visible from an "
                "enclosing graph)");
  LoadOptions options;
  options.check_graph = false;
  EXPECT_EQ(LoadModel(path, options).graph().node(0).input(1), "ghost");
}

TEST_F(ModelIoTest, ParseModelNamesOrigin) {
  const std::string bytes = SerializeDeterministic(ParseText(kSimpleModel));
  EXPECT_EQ(ParseModel(bytes, "memory").graph().initializer_size(), 2);
  EXPECT_EQ(ErrorOf<ModelError>([&] { ParseModel(std::string_view(bytes).substr(0, 20), "memory"); }),
            "memory: not a valid ONNX model (truncated or malformed protobuf)");
}

// ---------------------------------------------------------------------------------------
// External data

class ExternalDataTest : public ModelIoTest {
 protected:
  // Writes model.onnx whose initializer 'w' (float[4]) is stored externally with `entries`.
  fs::path WriteExternalModel(const std::vector<std::pair<std::string, std::string>>& entries) {
    ModelProto model = ParseText(kSimpleModel);
    MakeExternal(Initializer(model, "w"), entries);
    return WriteModel(model);
  }

  // The message of the ModelError raised when loading model.onnx with `location`.
  std::string LoadError(const std::string& location) {
    const fs::path path = WriteExternalModel({{"location", location}});
    return ErrorOf<ModelError>([&] { LoadModel(path); });
  }

  const std::string weights_ = FloatBytes({1.0f, 2.0f, 3.0f, 4.0f});
};

TEST_F(ExternalDataTest, LoadsOffsetAndLength) {
  WriteFile(dir_ / "w.bin", std::string(16, 'x') + weights_ + "tail");
  const fs::path path = WriteExternalModel({{"location", "w.bin"}, {"offset", "16"}, {"length", "16"}});
  ModelProto loaded = LoadModel(path);
  const TensorProto& w = Initializer(loaded, "w");
  EXPECT_EQ(w.raw_data(), weights_);
  EXPECT_EQ(w.external_data_size(), 0);
  EXPECT_FALSE(w.has_data_location());
}

TEST_F(ExternalDataTest, LengthAbsentReadsToEndOfFile) {
  fs::create_directory(dir_ / "sub");
  WriteFile(dir_ / "sub" / "w.bin", "abcd" + weights_);
  const fs::path path = WriteExternalModel({{"location", "./sub/w.bin"}, {"offset", "4"}, {"checksum", "x"}});
  EXPECT_EQ(Initializer(LoadModel(path), "w").raw_data(), weights_);
}

TEST_F(ExternalDataTest, LoadsTensorsOfConstantsNestedGraphsAndFunctions) {
  ModelProto model = ParseText(kNestedModel);
  TensorProto& constant = *model.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_t();
  GraphProto& then_graph = *model.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  TensorProto& nested = *then_graph.mutable_initializer(0);
  TensorProto& in_function = *model.mutable_functions(0)->mutable_node(0)->mutable_attribute(0)->mutable_t();
  WriteFile(dir_ / "w.bin", FloatBytes({1, 2, 3, 4}) + FloatBytes({9, 8, 7, 6}) + FloatBytes({1, 1, 1, 1}));
  MakeExternal(constant, {{"location", "w.bin"}, {"length", "16"}});
  MakeExternal(nested, {{"location", "w.bin"}, {"offset", "16"}, {"length", "16"}});
  MakeExternal(in_function, {{"location", "w.bin"}, {"offset", "32"}});
  const ModelProto loaded = LoadModel(WriteModel(model));

  const std::vector<std::pair<TensorProto*, std::string>> expected = {{&constant, FloatBytes({1, 2, 3, 4})},
                                                                      {&nested, FloatBytes({9, 8, 7, 6})},
                                                                      {&in_function, FloatBytes({1, 1, 1, 1})}};
  for (const auto& [tensor, bytes] : expected) {
    tensor->clear_external_data();
    tensor->clear_data_location();
    tensor->set_raw_data(bytes);
  }
  EXPECT_EQ(SerializeDeterministic(loaded), SerializeDeterministic(model));
}

TEST_F(ExternalDataTest, KeepsReferencesWhenNotLoadingExternalData) {
  const fs::path path = WriteExternalModel({{"location", "absent.bin"}});
  LoadOptions options;
  options.load_external_data = false;
  ModelProto loaded = LoadModel(path, options);
  EXPECT_TRUE(HasExternalData(Initializer(loaded, "w")));
  const std::string bytes = SerializeDeterministic(loaded);
  EXPECT_TRUE(HasExternalData(Initializer(ParseModel(bytes, "memory"), "w")));
}

TEST_F(ExternalDataTest, WarnsAboutUnknownKeys) {
  WriteFile(dir_ / "w.bin", weights_);
  const fs::path path = WriteExternalModel({{"location", "w.bin"}, {"colour", "blue"}});
  std::vector<std::string> warnings;
  LoadModel(path, {}, &warnings);
  EXPECT_THAT(warnings,
              ElementsAre(path.string() + ": external data of tensor 'w': unknown key 'colour' ignored"));
}

TEST_F(ExternalDataTest, RejectsAbsolutePath) {
  WriteFile(dir_ / "w.bin", weights_);
  const std::string location = (dir_ / "w.bin").string();
  EXPECT_EQ(LoadError(location), (dir_ / "model.onnx").string() + ": external data of tensor 'w' in '" + location +
                                     "': the location is an absolute path");
}

TEST_F(ExternalDataTest, RejectsParentComponents) {
  for (const std::string location : {"../w.bin", "sub/../../w.bin", "sub/../w.bin"}) {
    EXPECT_THAT(LoadError(location), AllOf(HasSubstr("tensor 'w' in '" + location + "'"),
                                           HasSubstr("the location has a '..' component")));
  }
}

TEST_F(ExternalDataTest, RejectsSymlinkAsFinalComponent) {
  TempDir outside;
  WriteFile(outside / "secret", weights_);
  fs::create_symlink(outside / "secret", dir_ / "w.bin");
  EXPECT_EQ(LoadError("w.bin"), (dir_ / "model.onnx").string() + ": external data of tensor 'w' in 'w.bin': '" +
                                    (dir_ / "w.bin").string() + "' is a symbolic link");
}

TEST_F(ExternalDataTest, RejectsSymlinkInParentFolder) {
  TempDir outside;
  WriteFile(outside / "w.bin", weights_);
  fs::create_directory_symlink(outside.path(), dir_ / "data");
  EXPECT_THAT(LoadError("data/w.bin"),
              AllOf(HasSubstr("tensor 'w' in 'data/w.bin'"),
                    HasSubstr("'" + (dir_ / "data").string() + "' is a symbolic link")));
}

TEST_F(ExternalDataTest, RejectsHardLink) {
  WriteFile(dir_ / "original.bin", weights_);
  fs::create_hard_link(dir_ / "original.bin", dir_ / "w.bin");
  EXPECT_THAT(LoadError("w.bin"), AllOf(HasSubstr("tensor 'w' in 'w.bin'"), HasSubstr("has 2 hard links")));
}

TEST_F(ExternalDataTest, RejectsMissingFile) {
  EXPECT_EQ(LoadError("w.bin"), (dir_ / "model.onnx").string() + ": external data of tensor 'w' in 'w.bin': file '" +
                                    (dir_ / "w.bin").string() + "' does not exist");
}

TEST_F(ExternalDataTest, RejectsFolder) {
  fs::create_directory(dir_ / "w.bin");
  EXPECT_THAT(LoadError("w.bin"), HasSubstr("'" + (dir_ / "w.bin").string() + "' is not a regular file"));
}

TEST_F(ExternalDataTest, QuotesEveryByteOfTheLocation) {
  // A NUL (or a line feed) in a location must neither cut the message nor reach the terminal.
  const std::string location("w\0x.bin\n\x1b[2J", 12);
  EXPECT_EQ(LoadError(location), (dir_ / "model.onnx").string() +
                                     ": external data of tensor 'w' in 'w\\x00x.bin\\n\\x1b[2J': file '" +
                                     (dir_ / "w").string() + "\\x00x.bin\\n\\x1b[2J' does not exist");
}

TEST_F(ExternalDataTest, RejectsMissingLocation) {
  const fs::path path = WriteExternalModel({{"offset", "0"}});
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() + ": external data of tensor 'w': no 'location' key");
}

TEST_F(ExternalDataTest, RejectsOffsetPastEnd) {
  WriteFile(dir_ / "w.bin", weights_);
  const fs::path path = WriteExternalModel({{"location", "w.bin"}, {"offset", "100"}});
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() + ": external data of tensor 'w' in 'w.bin': offset 100 is past the end of the file (16 bytes)");
}

TEST_F(ExternalDataTest, RejectsOffsetPlusLengthPastEnd) {
  WriteFile(dir_ / "w.bin", weights_);
  for (const std::string length : {"16", "9223372036854775807"}) {
    const fs::path path = WriteExternalModel({{"location", "w.bin"}, {"offset", "8"}, {"length", length}});
    EXPECT_THAT(ErrorOf<ModelError>([&] { LoadModel(path); }),
                AllOf(HasSubstr("tensor 'w' in 'w.bin'"), HasSubstr("is past the end of the file (16 bytes)")));
  }
}

TEST_F(ExternalDataTest, RejectsLengthNotMatchingShape) {
  WriteFile(dir_ / "w.bin", weights_);
  const fs::path path = WriteExternalModel({{"location", "w.bin"}, {"length", "8"}});
  EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
            path.string() +
                ": external data of tensor 'w' in 'w.bin': the data has 8 bytes but the tensor's shape and type "
                "FLOAT need 16");
}

TEST_F(ExternalDataTest, RejectsBadNumbers) {
  WriteFile(dir_ / "w.bin", weights_);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"offset", "-1"}, {"length", "abc"}, {"length", ""}, {"offset", "+4"}, {"offset", "9223372036854775808"}};
  for (const auto& [key, value] : cases) {
    const fs::path path = WriteExternalModel({{"location", "w.bin"}, {key, value}});
    EXPECT_EQ(ErrorOf<ModelError>([&] { LoadModel(path); }),
              path.string() + ": external data of tensor 'w': " + key + " '" + value +
                  "' is not a non-negative decimal integer");
  }
}

// ---------------------------------------------------------------------------------------
// Saving

class SaveModelTest : public ModelIoTest {
 protected:
  // kSimpleModel with a large initializer 'big' (float[1024], 4 KiB) in raw_data.
  static ModelProto ModelWithLargeInitializer() {
    ModelProto model = ParseText(kSimpleModel);
    TensorProto& big = *model.mutable_graph()->add_initializer();
    big.set_name("big");
    big.set_data_type(TensorProto::FLOAT);
    big.add_dims(1024);
    std::string bytes(4096, '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
    big.set_raw_data(bytes);
    return model;
  }
};

TEST_F(SaveModelTest, LoadReportsTheExternalDataFilesRead) {
  ModelProto model = ModelWithLargeInitializer();
  SaveOptions options;
  options.external_data_threshold = 1024;
  SaveModel(model, dir_ / "m.onnx", options);
  std::vector<fs::path> files;
  LoadModel(dir_ / "m.onnx", {}, nullptr, &files);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_TRUE(fs::equivalent(files[0], dir_ / "m.onnx.data")) << files[0];
  EXPECT_EQ(ExternalDataPath(dir_ / "m.onnx"), dir_ / "m.onnx.data");
  files.clear();
  SaveModel(model, dir_ / "inline.onnx");
  LoadModel(dir_ / "inline.onnx", {}, nullptr, &files);
  EXPECT_TRUE(files.empty());
}

TEST_F(SaveModelTest, SavesAndReloads) {
  ModelProto model = ParseText(kSimpleModel);
  SaveModel(model, dir_ / "model.onnx");
  EXPECT_EQ(SerializeDeterministic(LoadModel(dir_ / "model.onnx")), SerializeDeterministic(model));
  EXPECT_THAT(ListFiles(dir_.path()), ElementsAre(dir_ / "model.onnx"));
}

TEST_F(SaveModelTest, ReplacesExistingFile) {
  WriteFile(dir_ / "model.onnx", "old");
  ModelProto model = ParseText(kSimpleModel);
  SaveModel(model, dir_ / "model.onnx");
  EXPECT_EQ(ReadFile(dir_ / "model.onnx"), SerializeDeterministic(model));
}

TEST_F(SaveModelTest, ReadOnlyFolderIsIoError) {
  ModelProto model = ParseText(kSimpleModel);
  // Root ignores folder permissions, but cannot create files in sysfs.
  const bool root = geteuid() == 0;
  const fs::path path = root ? fs::path("/sys/onnxopt-test.onnx") : dir_ / "model.onnx";
  if (!root) fs::permissions(dir_.path(), fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_EQ(ErrorOf<IoError>([&] { SaveModel(model, path); }),
            "cannot save model to '" + path.string() + "': Permission denied");
  if (!root) fs::permissions(dir_.path(), fs::perms::owner_all);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(ListFiles(dir_.path()).empty());
}

TEST_F(SaveModelTest, MissingFolderIsIoError) {
  ModelProto model = ParseText(kSimpleModel);
  const fs::path path = dir_ / "absent" / "model.onnx";
  EXPECT_EQ(ErrorOf<IoError>([&] { SaveModel(model, path); }),
            "cannot save model to '" + path.string() + "': No such file or directory");
  EXPECT_TRUE(ListFiles(dir_.path()).empty());
}

TEST_F(SaveModelTest, DestinationFolderIsIoError) {
  ModelProto model = ModelWithLargeInitializer();
  fs::create_directory(dir_ / "model.onnx");
  SaveOptions options;
  options.external_data_threshold = 1024;
  EXPECT_EQ(ErrorOf<IoError>([&] { SaveModel(model, dir_ / "model.onnx", options); }),
            "cannot save model to '" + (dir_ / "model.onnx").string() + "': a directory, not a regular file");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 1);
  EXPECT_TRUE(fs::is_directory(dir_ / "model.onnx"));
}

// Limits the size of files this process may write, and restores the limit when destroyed.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    // Without this, exceeding the limit kills the process instead of failing the write.
    saved_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, saved_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t saved_handler_;
};

TEST_F(SaveModelTest, FailedWriteLeavesOldFilesIntact) {
  // A write failure that root cannot bypass: the file size limit.
  ModelProto model = ModelWithLargeInitializer();
  WriteFile(dir_ / "model.onnx", "old model");
  WriteFile(dir_ / "model.onnx.data", "old data");
  for (std::optional<std::uint64_t> threshold : {std::optional<std::uint64_t>(), std::optional<std::uint64_t>(0)}) {
    SaveOptions options;
    options.external_data_threshold = threshold;
    std::string error;
    {
      FileSizeLimit limit(1024);
      error = ErrorOf<IoError>([&] { SaveModel(model, dir_ / "model.onnx", options); });
    }
    EXPECT_THAT(error, AllOf(HasSubstr("cannot save model to '" + (dir_ / "model.onnx").string() + "'"),
                             HasSubstr("File too large")));
    EXPECT_EQ(ReadFile(dir_ / "model.onnx"), "old model");
    EXPECT_EQ(ReadFile(dir_ / "model.onnx.data"), "old data");
    EXPECT_THAT(ListFiles(dir_.path()), ElementsAre(dir_ / "model.onnx", dir_ / "model.onnx.data"));
  }
}

// A model of `megabytes` MiB: more than one of the pieces SaveModel writes (1 MiB).
ModelProto ModelOfMegabytes(int megabytes) {
  ModelProto model = ParseText(kSimpleModel);
  TensorProto& big = *model.mutable_graph()->add_initializer();
  big.set_name("big");
  big.set_data_type(TensorProto::UINT8);
  big.add_dims(megabytes << 20);
  std::string bytes(static_cast<std::size_t>(megabytes) << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7 + i / 4096);
  big.set_raw_data(bytes);
  return model;
}

TEST_F(SaveModelTest, ModelLargerThanTheWriteBufferSavesTheDeterministicBytes) {
  ModelProto model = ModelOfMegabytes(3);
  SaveModel(model, dir_ / "model.onnx");
  EXPECT_EQ(ReadFile(dir_ / "model.onnx"), SerializeDeterministic(model));
}

TEST_F(SaveModelTest, WriteFailingAfterTheFirstPiecesLeavesNoFile) {
  ModelProto model = ModelOfMegabytes(3);
  std::string error;
  {
    FileSizeLimit limit(3 << 19);  // 1.5 MiB: the first piece is written, the second fails
    error = ErrorOf<IoError>([&] { SaveModel(model, dir_ / "model.onnx"); });
  }
  EXPECT_THAT(error, AllOf(HasSubstr("cannot save model to '" + (dir_ / "model.onnx").string() + "'"),
                           HasSubstr("File too large")));
  EXPECT_THAT(ListFiles(dir_.path()), ElementsAre());
}

TEST_F(SaveModelTest, ThresholdMovesLargeInitializersToDataFile) {
  ModelProto model = ModelWithLargeInitializer();
  const std::string original = SerializeDeterministic(model);
  SaveOptions options;
  options.external_data_threshold = 16;
  SaveModel(model, dir_ / "model.onnx", options);
  EXPECT_EQ(SerializeDeterministic(model), original) << "the caller's model changed";
  EXPECT_THAT(ListFiles(dir_.path()), ElementsAre(dir_ / "model.onnx", dir_ / "model.onnx.data"));

  LoadOptions references_only;
  references_only.load_external_data = false;
  ModelProto saved = LoadModel(dir_ / "model.onnx", references_only);
  EXPECT_FALSE(HasExternalData(Initializer(saved, "b")));  // 8 bytes, under the threshold
  const TensorProto& w = Initializer(saved, "w");
  const TensorProto& big = Initializer(saved, "big");
  ASSERT_TRUE(HasExternalData(w) && HasExternalData(big));
  ASSERT_EQ(big.external_data_size(), 3);
  EXPECT_EQ(big.external_data(0).value(), "model.onnx.data");
  EXPECT_EQ(big.external_data(1).value(), "4096");  // page-aligned after w
  EXPECT_EQ(big.external_data(2).value(), "4096");

  // Loading stores w's values, given in float_data, as raw_data.
  ModelProto expected = model;
  TensorProto& expected_w = Initializer(expected, "w");
  expected_w.set_raw_data(*RawBytes(expected_w));
  expected_w.clear_float_data();
  EXPECT_EQ(SerializeDeterministic(LoadModel(dir_ / "model.onnx")), SerializeDeterministic(expected));
}

TEST_F(SaveModelTest, ExternalizesNestedGraphInitializers) {
  ModelProto model = ParseText(kNestedModel);
  const std::string original = SerializeDeterministic(model);
  SaveOptions options;
  options.external_data_threshold = 0;
  options.external_data_file = "weights.bin";
  SaveModel(model, dir_ / "model.onnx", options);
  EXPECT_EQ(SerializeDeterministic(model), original);
  EXPECT_EQ(ReadFile(dir_ / "weights.bin"), FloatBytes({9, 8, 7, 6}));
  const ModelProto loaded = LoadModel(dir_ / "model.onnx");
  EXPECT_EQ(loaded.graph().node(1).attribute(0).g().initializer(0).raw_data(), FloatBytes({9, 8, 7, 6}));
}

TEST_F(SaveModelTest, ReplacesExistingDataFile) {
  ModelProto model = ModelWithLargeInitializer();
  SaveOptions options;
  options.external_data_threshold = 1024;
  SaveModel(model, dir_ / "model.onnx", options);
  Initializer(model, "big").mutable_raw_data()->assign(4096, 'z');
  SaveModel(model, dir_ / "model.onnx", options);
  EXPECT_EQ(ReadFile(dir_ / "model.onnx.data"), std::string(4096, 'z'));
  EXPECT_EQ(Initializer(LoadModel(dir_ / "model.onnx"), "big").raw_data(),
            std::string(4096, 'z'));
}

TEST_F(SaveModelTest, RefusesDataFileOutsideFolder) {
  ModelProto model = ModelWithLargeInitializer();
  SaveOptions options;
  options.external_data_threshold = 1024;
  TempDir outside;
  fs::create_directory_symlink(outside.path(), dir_ / "link");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"../weights.bin", "the location has a '..' component, which may leave the model folder"},
      {"/tmp/weights.bin", "the location is an absolute path"},
      {"link/weights.bin", "it resolves outside the model folder"},
      {"./model.onnx", "it is the model file itself"}};
  for (const auto& [name, problem] : cases) {
    options.external_data_file = name;
    EXPECT_EQ(ErrorOf<IoError>([&] { SaveModel(model, dir_ / "model.onnx", options); }),
              "cannot save model to '" + (dir_ / "model.onnx").string() + "': external data file '" + name +
                  "': " + problem);
  }
  EXPECT_TRUE(ListFiles(dir_.path()).empty());
  EXPECT_TRUE(ListFiles(outside.path()).empty());
}

TEST_F(SaveModelTest, RefusesToReplaceDataStillReferenced) {
  ModelProto model = ModelWithLargeInitializer();
  MakeExternal(Initializer(model, "w"), {{"location", "model.onnx.data"}});
  SaveOptions options;
  options.external_data_threshold = 1024;
  EXPECT_THAT(ErrorOf<IoError>([&] { SaveModel(model, dir_ / "model.onnx", options); }),
              HasSubstr("would replace the data of tensor 'w', which is still stored there"));
  EXPECT_TRUE(ListFiles(dir_.path()).empty());
}

}  // namespace
}  // namespace onnxopt::core::ir
