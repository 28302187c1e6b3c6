// The files the command line reads and writes: anything but a regular file given as
// input is refused at once (a FIFO would make the command wait for ever), outputs are
// compared as files (not as names) with each other and with the inputs, and a command
// that fails leaves none of its outputs.

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/eval/npy.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x) => (float[2,3] y) {
    a = Cast <to = 11> (x)
    b = Cast <to = 1> (a)
    y = Relu (b)
  })ONNX";

// A model whose weight `w` (float[4]) is stored in the external data file `location`.
ModelProto ModelWithWeights() {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] x) => (float[4] y) { y = Add (x, w) })ONNX");
  TensorProto* weight = model.mutable_graph()->add_initializer();
  weight->set_name("w");
  weight->set_data_type(TensorProto::FLOAT);
  weight->add_dims(4);
  for (float value : {1.0f, 2.0f, 3.0f, 4.0f}) weight->add_float_data(value);
  return model;
}

// The kinds of file that are no regular file, each created at a path.
enum class Kind { kFifo, kDirectory, kCharacterDevice, kSocket };

struct SpecialFile {
  Kind kind;
  const char* words;  // what the message calls it
};

constexpr SpecialFile kSpecialFiles[] = {
    {Kind::kFifo, "a FIFO, not a regular file"},
    {Kind::kDirectory, "a directory, not a regular file"},
    {Kind::kCharacterDevice, "a character device, not a regular file"},
    {Kind::kSocket, "a socket, not a regular file"},
};

class FileHandlingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = in_ / "model.onnx";
    WriteFile(model_, core::ir::SerializeDeterministic(ParseText(kModel)));
  }
  void TearDown() override {
    for (int fd : sockets_) close(fd);
  }

  // Creates a file of `kind` at `path` (a character device: a symbolic link to /dev/null,
  // which reading follows).
  void Make(Kind kind, const fs::path& path) {
    switch (kind) {
      case Kind::kFifo: ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << std::strerror(errno); break;
      case Kind::kDirectory: fs::create_directory(path); break;
      case Kind::kCharacterDevice: fs::create_symlink("/dev/null", path); break;
      case Kind::kSocket: {
        const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        ASSERT_GE(fd, 0);
        sockets_.push_back(fd);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        ASSERT_LT(path.string().size(), sizeof(address.sun_path));
        std::strcpy(address.sun_path, path.c_str());
        ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0) << std::strerror(errno);
        break;
      }
    }
  }

  // A file of `kind` in `folder`, named after its kind.
  fs::path MakeSpecial(Kind kind, const fs::path& folder, const std::string& extension) {
    const fs::path path = folder / ("special" + std::to_string(static_cast<int>(kind)) + extension);
    Make(kind, path);
    return path;
  }

  // onnxopt under a time limit: a command that waits on a FIFO fails the test (exit 124)
  // instead of hanging it.
  CommandResult Onnxopt(std::vector<std::string> args) {
    args.insert(args.begin(), {"/usr/bin/timeout", "20", OnnxoptExe().string()});
    return RunCommand(args);
  }

  std::string Record() {
    const CommandResult result = Onnxopt({"optimize", model_.string(), "-o", (in_ / "opt.onnx").string(), "--record",
                                          (in_ / "opt.rewrites").string(), "-q"});
    EXPECT_EQ(result.exit_code, 0) << result.output;
    return (in_ / "opt.rewrites").string();
  }

  static void ExpectRefused(const CommandResult& result, int exit_code, const std::vector<std::string>& words) {
    EXPECT_EQ(result.exit_code, exit_code) << result.output;
    for (const std::string& word : words)
      EXPECT_NE(result.output.find(word), std::string::npos) << "expected '" << word << "' in:\n" << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
  }
  void ExpectNoOutput() const { EXPECT_TRUE(ListFiles(out_.path()).empty()) << "a file was left behind"; }

  TempDir in_;
  TempDir out_;
  fs::path model_;
  std::vector<int> sockets_;
};

// --- inputs that are no regular file ------------------------------------------------------

TEST_F(FileHandlingTest, RefusesEveryKindOfSpecialFileAsTheModel) {
  for (const SpecialFile& special : kSpecialFiles) {
    SCOPED_TRACE(special.words);
    const fs::path path = MakeSpecial(special.kind, in_.path(), ".onnx");
    const std::vector<std::string> words = {"cannot open model", path.string(), special.words};
    ExpectRefused(Onnxopt({"info", path.string()}), 2, words);
    ExpectRefused(Onnxopt({"optimize", path.string(), "-o", (out_ / "o.onnx").string()}), 2, words);
    ExpectRefused(Onnxopt({"run", path.string(), "--random-inputs"}), 2, words);
    ExpectRefused(Onnxopt({"verify", path.string(), model_.string()}), 2, words);
    ExpectRefused(Onnxopt({"verify", model_.string(), path.string()}), 2, words);
    ExpectRefused(Onnxopt({"replay", path.string(), Record(), "-o", (out_ / "o.onnx").string()}), 2, words);
    ExpectNoOutput();
  }
}

