// The command line on good and hostile input: exit codes, messages, and no file left
// behind when something fails.

#include <unistd.h>

#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSmallModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x) => (float[2,3] y) {
    a = Identity (x)
    b = Relu (a)
    c = Relu (a)
    y = Add (b, c)
  })ONNX";

std::string Serialized(const ModelProto& model) { return core::ir::SerializeDeterministic(model); }

// A model whose initializer `w` (FLOAT[4]) lives in external data at `location`.
ModelProto ModelWithExternalWeight(const std::string& location, const std::string& offset = "0",
                                   const std::string& length = "16") {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] x) => (float[4] y) { y = Add (x, w) })ONNX");
  TensorProto* weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(TensorProto::FLOAT);
  weight->add_dims(4);
  weight->set_data_location(TensorProto::EXTERNAL);
  auto add_entry = [&](const std::string& key, const std::string& value) {
    auto* entry = weight->add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add_entry("location", location);
  add_entry("offset", offset);
  add_entry("length", length);
  return model;
}

class CliTest : public ::testing::Test {
 protected:
  // Runs `onnxopt optimize MODEL -o OUT` on `model_bytes` written in a fresh folder.
  CommandResult Optimize(const std::string& model_bytes) {
    WriteFile(dir_ / "model.onnx", model_bytes);
    return RunCommand({OnnxoptExe().string(), "optimize", (dir_ / "model.onnx").string(), "-o", Output().string()});
  }
  fs::path Output() const { return out_dir_.path() / "out.onnx"; }
  // The invalid-input contract: exit code 2, the expected words in the message, and
  // nothing written in the output folder.
  void ExpectRejected(const CommandResult& result, const std::string& expected_text) {
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find(expected_text), std::string::npos)
        << "expected '" << expected_text << "' in:\n" << result.output;
    EXPECT_TRUE(ListFiles(out_dir_.path()).empty()) << "a file was left behind";
  }

  TempDir dir_;
  TempDir out_dir_;
};

TEST_F(CliTest, OptimizeRemovesIdentityAndDuplicates) {
  auto result = Optimize(Serialized(ParseText(kSmallModel)));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  ModelProto optimized = core::ir::LoadModel(Output());
  ASSERT_EQ(optimized.graph().node_size(), 2);
  EXPECT_EQ(optimized.graph().node(0).op_type(), "Relu");
  EXPECT_EQ(optimized.graph().node(0).input(0), "x");
  EXPECT_EQ(optimized.graph().node(1).op_type(), "Add");
  EXPECT_NE(result.output.find("nodes: 4 -> 2, initializers: 0 -> 0"), std::string::npos) << result.output;
}

