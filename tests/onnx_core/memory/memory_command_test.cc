// `onnxopt memory`: option validation (§11 O1), the report (O2), and the in-place run on
// the corpus (O3).

#include <gtest/gtest.h>

#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

const char* kExporterClone = R"(<ir_version: 8, opset_import: ["" : 18]>
  g (float[1] upd, float[4] b) => (float[4] y) <int64[1] shp = {4}, int64[1,1] idx = {2}> {
    z = ConstantOfShape(shp)
    c = Identity(z)
    w = ScatterND(c, idx, upd)
    y = Add(w, b)
  })";

std::filesystem::path WriteModel(const TempDir& dir, const char* text) {
  ModelProto model = ParseText(text);
  const std::filesystem::path path = dir / "model.onnx";
  core::ir::SaveModel(model, path);
  return path;
}

CommandResult Memory(std::vector<std::string> args) {
  args.insert(args.begin(), {OnnxoptExe().string(), "memory"});
  return RunCommand(args, {120, 0});
}

TEST(MemoryCommand, O1_MalformedDeclarationsAreRefusedNamingTheToken) {
  TempDir dir;
  const std::string model = WriteModel(dir, kExporterClone).string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--output-reuse-input", "0,x"}, "'x'"},
      {{"--output-reuse-input", "0"}, "'0' is not a pair"},
      {{"--input-reuse", "12abc"}, "'12abc'"},
      {{"--input-reuse", "-1"}, "'-1' is negative"},
      {{"--input-reuse", "9"}, "index 9 is out of range"},
      {{"--order", "nope:w"}, "'nope'"},
      {{"--keep-copy", "nope"}, "'nope'"},
      {{"--visit-order", "sideways"}, "'sideways'"},
  };
  for (const auto& [options, message] : cases) {
    std::vector<std::string> args{model, "-o", (dir / "out.onnx").string()};
    args.insert(args.end(), options.begin(), options.end());
    const CommandResult result = Memory(args);
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find(message), std::string::npos) << result.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "out.onnx"));
  }
}

TEST(MemoryCommand, O2_ReportAsTextAndJson) {
  TempDir dir;
  const std::string model = WriteModel(dir, kExporterClone).string();
  const CommandResult text = Memory({model});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("copy nodes: 1 -> 0 (deleted 1, elided 0, kept 0)"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("bytes copied: 32 -> 0"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("c: DELETED  path z(out:0) --> (in:0) c"), std::string::npos) << text.output;
  const CommandResult json = Memory({model, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find(R"("copy_nodes_before":1)"), std::string::npos) << json.output;
  EXPECT_NE(json.output.find(R"("before":{"copies":2,"bytes_copied":32,)"), std::string::npos) << json.output;
  EXPECT_NE(json.output.find(R"("after":{"copies":0,"bytes_copied":0,)"), std::string::npos) << json.output;
  EXPECT_NE(json.output.find(R"("constraints":[])"), std::string::npos) << json.output;
  EXPECT_NE(json.output.find(R"({"copy":"c","verdict":"DELETED","rule":0,"reason":"","path":"z(out:0) --> (in:0) c"})"),
            std::string::npos)
      << json.output;
}

TEST(MemoryCommand, SavesTheModelAfterThePassAndRunsItInPlace) {
  TempDir dir;
  const std::string model = WriteModel(dir, kExporterClone).string();
  const CommandResult result = Memory({model, "-o", (dir / "out.onnx").string(), "--run"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("outputs bit-identical"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("1 writes in place"), std::string::npos) << result.output;
  const ModelProto saved = core::ir::LoadModel(dir / "out.onnx");
  EXPECT_EQ(saved.graph().node_size(), 3);
}

// S2-11 from the command line: the call sites of g disagree (a private buffer, a
// caller's input); the first calls a clone without the copy, or, with
// --no-specialize-functions, the model stays and the deletion is ELIDED.
const char* kTwoCallSites = R"(<ir_version: 8, opset_import: ["" : 18, "local" : 1]>
  g (float[4] x, float[4] x2) => (float[4] y1, float[4] y2) {
    a = Relu(x)
    y1 = local.g(a)
    y2 = local.g(x2)
  }
  <domain: "local", opset_import: ["" : 18]>
  g (p) => (q) { t = Identity(p) q = Sigmoid(t) })";

TEST(MemoryCommand, LocalFunctionCallSitesThatDisagree) {
  TempDir dir;
  const std::string model = WriteModel(dir, kTwoCallSites).string();
  const CommandResult specialized = Memory({model, "-o", (dir / "out.onnx").string(), "--run"});
  ASSERT_EQ(specialized.exit_code, 0) << specialized.output;
  EXPECT_NE(specialized.output.find("bytes copied: 32 -> 16"), std::string::npos) << specialized.output;
  EXPECT_NE(specialized.output.find("y1/t: DELETED  path a(out:0) --> call local.g --> p(out:0) --> (in:0) t"),
            std::string::npos)
      << specialized.output;
  EXPECT_NE(specialized.output.find("y2/t: KEPT(2, user-input-not-declared)"), std::string::npos)
      << specialized.output;
  EXPECT_NE(specialized.output.find("outputs bit-identical"), std::string::npos) << specialized.output;
  const ModelProto saved = core::ir::LoadModel(dir / "out.onnx");
  ASSERT_EQ(saved.functions_size(), 2);
  EXPECT_EQ(saved.functions(1).name(), "g__onnxopt_m1");
  EXPECT_EQ(saved.functions(1).node_size(), 1);
  EXPECT_EQ(saved.graph().node(1).op_type(), "g__onnxopt_m1");
  EXPECT_EQ(saved.graph().node(2).op_type(), "g");

  const CommandResult plain = Memory({model, "--no-specialize-functions"});
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("bytes copied: 32 -> 16"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find("y1/t: ELIDED"), std::string::npos) << plain.output;
}

TEST(MemoryCommand, O3_CorpusInPlaceRunsAreBitIdentical) {
  for (const auto& path : CorpusModels()) {
    // Its graph inputs alone take 1.3 GB: two reference evaluations take minutes and 4 GB.
    if (path.filename() == "llama_forward.onnx") continue;
    const CommandResult result = Memory({path.string(), "--run"});
    EXPECT_EQ(result.exit_code, 0) << path << "\n" << result.output;
    EXPECT_NE(result.output.find("outputs bit-identical"), std::string::npos) << path << "\n" << result.output;
  }
}

}  // namespace
}  // namespace onnxopt::testing