TEST_F(FileHandlingTest, RefusesEveryKindOfSpecialFileAsTheRewriteFile) {
  for (const SpecialFile& special : kSpecialFiles) {
    SCOPED_TRACE(special.words);
    const fs::path path = MakeSpecial(special.kind, in_.path(), ".rewrites");
    ExpectRefused(Onnxopt({"replay", model_.string(), path.string(), "-o", (out_ / "o.onnx").string()}), 2,
                  {"cannot open rewrite file", path.string(), special.words});
    ExpectNoOutput();
  }
}

TEST_F(FileHandlingTest, RefusesEveryKindOfSpecialFileAsAnInputArray) {
  for (const SpecialFile& special : kSpecialFiles) {
    SCOPED_TRACE(special.words);
    const fs::path path = MakeSpecial(special.kind, in_.path(), ".npy");
    ExpectRefused(Onnxopt({"run", model_.string(), "--input", "x=" + path.string(), "--output-dir", out_.path().string()}),
                  2, {"cannot open input file", path.string(), special.words});
    ExpectNoOutput();
  }
}

TEST_F(FileHandlingTest, FollowsSymbolicLinksToRegularFilesGivenOnTheCommandLine) {
  fs::create_symlink(model_, in_ / "link.onnx");
  const std::string record = Record();
  fs::create_symlink(record, in_ / "link.rewrites");
  core::eval::Tensor x(TensorProto::FLOAT, {2, 3});
  core::eval::WriteNpy(x, in_ / "x.npy");
  fs::create_symlink(in_ / "x.npy", in_ / "link.npy");

  EXPECT_EQ(Onnxopt({"info", (in_ / "link.onnx").string()}).exit_code, 0);
  const CommandResult replayed = Onnxopt({"replay", (in_ / "link.onnx").string(), (in_ / "link.rewrites").string(), "-o",
                                          (out_ / "o.onnx").string(), "-q"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_EQ(ReadFile(out_ / "o.onnx"), ReadFile(in_ / "opt.onnx"));
  const CommandResult run = Onnxopt({"run", (in_ / "link.onnx").string(), "--input", "x=" + (in_ / "link.npy").string()});
  EXPECT_EQ(run.exit_code, 0) << run.output;
}

// --- outputs ------------------------------------------------------------------------------

TEST_F(FileHandlingTest, AnOutputThatCannotBeWrittenLeavesNoOtherOutput) {
  // The report cannot replace a folder: the model, written first, must not stay.
  fs::create_directory(out_ / "report");
  const CommandResult result = Onnxopt({"optimize", model_.string(), "-o", (out_ / "m.onnx").string(), "--record",
                                        (out_ / "r.rewrites").string(), "--report-json", (out_ / "report").string()});
  ExpectRefused(result, 2, {"cannot write JSON report", "report", "a directory, not a regular file"});
  EXPECT_TRUE(ListFiles(out_.path()).empty()) << "m.onnx or r.rewrites was left behind";
  for (const SpecialFile& special : kSpecialFiles) {
    SCOPED_TRACE(special.words);
    if (special.kind == Kind::kCharacterDevice) continue;  // a link as output is replaced, not followed
    const fs::path path = MakeSpecial(special.kind, out_.path(), "");
    ExpectRefused(Onnxopt({"optimize", model_.string(), "-o", path.string()}), 2, {path.string(), special.words});
    ExpectRefused(Onnxopt({"optimize", model_.string(), "-o", (out_ / "m.onnx").string(), "--record", path.string()}),
                  2, {path.string(), special.words});
    EXPECT_FALSE(fs::exists(out_ / "m.onnx"));
  }
}

TEST_F(FileHandlingTest, OutputsAreComparedAsFilesNotAsNames) {
  fs::create_directory(out_ / "sub");
  fs::create_directory_symlink(out_.path(), in_ / "outlink");
  const std::string model = (out_ / "m.onnx").string();
  for (const std::string& same : {(out_ / "." / "m.onnx").string(), (out_ / "sub" / ".." / "m.onnx").string(),
                                  (in_ / "outlink" / "m.onnx").string()}) {
    SCOPED_TRACE(same);
    ExpectRefused(Onnxopt({"optimize", model_.string(), "-o", model, "--record", same}), 1,
                  {"is given as two outputs (-o and --record)"});
    ExpectRefused(Onnxopt({"optimize", model_.string(), "-o", model, "--report-json", same}), 1,
                  {"two outputs (-o and --report-json)"});
    ExpectRefused(Onnxopt({"optimize", model_.string(), "-o", model, "--report-json", same + ".data"}), 1,
                  {"two outputs (the external data file of -o and --report-json)"});
    ExpectNoOutput();
  }
}

TEST_F(FileHandlingTest, NoOutputReplacesTheInputModelOrItsWeights) {
  ModelProto weighted = ModelWithWeights();
  core::ir::SaveOptions external;
  external.external_data_threshold = 0;
  const fs::path model = in_ / "w.onnx";
  core::ir::SaveModel(weighted, model, external);
  ASSERT_TRUE(fs::exists(in_ / "w.onnx.data"));
  const std::string model_bytes = ReadFile(model), weight_bytes = ReadFile(in_ / "w.onnx.data");
  const std::string out = (out_ / "o.onnx").string();

  ExpectRefused(Onnxopt({"optimize", model.string(), "-o", out, "--report-json", (in_ / "w.onnx.data").string()}), 1,
                {"--report-json", "would overwrite an external data file of the input model"});
  ExpectRefused(Onnxopt({"optimize", model.string(), "-o", out, "--record", (in_ / "." / "w.onnx").string()}), 1,
                {"--record", "would overwrite the input model"});
  ExpectRefused(Onnxopt({"optimize", model.string(), "-o", (in_ / "w.onnx.data").string()}), 1,
                {"-o", "would overwrite an external data file of the input model"});
  // Another model whose weights would be saved over the input's.
  fs::rename(model, in_ / "v.onnx");
  ExpectRefused(Onnxopt({"optimize", (in_ / "v.onnx").string(), "-o", (in_ / "w.onnx").string()}), 1,
                {"the external data file of -o", "would overwrite an external data file of the input model"});
  fs::rename(in_ / "v.onnx", model);
  ExpectRefused(Onnxopt({"replay", model.string(), Record(), "-o", (in_ / "opt.rewrites").string()}), 1,
                {"-o", "would overwrite the rewrite file"});
  ExpectNoOutput();
  EXPECT_EQ(ReadFile(model), model_bytes);
  EXPECT_EQ(ReadFile(in_ / "w.onnx.data"), weight_bytes);
}

TEST_F(FileHandlingTest, OptimizesInPlaceWhenTheOutputIsTheInputModel) {
  ModelProto weighted = ModelWithWeights();
  core::ir::SaveOptions external;
  external.external_data_threshold = 0;
  const fs::path model = in_ / "w.onnx";
  core::ir::SaveModel(weighted, model, external);
  const CommandResult result = Onnxopt({"optimize", model.string(), "-o", (in_ / "." / "w.onnx").string(),
                                        "--external-data-threshold", "0", "-q"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const ModelProto loaded = core::ir::LoadModel(model);
  ASSERT_EQ(loaded.graph().initializer_size(), 1);
  EXPECT_EQ(loaded.graph().initializer(0).raw_data().size(), 16u) << "the weights survive in w.onnx.data";
  const CommandResult again = Onnxopt({"verify", model.string(), model.string()});
  EXPECT_EQ(again.exit_code, 0) << again.output;
}

TEST_F(FileHandlingTest, RunWritesEveryOutputOrNone) {
  const fs::path model = in_ / "two.onnx";
  WriteFile(model, core::ir::SerializeDeterministic(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] a, float[2] b) { a = Relu (x)  b = Neg (x) })ONNX")));
  // b.npy cannot be written (a folder is there): a.npy must not be written either.
  fs::create_directory(out_ / "b.npy");
  ExpectRefused(Onnxopt({"run", model.string(), "--random-inputs", "--output-dir", out_.path().string()}), 2,
                {"b.npy", "a directory, not a regular file"});
  EXPECT_FALSE(fs::exists(out_ / "a.npy"));
  fs::remove(out_ / "b.npy");

  // An output file may not replace an input file.
  core::eval::WriteNpy(core::eval::Tensor(TensorProto::FLOAT, {2}), out_ / "a.npy");
  const std::string input = ReadFile(out_ / "a.npy");
  ExpectRefused(Onnxopt({"run", model.string(), "--input", "x=" + (out_ / "a.npy").string(), "--output-dir",
                         out_.path().string()}),
                1, {"the --output-dir file of output 'a'", "would overwrite --input x"});
  EXPECT_EQ(ReadFile(out_ / "a.npy"), input);
  EXPECT_FALSE(fs::exists(out_ / "b.npy"));
  // Nor the model.
  const fs::path named_like_output = in_ / "a.npy";
  fs::copy_file(model, named_like_output);
  ExpectRefused(Onnxopt({"run", named_like_output.string(), "--random-inputs", "--output-dir", in_.path().string()}), 1,
                {"would overwrite the input model"});

  const CommandResult written = Onnxopt({"run", model.string(), "--random-inputs", "--output-dir", (out_ / "new").string()});
  ASSERT_EQ(written.exit_code, 0) << written.output;
  EXPECT_TRUE(fs::exists(out_ / "new" / "a.npy"));
  EXPECT_TRUE(fs::exists(out_ / "new" / "b.npy"));
}

}  // namespace
}  // namespace onnxopt::testing