TEST_F(CliTest, HelpAndUsageErrors) {
  EXPECT_EQ(RunCommand({OnnxoptExe().string(), "--help"}).exit_code, 0);
  auto help = RunCommand({OnnxoptExe().string(), "optimize", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("examples:"), std::string::npos);
  EXPECT_EQ(RunCommand({OnnxoptExe().string()}).exit_code, 1);
  EXPECT_EQ(RunCommand({OnnxoptExe().string(), "frobnicate"}).exit_code, 1);
  auto missing_output = RunCommand({OnnxoptExe().string(), "optimize", "m.onnx"});
  EXPECT_EQ(missing_output.exit_code, 1);
  EXPECT_NE(missing_output.output.find("missing -o OUTPUT"), std::string::npos) << missing_output.output;
  auto bad_option = RunCommand({OnnxoptExe().string(), "info", "--frob", "m.onnx"});
  EXPECT_EQ(bad_option.exit_code, 1);
  EXPECT_NE(bad_option.output.find("unknown option --frob"), std::string::npos) << bad_option.output;
}

TEST_F(CliTest, InfoDescribesTheModel) {
  WriteFile(dir_ / "model.onnx", Serialized(ParseText(kSmallModel)));
  auto result = RunCommand({OnnxoptExe().string(), "info", (dir_ / "model.onnx").string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("x  float[2,3]"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("nodes: 4"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("ai.onnx=18"), std::string::npos) << result.output;
}

TEST_F(CliTest, RejectsMissingFile) {
  auto result = RunCommand({OnnxoptExe().string(), "optimize", (dir_ / "absent.onnx").string(), "-o",
                            Output().string()});
  ExpectRejected(result, "absent.onnx");
}

TEST_F(CliTest, RejectsTruncatedFile) {
  std::string bytes = Serialized(ParseText(kSmallModel));
  ExpectRejected(Optimize(bytes.substr(0, bytes.size() / 2)), "model.onnx");
}

TEST_F(CliTest, RejectsRandomBytes) {
  std::mt19937 generator(7);
  std::string bytes(4096, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(generator());
  ExpectRejected(Optimize(bytes), "model.onnx");
}

TEST_F(CliTest, RejectsExternalDataWithParentComponent) {
  ExpectRejected(Optimize(Serialized(ModelWithExternalWeight("../weights.bin"))), "../weights.bin");
}

TEST_F(CliTest, RejectsAbsoluteExternalDataPath) {
  ExpectRejected(Optimize(Serialized(ModelWithExternalWeight("/etc/passwd"))), "/etc/passwd");
}

TEST_F(CliTest, RejectsExternalDataSymlinkLeavingTheFolder) {
  TempDir outside;
  WriteFile(outside / "secret.bin", std::string(16, 'x'));
  fs::create_symlink(outside / "secret.bin", dir_ / "weights.bin");
  ExpectRejected(Optimize(Serialized(ModelWithExternalWeight("weights.bin"))), "weights.bin");
}

TEST_F(CliTest, RejectsExternalDataOffsetPastTheEnd) {
  WriteFile(dir_ / "weights.bin", std::string(16, '\0'));
  ExpectRejected(Optimize(Serialized(ModelWithExternalWeight("weights.bin", "64", "16"))), "weights.bin");
}

TEST_F(CliTest, RejectsCyclicGraph) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) { y = Relu (x) })ONNX");
  // a = Add(x, b); b = Relu(a): each reads the other.
  auto* graph = model.mutable_graph();
  graph->clear_node();
  auto* first = graph->add_node();
  first->set_op_type("Add");
  first->set_name("first");
  first->add_input("x");
  first->add_input("b");
  first->add_output("a");
  auto* second = graph->add_node();
  second->set_op_type("Relu");
  second->set_name("second");
  second->add_input("a");
  second->add_output("b");
  auto* last = graph->add_node();
  last->set_op_type("Relu");
  last->add_input("b");
  last->add_output("y");
  ExpectRejected(Optimize(Serialized(model)), "cycle");
}

TEST_F(CliTest, RejectsUndefinedValue) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) { y = Add (x, ghost) })ONNX");
  ExpectRejected(Optimize(Serialized(model)), "ghost");
}

TEST_F(CliTest, RejectsDuplicateOutputNames) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) {
      y = Relu (x)
      y = Neg (x)
    })ONNX");
  ExpectRejected(Optimize(Serialized(model)), "'y'");
}

TEST_F(CliTest, FailedSaveLeavesNoFile) {
  WriteFile(dir_ / "model.onnx", Serialized(ParseText(kSmallModel)));
  // A destination whose parent is a regular file cannot be created, even by root, which
  // ignores permission bits on folders.
  WriteFile(out_dir_ / "not-a-folder", "x");
  auto result = RunCommand({OnnxoptExe().string(), "optimize", (dir_ / "model.onnx").string(), "-o",
                            (out_dir_ / "not-a-folder" / "out.onnx").string()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("cannot save"), std::string::npos) << result.output;
  EXPECT_EQ(ListFiles(out_dir_.path()), std::vector<fs::path>{out_dir_ / "not-a-folder"});
}

TEST_F(CliTest, FailedSaveInReadOnlyFolderLeavesNoFile) {
  WriteFile(dir_ / "model.onnx", Serialized(ParseText(kSmallModel)));
  fs::permissions(out_dir_.path(), fs::perms::owner_read | fs::perms::owner_exec);
  if (geteuid() == 0) {
    // Root writes into read-only folders; /proc refuses new files to everyone.
    auto result = RunCommand({OnnxoptExe().string(), "optimize", (dir_ / "model.onnx").string(), "-o",
                              "/proc/onnxopt-test-out.onnx"});
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("cannot save"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists("/proc/onnxopt-test-out.onnx"));
    return;
  }
  auto result = RunCommand({OnnxoptExe().string(), "optimize", (dir_ / "model.onnx").string(), "-o",
                            Output().string()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("cannot save"), std::string::npos) << result.output;
  EXPECT_TRUE(ListFiles(out_dir_.path()).empty());
}

}  // namespace
}  // namespace onnxopt::testing
