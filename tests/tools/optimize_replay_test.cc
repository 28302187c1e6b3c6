// `onnxopt optimize` with the pattern optimizer's options, and `onnxopt replay`: record
// then replay gives the same bytes; damaged or foreign rewrite files are invalid input.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

namespace fs = std::filesystem;

// Cast(Cast(x)) for CastCastPattern, an Identity and a duplicate for the cleanup passes,
// and an all-constant branch for folding.
constexpr const char* kCastModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,3] x) => (float[2,3] y) {
    a = Cast <to = 11> (x)
    b = Cast <to = 1> (a)
    c = Identity (b)
    d = Relu (c)
    e = Relu (c)
    k = Constant <value = float[1] {2.0}> ()
    k2 = Mul (k, k)
    f = Add (d, e)
    y = Mul (f, k2)
  })ONNX";

// Rewrites in both branches of an If and in the main graph.
constexpr const char* kIfModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, float[2] x) => (float[2] y) {
    t = Cast <to = 11> (x)
    u = Cast <to = 1> (t)
    y = If (c) <
      then_branch = then_g () => (float[2] p) {
        p1 = Cast <to = 11> (u)
        p2 = Cast <to = 1> (p1)
        p = Identity (p2)
      },
      else_branch = else_g () => (float[2] q) {
        q1 = Identity (u)
        q = Neg (q1)
      }
    >
  })ONNX";

// Nothing to rewrite but the cleanup passes.
constexpr const char* kPlainModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[4] x) => (float[4] y) {
    a = Relu (x)
    b = Identity (a)
    y = Sigmoid (b)
  })ONNX";

// A different model: replaying kCastModel's rewrites on it must fail.
constexpr const char* kOtherModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] x) => (float[2] y) { y = Relu (x) })ONNX";

class OptimizeReplayTest : public ::testing::Test {
 protected:
  fs::path WriteModel(const char* text, const std::string& name = "model.onnx") {
    const fs::path path = in_ / name;
    WriteFile(path, core::ir::SerializeDeterministic(ParseText(text)));
    return path;
  }
  CommandResult Onnxopt(std::vector<std::string> args) {
    args.insert(args.begin(), OnnxoptExe().string());
    return RunCommand(args);
  }
  fs::path Out(const std::string& name) const { return out_ / name; }
  // Exit code 2, the expected words in the message, and nothing in the output folder.
  void ExpectInvalidInput(const CommandResult& result, const std::string& expected_text) {
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find(expected_text), std::string::npos)
        << "expected '" << expected_text << "' in:\n" << result.output;
    EXPECT_TRUE(ListFiles(out_.path()).empty()) << "a file was left behind";
  }
  void ExpectUsageError(const CommandResult& result, const std::string& expected_text) {
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find(expected_text), std::string::npos)
        << "expected '" << expected_text << "' in:\n" << result.output;
    EXPECT_TRUE(ListFiles(out_.path()).empty()) << "a file was left behind";
  }
  // optimize --record, then replay: both exit 0 and save the same bytes. Returns the
  // optimized model.
  ModelProto ExpectReplayIdentical(const char* text, const std::vector<std::string>& extra = {}) {
    const fs::path model = WriteModel(text);
    std::vector<std::string> args = {"optimize", model.string(), "-o", Out("opt.onnx").string(), "--record",
                                     Out("opt.rewrites").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult optimized = Onnxopt(args);
    EXPECT_EQ(optimized.exit_code, 0) << optimized.output;
    const CommandResult replayed =
        Onnxopt({"replay", model.string(), Out("opt.rewrites").string(), "-o", Out("replayed.onnx").string()});
    EXPECT_EQ(replayed.exit_code, 0) << replayed.output;
    EXPECT_NE(replayed.output.find("replayed "), std::string::npos) << replayed.output;
    EXPECT_EQ(ReadFile(Out("opt.onnx")), ReadFile(Out("replayed.onnx"))) << "replay gave other bytes";
    return core::ir::LoadModel(Out("opt.onnx"));
  }

  TempDir in_;
  TempDir out_;
};

int CountOps(const GraphProto& graph, const std::string& op) {
  int count = 0;
  for (const NodeProto& node : graph.node()) count += node.op_type() == op;
  return count;
}

// --- optimize: the new options ----------------------------------------------------------

TEST_F(OptimizeReplayTest, DefaultAppliesPatternsAndFolds) {
  const CommandResult result = Onnxopt({"optimize", WriteModel(kCastModel).string(), "-o", Out("o.onnx").string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const ModelProto model = core::ir::LoadModel(Out("o.onnx"));
  EXPECT_EQ(CountOps(model.graph(), "Cast"), 0);
  EXPECT_EQ(CountOps(model.graph(), "Constant"), 0) << "the constant branch is folded";
  EXPECT_NE(result.output.find("iterations: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("rewrites: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("CastCastPattern 1"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("Cast: 2 -> 0"), std::string::npos) << result.output;
}

// Optimizing the optimized model again finds nothing: here a Constant that is a graph
// output becomes an initializer read through an Identity, which the folding after the
// batch folds as the folding before the loop would (before, the second run folded it).
// A channels-last head (Transpose, Relu, ReduceMean over H and W) is pushed in one run.
TEST_F(OptimizeReplayTest, OptimizingTheOptimizedModelChangesNothing) {
  const fs::path model = WriteModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x, float[2,8,4,4] image) => (float[2] y, float[2] k, float[2,1,1,8] pooled) {
      k = Constant <value = float[2] {1, 2}> ()
      y = Add (x, k)
      t = Transpose <perm = [0, 2, 3, 1]> (image)
      r = Relu (t)
      axes = Constant <value = int64[2] {1, 2}> ()
      pooled = ReduceMean <keepdims = 1> (r, axes)
    })ONNX");
  const CommandResult once = Onnxopt({"optimize", model.string(), "-o", Out("once.onnx").string()});
  ASSERT_EQ(once.exit_code, 0) << once.output;
  const ModelProto optimized = core::ir::LoadModel(Out("once.onnx"));
  EXPECT_EQ(CountOps(optimized.graph(), "Identity"), 0);
  EXPECT_EQ(CountOps(optimized.graph(), "Transpose"), 0) << "the copy on the pooled tensor is a Reshape";
  EXPECT_EQ(CountOps(optimized.graph(), "Reshape"), 1);
  const CommandResult twice =
      Onnxopt({"optimize", Out("once.onnx").string(), "-o", Out("twice.onnx").string(), "--check", "2"});
  ASSERT_EQ(twice.exit_code, 0) << twice.output;
  EXPECT_NE(twice.output.find("rewrites: 0\n"), std::string::npos) << twice.output;
  EXPECT_EQ(ReadFile(Out("once.onnx")), ReadFile(Out("twice.onnx")));
}

// A pattern can put a Transpose where the transpose optimizer, which ran before the
// patterns, now finds a push: SwapUnaryPattern moves the two Transposes past their Relus,
// and then a push through the Concat (whose output the caller reads) cancels the third.
// The pass runs again after the loop added a Transpose (GraphPass::RunAgainAfterAdding);
// before, only a second `optimize` removed them.
TEST_F(OptimizeReplayTest, ThePatternsWakeTheTransposeOptimizerAgain) {
  const char* text = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,8,4,4] a, float[1,8,4,4] b) => (float[1,4,4,16] cat, float[1,16,4,4] pooled) {
      ta = Transpose <perm = [0, 2, 3, 1]> (a)
      ra = Relu (ta)
      tb = Transpose <perm = [0, 2, 3, 1]> (b)
      rb = Relu (tb)
      cat = Concat <axis = -1> (ra, rb)
      back = Transpose <perm = [0, 3, 1, 2]> (cat)
      pooled = MaxPool <kernel_shape = [1, 1]> (back)
    })ONNX";
  const ModelProto optimized = ExpectReplayIdentical(text, {"--check", "2"});
  EXPECT_EQ(CountOps(optimized.graph(), "Transpose"), 1) << "only the copy for the graph output 'cat'";
  const CommandResult again = Onnxopt({"optimize", Out("opt.onnx").string(), "-o", Out("again.onnx").string()});
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("rewrites: 0\n"), std::string::npos) << again.output;
}

TEST_F(OptimizeReplayTest, PatternsNoneAndNoFoldOnlyClean) {
  const CommandResult result = Onnxopt({"optimize", WriteModel(kCastModel).string(), "-o", Out("o.onnx").string(),
                                        "--patterns", "none", "--no-fold"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const ModelProto model = core::ir::LoadModel(Out("o.onnx"));
  EXPECT_EQ(CountOps(model.graph(), "Cast"), 2);
  EXPECT_EQ(CountOps(model.graph(), "Identity"), 0);
  EXPECT_EQ(CountOps(model.graph(), "Relu"), 1) << "the duplicate Relu is removed";
  EXPECT_EQ(CountOps(model.graph(), "Mul"), 2) << "nothing is folded with --no-fold";
  EXPECT_EQ(result.output.find("CastCastPattern"), std::string::npos) << result.output;
}

TEST_F(OptimizeReplayTest, PatternSelectionExcludesAndIncludes) {
  const fs::path model = WriteModel(kCastModel);
  for (const char* selection : {"default,-CastCastPattern", "-CastCastPattern"}) {
    SCOPED_TRACE(selection);
    const CommandResult result =
        Onnxopt({"optimize", model.string(), "-o", Out("o.onnx").string(), "--patterns", selection});
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(CountOps(core::ir::LoadModel(Out("o.onnx")).graph(), "Cast"), 2);
  }
  for (const char* selection : {"CastCastPattern", "none,+CastCastPattern", "+CastCastPattern"}) {
    SCOPED_TRACE(selection);
    const CommandResult result =
        Onnxopt({"optimize", model.string(), "-o", Out("o.onnx").string(), "--patterns", selection});
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(CountOps(core::ir::LoadModel(Out("o.onnx")).graph(), "Cast"), 0);
  }
}

TEST_F(OptimizeReplayTest, ReportPrintsIterations) {
  const CommandResult result =
      Onnxopt({"optimize", WriteModel(kCastModel).string(), "-o", Out("o.onnx").string(), "--report"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("iterations"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("time per phase"), std::string::npos) << result.output;
  // After the summary.
  EXPECT_LT(result.output.find("saved "), result.output.find("time per phase")) << result.output;
  // --report collects the rejections too.
  EXPECT_NE(result.output.find("rejected candidates"), std::string::npos) << result.output;
}

// The top-level keys of a JSON object, with a minimal scanner (strings, nesting); fails
// the test when the text is not balanced JSON.
std::vector<std::string> TopLevelKeys(const std::string& json) {
  std::vector<std::string> keys;
  int depth = 0;
  bool expect_key = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '"') {
      std::string text;
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\') ++i;
        if (i < json.size()) text += json[i];
      }
      if (i >= json.size()) ADD_FAILURE() << "unterminated string in " << json;
      if (depth == 1 && expect_key) keys.push_back(text);
      expect_key = false;
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = c == '{' && depth == 1;
    } else if (c == '}' || c == ']') {
      --depth;
      if (depth < 0) ADD_FAILURE() << "unbalanced " << json;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    } else if (!std::isspace(static_cast<unsigned char>(c)) && c != ':' && c != ',' && c != '-' && c != '.' &&
               !std::isalnum(static_cast<unsigned char>(c))) {
      ADD_FAILURE() << "unexpected character '" << c << "' in " << json;
    }
  }
  EXPECT_EQ(depth, 0) << json;
  return keys;
}

TEST_F(OptimizeReplayTest, ReportJsonHasTheDocumentedKeys) {
  const CommandResult result = Onnxopt({"optimize", WriteModel(kCastModel).string(), "-o", Out("o.onnx").string(),
                                        "--report-json", Out("report.json").string(), "-q"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(result.output.empty()) << "-q prints nothing: " << result.output;
  const std::string json = ReadFile(Out("report.json"));
  ASSERT_TRUE(json.starts_with("{")) << json;
  const std::vector<std::string> keys = TopLevelKeys(json);
  for (const char* key : {"format", "version", "nodes_before", "nodes_after", "iterations", "max_iter",
                          "reached_max_iter", "rewrites", "time_ns", "patterns", "passes", "cleanup", "subgraphs",
                          "no_matches"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << "missing key " << key << " in " << json;
  }
  EXPECT_NE(json.find("\"format\":\"onnxopt-optimization-report\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"CastCastPattern\""), std::string::npos) << json;
  EXPECT_EQ(ListFiles(out_.path()).size(), 2u) << "no temporary file left";
}

TEST_F(OptimizeReplayTest, MaxIterBoundsTheRounds) {
  const CommandResult result = Onnxopt({"optimize", WriteModel(kCastModel).string(), "-o", Out("o.onnx").string(),
                                        "--max-iter", "1", "--report-json", Out("report.json").string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(ReadFile(Out("report.json")).find("\"max_iter\":1,"), std::string::npos) << ReadFile(Out("report.json"));
}

TEST_F(OptimizeReplayTest, AFamilyNameSelectsItsPatterns) {
  const std::string model = WriteModel(kCastModel).string();
  ExpectUsageError(Onnxopt({"optimize", model, "-o", Out("o.onnx").string(), "--patterns", "default,-nosuchfamily"}),
                   "unknown pattern or family 'nosuchfamily'");
  for (const auto& [selection, cast_cast_runs] :
       std::vector<std::pair<std::string, bool>>{{"default,-canonicalization", false}, {"canonicalization", true}}) {
    SCOPED_TRACE(selection);
    const CommandResult result = Onnxopt({"optimize", model, "-o", Out("o.onnx").string(), "--patterns", selection,
                                          "--report-json", Out("report.json").string()});
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const bool listed = ReadFile(Out("report.json")).find("\"name\":\"CastCastPattern\"") != std::string::npos;
    EXPECT_EQ(listed, cast_cast_runs) << ReadFile(Out("report.json"));
  }
}

TEST_F(OptimizeReplayTest, OutputMayBeTheSecondPositionalArgument) {
  ExpectUsageError(Onnxopt({"optimize", WriteModel(kCastModel).string(), Out("p.onnx").string(), "-o",
                            Out("q.onnx").string()}),
                   "two outputs");
  const CommandResult result = Onnxopt({"optimize", WriteModel(kCastModel).string(), Out("o.onnx").string()});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(fs::exists(Out("o.onnx")));
}

// (x * 0.1) * (z * 0.3) becomes (x * z) * 0.03 (MulMulMulScalarPattern): equal within
// the default tolerances of float, not bit for bit.
constexpr const char* kRoundingModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[1000] x, float[1000] z) => (float[1000] y) {
    a = Constant <value = float {0.1}> ()
    b = Constant <value = float {0.3}> ()
    t = Mul (x, a)
    u = Mul (z, b)
    y = Mul (t, u)
  })ONNX";

TEST_F(OptimizeReplayTest, CheckComparesTheSavedModelWithTheOriginal) {
  const std::string model = WriteModel(kRoundingModel).string();
  const CommandResult equal = Onnxopt({"optimize", model, Out("o.onnx").string(), "--patterns",
                                       "MulMulMulScalarPattern", "--check", "2"});
  ASSERT_EQ(equal.exit_code, 0) << equal.output;
  EXPECT_NE(equal.output.find("check: the same outputs as the original on 2 random input sets\n"), std::string::npos)
      << "no symbolic dimension, no empty-dimension set:\n" << equal.output;
  const CommandResult exact = Onnxopt({"optimize", model, Out("p.onnx").string(), "--patterns",
                                       "MulMulMulScalarPattern", "--check", "1", "--check-atol", "0",
                                       "--check-rtol", "0"});
  EXPECT_EQ(exact.exit_code, 5) << "rounding differs somewhere among 1000 elements:\n" << exact.output;
  EXPECT_NE(exact.output.find("MISMATCH y"), std::string::npos) << exact.output;
  EXPECT_NE(exact.output.find("differ from the original's on input set 1 of 1 (seed 0)"), std::string::npos)
      << exact.output;
  EXPECT_TRUE(fs::exists(Out("p.onnx"))) << "the output stays for inspection";
}

// y = Reshape(x, Concat(Shape(x)[0], [-1])): [batch, seq * 6]. With seq = 0 it runs (an
// empty [batch, 0]); with batch = 0 the 0 beside the -1 leaves the -1 undetermined, in our
// evaluator as in onnxruntime.
constexpr const char* kEmptyBatchFailsModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[batch,seq,6] x) => (float[batch,?] y) {
    n = Shape <start = 0, end = 1> (x)
    rest = Constant <value = int64[1] {-1}> ()
    shape = Concat <axis = 0> (n, rest)
    y = Reshape (x, shape)
  })ONNX";

TEST_F(OptimizeReplayTest, CheckAlsoComparesWithEachSymbolicDimensionZero) {
  const std::string model = WriteModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,15] x) => (float[N,3,5] y) {
      n = Shape <start = 0, end = 1> (x)
      tail = Constant <value = int64[2] {3, 5}> ()
      shape = Concat <axis = 0> (n, tail)
      y = Reshape (x, shape)
    })ONNX").string();
  const CommandResult result = Onnxopt({"optimize", model, Out("o.onnx").string(), "--check", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("check: the same outputs as the original on 1 random input set and 1 empty-dimension "
                               "set\n"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("symbolic dims"), std::string::npos) << "a set that passes prints nothing";
  const CommandResult quiet = Onnxopt({"optimize", model, Out("q.onnx").string(), "--check", "1", "-q"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output, "");
}

TEST_F(OptimizeReplayTest, CheckSkipsAnEmptyDimensionSetTheOriginalCannotRun) {
  const std::string model = WriteModel(kEmptyBatchFailsModel).string();
  const CommandResult result = Onnxopt({"optimize", model, Out("o.onnx").string(), "--check", "2"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("check: the same outputs as the original on 2 random input sets and 1 of 2 "
                               "empty-dimension sets (batch=0 does not run in the original)\n"),
            std::string::npos)
      << result.output;
  // A dimension --dim fixes is not set to 0.
  const CommandResult fixed =
      Onnxopt({"optimize", model, Out("p.onnx").string(), "--check", "1", "--dim", "batch=3"});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_NE(fixed.output.find("check: the same outputs as the original on 1 random input set and 1 empty-dimension "
                              "set\n"),
            std::string::npos)
      << fixed.output;
}

TEST_F(OptimizeReplayTest, CheckPassesARoundingRewriteTheModelAmplifies) {
  // SwitchOrderBinaryPattern (rounding) turns X * a * b into X * (a * b) ahead of a float16
  // MatMul over 1 024 terms: outputs differ beyond float16's tolerances on some input sets
  // (`verify` says so), yet are as close to the float64 evaluation as the original's.
  const fs::path model = in_ / "amplifier.onnx";
  WriteFile(model, core::ir::SerializeDeterministic(Float16RoundingAmplifier(false, 0.33f)));
  const CommandResult checked = Onnxopt({"optimize", model.string(), Out("o.onnx").string(), "--check", "8"});
  ASSERT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_NE(checked.output.find("SwitchOrderBinaryPattern 1"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("rounding Y"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("within rounding: 1 output differs"), std::string::npos) << checked.output;
  EXPECT_NE(checked.output.find("check: the same outputs as the original on 8 random input sets"), std::string::npos)
      << checked.output;
  int beyond_tolerances = 0;
  for (int seed = 0; seed < 8; ++seed) {
    const std::vector<std::string> verify = {"verify", model.string(), Out("o.onnx").string(), "--seed",
                                             std::to_string(seed)};
    if (Onnxopt(verify).exit_code != 5) continue;
    ++beyond_tolerances;
    std::vector<std::string> judged = verify;
    judged.push_back("--judge-rounding");
    const CommandResult rounding = Onnxopt(judged);
    EXPECT_EQ(rounding.exit_code, 0) << rounding.output;
    EXPECT_NE(rounding.output.find("rounding Y"), std::string::npos) << rounding.output;
  }
  EXPECT_GT(beyond_tolerances, 0);
}

TEST_F(OptimizeReplayTest, FoldSizeLimitLeavesLargeConstantsAndTheReportSaysWhy) {
  // Expand makes a 4 KiB float tensor from 8 bytes of inputs.
  const std::string model = WriteModel(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1024] x) => (float[1024] y) {
      one = Constant <value = float[1] {1.0}> ()
      shape = Constant <value = int64[1] {1024}> ()
      big = Expand (one, shape)
      y = Add (x, big)
    })ONNX").string();
  const CommandResult limited = Onnxopt({"optimize", model, Out("o.onnx").string(), "--patterns", "none",
                                         "--fold-size-limit", "1K", "--report"});
  ASSERT_EQ(limited.exit_code, 0) << limited.output;
  EXPECT_NE(limited.output.find("constants not folded (1):"), std::string::npos) << limited.output;
  EXPECT_NE(limited.output.find("Expand"), std::string::npos) << limited.output;
  const CommandResult allowed = Onnxopt({"optimize", model, Out("p.onnx").string(), "--patterns", "none",
                                         "--fold-size-limit", "1M", "--report"});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.output;
  EXPECT_EQ(allowed.output.find("constants not folded"), std::string::npos) << allowed.output;
  for (const char* verbose : {"-v", "--verbose"}) {
    const CommandResult listed = Onnxopt({"optimize", model, Out(std::string("v") + verbose + ".onnx").string(),
                                          "--patterns", "none", "--fold-size-limit", "1K", verbose});
    ASSERT_EQ(listed.exit_code, 0) << listed.output;
    EXPECT_NE(listed.output.find("constants not folded (1):"), std::string::npos) << verbose << ":\n" << listed.output;
  }
}

// Shape(x) of a symbolic input: folded to a constant only once the shape is fixed.
constexpr const char* kSymbolicShapeModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[N,4] x, float[N] z) => (int64[2] s, float[N] w) {
    s = Shape (x)
    w = Relu (z)
  })ONNX";

std::vector<std::string> InputDims(const ModelProto& model, int input) {
  std::vector<std::string> dims;
  for (const auto& dim : model.graph().input(input).type().tensor_type().shape().dim())
    dims.push_back(dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.dim_param());
  return dims;
}

TEST_F(OptimizeReplayTest, OverwriteInputShapeSpecialisesTheModelAndIsRecorded) {
  const std::string model = WriteModel(kSymbolicShapeModel).string();
  const CommandResult symbolic = Onnxopt({"optimize", model, Out("symbolic.onnx").string()});
  ASSERT_EQ(symbolic.exit_code, 0) << symbolic.output;
  EXPECT_EQ(CountOps(core::ir::LoadModel(Out("symbolic.onnx")).graph(), "Shape"), 1) << "N is unknown";

  const CommandResult fixed = Onnxopt({"optimize", model, Out("o.onnx").string(), "--overwrite-input-shape", "x:3,4",
                                       "--record", Out("o.rewrites").string(), "--report-json",
                                       Out("o.json").string(), "--report-html", Out("o.html").string()});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.output;
  EXPECT_NE(fixed.output.find("input shapes: --overwrite-input-shape x:3,4"), std::string::npos) << fixed.output;
  const ModelProto optimized = core::ir::LoadModel(Out("o.onnx"));
  EXPECT_EQ(CountOps(optimized.graph(), "Shape"), 0) << "Shape of a static input folds";
  EXPECT_EQ(InputDims(optimized, 0), (std::vector<std::string>{"3", "4"}));
  EXPECT_EQ(InputDims(optimized, 1), (std::vector<std::string>{"3"})) << "z shares the symbol N that x fixed";
  EXPECT_NE(ReadFile(Out("o.json")).find(R"("input_shapes":{"x":[3,4]},"dims":{}})"), std::string::npos)
      << ReadFile(Out("o.json"));
  EXPECT_NE(ReadFile(Out("o.html")).find("input shapes <code>--overwrite-input-shape x:3,4</code>"), std::string::npos);

  // replay applies the recorded shapes itself, and refuses other ones.
  const CommandResult replayed = Onnxopt({"replay", model, Out("o.rewrites").string(), "-o", Out("r.onnx").string()});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_EQ(ReadFile(Out("o.onnx")), ReadFile(Out("r.onnx")));
  const CommandResult same = Onnxopt({"replay", model, Out("o.rewrites").string(), "-o", Out("s.onnx").string(),
                                      "--overwrite-input-shape", "x:3,4"});
  EXPECT_EQ(same.exit_code, 0) << same.output;
  const CommandResult other = Onnxopt({"replay", model, Out("o.rewrites").string(), "-o", Out("t.onnx").string(),
                                       "--dim", "N=5"});
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("was recorded under other input shapes: --overwrite-input-shape x:3,4, not --dim N=5"),
            std::string::npos)
      << other.output;
  EXPECT_FALSE(fs::exists(Out("t.onnx")));
}

TEST_F(OptimizeReplayTest, DimGivesASymbolItsValueEverywhere) {
  const std::string model = WriteModel(kSymbolicShapeModel).string();
  const CommandResult result = Onnxopt({"optimize", model, Out("o.onnx").string(), "--dim", "N=7", "--check", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const ModelProto optimized = core::ir::LoadModel(Out("o.onnx"));
  EXPECT_EQ(CountOps(optimized.graph(), "Shape"), 0);
  EXPECT_EQ(InputDims(optimized, 0), (std::vector<std::string>{"7", "4"}));
  EXPECT_EQ(InputDims(optimized, 1), (std::vector<std::string>{"7"}));
  EXPECT_NE(result.output.find("check: the same outputs as the original on 1 random input set\n"), std::string::npos)
      << "N is fixed: no empty-dimension set\n" << result.output;
}

TEST_F(OptimizeReplayTest, InputShapeSettingsThatContradictTheModelAreRefused) {
  const std::string model = WriteModel(kSymbolicShapeModel).string();
  const std::string out = Out("o.onnx").string();
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "nosuch:1"}), 
                   "the model has no input named 'nosuch'");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "x:3"}), "input 'x' has rank 2, not 1");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "x:3,5"}), 
                   "dimension 1 of input 'x' is 4, not 5");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "x:3,4", "--dim", "N=2"}),
                   "dimension 'N' would be both 2 and 3");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--dim", "M=2"}), 
                   "no input of the model has a dimension named 'M'");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--dim", "N=-1"}), "--dim expects an integer");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "x3,4"}), "NAME:D0,D1");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "x:3,a"}), "--overwrite-input-shape");
  ExpectUsageError(Onnxopt({"optimize", model, out, "--overwrite-input-shape", "x:3,4", "--overwrite-input-shape",
                            "x:3,4"}),
                   "given twice");
}

TEST_F(OptimizeReplayTest, KeepProtectsNodesByNameOrGlob) {
  ModelProto model = ParseText(kCastModel);
  model.mutable_graph()->mutable_node(0)->set_name("attn_cast_0");
  model.mutable_graph()->mutable_node(1)->set_name("attn_cast_1");
  const fs::path path = in_ / "named.onnx";
  WriteFile(path, core::ir::SerializeDeterministic(model));
  const CommandResult kept = Onnxopt({"optimize", path.string(), Out("kept.onnx").string(), "--keep", "attn_*"});
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  EXPECT_EQ(CountOps(core::ir::LoadModel(Out("kept.onnx")).graph(), "Cast"), 2);
  const CommandResult exact = Onnxopt({"optimize", path.string(), Out("exact.onnx").string(), "--keep", "attn_cast_1"});
  ASSERT_EQ(exact.exit_code, 0) << exact.output;
  EXPECT_EQ(CountOps(core::ir::LoadModel(Out("exact.onnx")).graph(), "Cast"), 2)
      << "CastCastPattern needs both Casts";
  const CommandResult other = Onnxopt({"optimize", path.string(), Out("other.onnx").string(), "--keep", "mlp_*"});
  ASSERT_EQ(other.exit_code, 0) << other.output;
  EXPECT_EQ(CountOps(core::ir::LoadModel(Out("other.onnx")).graph(), "Cast"), 0);
}

// onnxruntime-node is installed by `npm ci` (scripts/install-deps.sh) in the checkout,
// where the harness copied to build/ort/ finds it.
TEST_F(OptimizeReplayTest, CheckWithOnnxruntimeRunsBothModelsThere) {
  const std::string model = WriteModel(kRoundingModel).string();
  ExpectUsageError(Onnxopt({"optimize", model, Out("q.onnx").string(), "--check", "1", "--check-with", "tvm"}),
                   "--check-with expects 'onnxruntime'");
  ExpectUsageError(Onnxopt({"optimize", model, Out("q.onnx").string(), "--check-with", "onnxruntime"}),
                   "need --check N");
  const CommandResult equal = Onnxopt({"optimize", model, Out("o.onnx").string(), "--patterns",
                                       "MulMulMulScalarPattern", "--check", "2", "--check-with", "onnxruntime"});
  ASSERT_EQ(equal.exit_code, 0) << equal.output;
  EXPECT_NE(equal.output.find("check: onnxruntime finds the same outputs on 2 random input sets"), std::string::npos)
      << equal.output;
  EXPECT_EQ(equal.output.find("max_abs_diff"), std::string::npos) << "the harness's per-output lines stay quiet";
  const CommandResult exact = Onnxopt({"optimize", model, Out("p.onnx").string(), "--patterns",
                                       "MulMulMulScalarPattern", "--check", "1", "--check-atol", "0",
                                       "--check-rtol", "0", "--check-with", "onnxruntime"});
  EXPECT_EQ(exact.exit_code, 5) << exact.output;
  // The empty-dimension sets run there too; onnxruntime cannot run the original with batch = 0 either.
  const CommandResult empty = Onnxopt({"optimize", WriteModel(kEmptyBatchFailsModel, "empty.onnx").string(),
                                       Out("e.onnx").string(), "--check", "1", "--check-with", "onnxruntime"});
  ASSERT_EQ(empty.exit_code, 0) << empty.output;
  EXPECT_NE(empty.output.find("check: onnxruntime finds the same outputs on 1 random input set and 1 of 2 "
                              "empty-dimension sets (batch=0 does not run in the original)\n"),
            std::string::npos)
      << empty.output;
}

// What onnxruntime finds different is shown (not its matching outputs), and exits 5; a
// harness that cannot make the check is an error, not a pass. A stand-in harness
// (ONNXOPT_ORT_HARNESS) plays onnxruntime's part, since our own check passes first.
TEST_F(OptimizeReplayTest, CheckWithOnnxruntimeReportsWhatItFindsDifferent) {
  const std::string model = WriteModel(kCastModel).string();
  const fs::path differs = in_ / "differs.js";
  WriteFile(differs, "console.log('ok       y float32[2,3] max_abs_diff=0');\n"
                     "console.log('MISMATCH z float32[2,3] max_abs_diff=1');\n"
                     "process.exitCode = 1;\n");
  const fs::path broken = in_ / "broken.js";
  WriteFile(broken, "console.error('cannot load the model'); process.exitCode = 2;\n");
  const auto optimize_with = [&](const fs::path& harness, const std::string& out) {
    return RunCommand({"/usr/bin/env", "ONNXOPT_ORT_HARNESS=" + harness.string(), OnnxoptExe().string(), "optimize",
                       model, Out(out).string(), "--check", "1", "--check-with", "onnxruntime"});
  };
  const CommandResult mismatch = optimize_with(differs, "o.onnx");
  EXPECT_EQ(mismatch.exit_code, 5) << mismatch.output;
  EXPECT_NE(mismatch.output.find("onnxruntime: MISMATCH z"), std::string::npos) << mismatch.output;
  EXPECT_EQ(mismatch.output.find("onnxruntime: ok"), std::string::npos) << mismatch.output;
  EXPECT_NE(mismatch.output.find("onnxruntime finds that the optimized model's outputs differ"), std::string::npos);
  const CommandResult failed = optimize_with(broken, "p.onnx");
  EXPECT_EQ(failed.exit_code, 2) << failed.output;
  EXPECT_NE(failed.output.find("cannot load the model"), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("the check could not be made"), std::string::npos) << failed.output;
}

// The empty-dimension sets in onnxruntime: the harness's "model A fails to run" skips a
// set, a difference exits 5 naming the dimension, another failure is an error. The
// stand-ins agree on the random sets (no --dim).
TEST_F(OptimizeReplayTest, CheckWithOnnxruntimeMakesTheEmptyDimensionSetsThere) {
  const std::string model = WriteModel(kEmptyBatchFailsModel).string();
  const std::string a_fails_with_batch_0 =
      "const dim = process.argv[process.argv.indexOf('--dim') + 1];\n"
      "if (!process.argv.includes('--dim')) { console.log('EQUIVALENT'); }\n"
      "else if (dim === 'batch=0') {\n"
      "  console.error('onnxruntime log line');\n"
      "  console.error('compare_models: model A (a.onnx) fails to run (seed 0): Reshape');\n"
      "  process.exitCode = 2;\n"
      "}\n";
  const fs::path differs = in_ / "differs.js";
  WriteFile(differs, a_fails_with_batch_0 +
                         "else { console.log('MISMATCH y float32[2,0] max_abs_diff=0'); process.exitCode = 1; }\n");
  const fs::path broken = in_ / "broken.js";
  WriteFile(broken, a_fails_with_batch_0 + "else { console.error('out of memory'); process.exitCode = 2; }\n");
  const auto optimize_with = [&](const fs::path& harness, const std::string& out) {
    return RunCommand({"/usr/bin/env", "ONNXOPT_ORT_HARNESS=" + harness.string(), OnnxoptExe().string(), "optimize",
                       model, Out(out).string(), "--check", "1", "--check-with", "onnxruntime"});
  };
  const CommandResult mismatch = optimize_with(differs, "o.onnx");
  EXPECT_EQ(mismatch.exit_code, 5) << mismatch.output;
  EXPECT_NE(mismatch.output.find("onnxruntime: MISMATCH y"), std::string::npos) << mismatch.output;
  EXPECT_NE(mismatch.output.find("check: onnxruntime finds that the optimized model's outputs differ from the "
                                 "original's with seq = 0 (empty-dimension set, seed 0)\n"),
            std::string::npos)
      << mismatch.output;
  EXPECT_EQ(mismatch.output.find("batch = 0"), std::string::npos) << "batch=0 was skipped:\n" << mismatch.output;
  const CommandResult failed = optimize_with(broken, "p.onnx");
  EXPECT_EQ(failed.exit_code, 2) << failed.output;
  EXPECT_NE(failed.output.find("out of memory"), std::string::npos) << failed.output;
  EXPECT_NE(failed.output.find("the check could not be made ('" + broken.string() + "' exited with 2 with seq = 0"),
            std::string::npos)
      << failed.output;
}

TEST_F(OptimizeReplayTest, UsageErrors) {
  const std::string model = WriteModel(kCastModel).string();
  const std::string out = Out("o.onnx").string();
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--patterns", "NoSuchPattern"}),
                   "unknown pattern or family 'NoSuchPattern'");
  const CommandResult unknown = Onnxopt({"optimize", model, "-o", out, "--patterns", "default,-NoSuchPattern"});
  ExpectUsageError(unknown, "unknown pattern or family 'NoSuchPattern'");
  EXPECT_NE(unknown.output.find("CastCastPattern"), std::string::npos) << "lists the registered names";
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--patterns", "default,,-A"}), "empty item");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--patterns", "+"}), "names no pattern");
  for (const char* bad : {"0", "-3", "abc", "2x", ""}) {
    SCOPED_TRACE(bad);
    ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--max-iter", bad}), "--max-iter expects a positive");
  }
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--record"}), "needs a value");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--check", "0"}), "--check expects a positive");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--check-atol", "0"}), "need --check N");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--fold-size-limit", "lots"}), "--fold-size-limit");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--fold-work-limit", "1T"}),
                   "--fold-work-limit expects a number of steps such as 1000000, 256M or 4G, got '1T'");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--record", out}), "two outputs");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--record", Out("./o.onnx").string()}), "two outputs");
  ExpectUsageError(Onnxopt({"optimize", model, "-o", out, "--no-fold=1"}), "takes no value");
  ExpectUsageError(Onnxopt({"replay", model, "-o", out}), "missing argument");
  ExpectUsageError(Onnxopt({"replay", model, "r", "-o", out, "--patterns", "none"}), "unknown option --patterns");
  ExpectUsageError(Onnxopt({"replay", model, "r"}), "missing -o OUTPUT");
}

TEST_F(OptimizeReplayTest, HelpDescribesTheOptions) {
  const CommandResult optimize = Onnxopt({"optimize", "--help"});
  ASSERT_EQ(optimize.exit_code, 0);
  for (const char* text : {"--patterns", "--no-fold", "--report", "--report-json", "--max-iter", "--record",
                           "examples:"})
    EXPECT_NE(optimize.output.find(text), std::string::npos) << text;
  const CommandResult replay = Onnxopt({"replay", "--help"});
  ASSERT_EQ(replay.exit_code, 0);
  EXPECT_NE(replay.output.find("onnxopt replay MODEL RECORD -o OUTPUT"), std::string::npos) << replay.output;
  EXPECT_NE(Onnxopt({"--help"}).output.find("replay"), std::string::npos);
}

// --- record and replay ------------------------------------------------------------------

TEST_F(OptimizeReplayTest, ReplayIsByteIdenticalWithPatternsAndFolding) {
  const ModelProto optimized = ExpectReplayIdentical(kCastModel);
  EXPECT_EQ(CountOps(optimized.graph(), "Cast"), 0);
}

TEST_F(OptimizeReplayTest, ReplayIsByteIdenticalForCleanupOnly) {
  ExpectReplayIdentical(kCastModel, {"--patterns", "none", "--no-fold"});
}

TEST_F(OptimizeReplayTest, ReplayIsByteIdenticalWithNothingToPatternMatch) {
  ExpectReplayIdentical(kPlainModel);
}

TEST_F(OptimizeReplayTest, ReplayIsByteIdenticalInsideIfBranches) {
  const ModelProto optimized = ExpectReplayIdentical(kIfModel);
  ASSERT_EQ(optimized.graph().node_size(), 1) << "the main graph's Casts are gone";
  const NodeProto& if_node = optimized.graph().node(0);
  ASSERT_EQ(if_node.op_type(), "If");
  // The then branch keeps one Identity: its output must be produced inside the branch.
  for (const AttributeProto& branch : if_node.attribute()) EXPECT_EQ(CountOps(branch.g(), "Cast"), 0) << branch.name();
}

TEST_F(OptimizeReplayTest, ReplayIsByteIdenticalWhenLocalFunctionsGo) {
  // Dead: the only call of Twice; Unused is never called; Once stays.
  const ModelProto optimized = ExpectReplayIdentical(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] a) => (float[2] y) {
      dead = local.Twice(a)
      y = local.Once(a)
    }
    <domain: "local", opset_import: ["" : 18]>
    Twice (x) => (r) { t = Neg(x)  r = Neg(t) }
    <domain: "local", opset_import: ["" : 18]>
    Unused (x) => (r) { r = Neg(x) }
    <domain: "local", opset_import: ["" : 18]>
    Once (x) => (r) { r = Neg(x) })ONNX",
                                                     {"--report"});
  ASSERT_EQ(optimized.functions_size(), 1);
  EXPECT_EQ(optimized.functions(0).name(), "Once");
}

TEST_F(OptimizeReplayTest, ReplayIsByteIdenticalWithExternalData) {
  // Same file names in two folders: the model names its data file.
  const std::string model = WriteModel(kCastModel).string();
  fs::create_directory(out_ / "a");
  fs::create_directory(out_ / "b");
  const CommandResult optimized = Onnxopt({"optimize", model, "-o", (out_ / "a" / "m.onnx").string(), "--record",
                                           Out("r.rewrites").string(), "--external-data-threshold", "0"});
  ASSERT_EQ(optimized.exit_code, 0) << optimized.output;
  const CommandResult replayed = Onnxopt({"replay", model, Out("r.rewrites").string(), "-o",
                                          (out_ / "b" / "m.onnx").string(), "--external-data-threshold", "0", "-q"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.output;
  EXPECT_TRUE(replayed.output.empty()) << replayed.output;
  ASSERT_TRUE(fs::exists(out_ / "a" / "m.onnx.data")) << "the folded constant is saved as external data";
  EXPECT_EQ(ReadFile(out_ / "a" / "m.onnx"), ReadFile(out_ / "b" / "m.onnx"));
  EXPECT_EQ(ReadFile(out_ / "a" / "m.onnx.data"), ReadFile(out_ / "b" / "m.onnx.data"));
}

TEST_F(OptimizeReplayTest, FailedSaveLeavesNoRecordNorReport) {
  const std::string model = WriteModel(kCastModel).string();
  WriteFile(out_ / "not-a-folder", "x");
  const CommandResult result =
      Onnxopt({"optimize", model, "-o", (out_ / "not-a-folder" / "o.onnx").string(), "--record",
               Out("r.rewrites").string(), "--report-json", Out("r.json").string()});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_EQ(ListFiles(out_.path()).size(), 1u) << "only not-a-folder remains";
  // Nor when the record cannot be written.
  const CommandResult bad_record = Onnxopt({"optimize", model, "-o", Out("o.onnx").string(), "--record",
                                            (out_ / "not-a-folder" / "r.rewrites").string()});
  EXPECT_EQ(bad_record.exit_code, 2) << bad_record.output;
  EXPECT_NE(bad_record.output.find("rewrite file"), std::string::npos) << bad_record.output;
  EXPECT_EQ(ListFiles(out_.path()).size(), 1u) << "no model without its record";
}

// --- replay: bad rewrite files ----------------------------------------------------------

class ReplayRejectsTest : public OptimizeReplayTest {
 protected:
  // The model optimized and recorded in SetUp.
  virtual const char* ModelText() const { return kCastModel; }
  void SetUp() override {
    model_ = WriteModel(ModelText());
    const CommandResult result = Onnxopt({"optimize", model_.string(), "-o", (in_ / "opt.onnx").string(),
                                          "--record", (in_ / "good.rewrites").string()});
    ASSERT_EQ(result.exit_code, 0) << result.output;
    record_ = ReadFile(in_ / "good.rewrites");
  }
  CommandResult Replay(const std::string& record_bytes, const fs::path& model) {
    WriteFile(in_ / "bad.rewrites", record_bytes);
    return Onnxopt({"replay", model.string(), (in_ / "bad.rewrites").string(), "-o", Out("o.onnx").string()});
  }

  fs::path model_;
  std::string record_;
};

TEST_F(ReplayRejectsTest, TruncatedRecordFiles) {
  for (std::size_t size : {std::size_t{0}, std::size_t{5}, std::size_t{9}, record_.size() / 2, record_.size() - 1}) {
    SCOPED_TRACE(size);
    ExpectInvalidInput(Replay(record_.substr(0, size), model_), "invalid rewrite file");
  }
}

TEST_F(ReplayRejectsTest, CorruptRecordFiles) {
  ExpectInvalidInput(Replay("hello, world", model_), "not an onnxopt rewrite file");
  std::string version = record_;
  version[8] = 9;
  ExpectInvalidInput(Replay(version, model_), "format version 9 is not supported");
  ExpectInvalidInput(Replay(record_ + "junk", model_), "checksum does not match");
  // The first record's length (after the header: magic, version, fingerprint, a one-byte
  // record count) made huge, the checksum computed again.
  const core::builder::RewriteFile file = core::builder::ParseRewriteFile(record_);
  ASSERT_LT(file.rewrites.size(), 128u);
  const std::string empty = core::builder::SerializeRewrites({}, file.model_fingerprint);
  const std::size_t header = empty.size() - 8;
  std::string length = record_.substr(0, header) + std::string(9, '\xff') + '\x01' +
                       record_.substr(header + 1, record_.size() - header - 9);
  ExpectInvalidInput(Replay(length + core::builder::RewriteFileChecksum(length), model_), "record 0");
  // A version 1 file.
  std::string old = record_;
  old[8] = 1;
  ExpectInvalidInput(Replay(old, model_), "format version 1 is no longer supported");
}

// Every one-byte change of a recorded file is refused: the parser throws (the checksum
// catches it), and the command line exits with 2 and writes nothing.
TEST_F(ReplayRejectsTest, EveryChangedByteIsRefused) {
  const unsigned char flips[] = {0x01, 0x80, 0xff};
  const auto changed_at = [&](std::size_t i) {
    std::string changed = record_;
    changed[i] = static_cast<char>(static_cast<unsigned char>(changed[i]) ^ flips[i % 3]);
    return changed;
  };
  for (std::size_t i = 0; i < record_.size(); ++i) {
    SCOPED_TRACE("byte " + std::to_string(i));
    EXPECT_THROW(core::builder::ParseRewriteFile(changed_at(i)), ModelError);
  }
  // Through the command line, a process per changed byte: every byte in the main build
  // (13 s), one in 16 and the last in the sanitizer build (Debug + ASan: a process there
  // takes about 0.4 s, every byte 5 minutes). The parser above sees every byte in both.
#if defined(__SANITIZE_ADDRESS__)
  constexpr std::size_t kStride = 16;
#else
  constexpr std::size_t kStride = 1;
#endif
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < record_.size(); i += kStride) positions.push_back(i);
  if (positions.back() != record_.size() - 1) positions.push_back(record_.size() - 1);
  for (std::size_t i : positions) {
    const CommandResult result = Replay(changed_at(i), model_);
    SCOPED_TRACE("byte " + std::to_string(i) + ": " + result.output);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
    EXPECT_TRUE(ListFiles(out_.path()).empty()) << "a file was left behind";
  }
}

// Records edited field by field, the checksum computed again (as whoever edits a file on
// purpose can): Replay's own checks refuse each with exit 2, naming the batch and the
// difference, and write nothing.
class ReplayChecksTest : public ReplayRejectsTest {
 protected:
  // Replays the recorded file after `edit` changed its records.
  CommandResult ReplayEdited(const std::function<void(std::vector<core::builder::LocalRewriting>&)>& edit) {
    core::builder::RewriteFile file = core::builder::ParseRewriteFile(record_);
    edit(file.rewrites);
    return Replay(core::builder::SerializeRewrites(file.rewrites, file.model_fingerprint), model_);
  }
  // The first record of a pattern or pass named `name`.
  static core::builder::LocalRewriting& First(std::vector<core::builder::LocalRewriting>& rewrites,
                                              const std::string& name) {
    for (auto& record : rewrites)
      if (record.Name() == name) return record;
    ADD_FAILURE() << "no record of " << name;
    return rewrites.front();
  }
  void ExpectRefused(const CommandResult& result, const std::vector<std::string>& words) {
    for (const std::string& word : words) ExpectInvalidInput(result, word);
    ExpectInvalidInput(result, "does not fit model");
    EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
  }
};

TEST_F(ReplayChecksTest, RecordsDescribeTheNodesTheyRemove) {
  const core::builder::RewriteFile file = core::builder::ParseRewriteFile(record_);
  const core::builder::LocalRewriting* cast_cast = nullptr;
  for (const auto& record : file.rewrites)
    if (record.Name() == "CastCastPattern") cast_cast = &record;
  ASSERT_NE(cast_cast, nullptr);
  ASSERT_EQ(cast_cast->matched_node_signatures.size(), 2u);
  for (const auto& signature : cast_cast->matched_node_signatures) EXPECT_EQ(signature.op_type, "Cast");
  EXPECT_EQ(cast_cast->matched_node_signatures[0].outputs, std::vector<std::string>{"a"});
  EXPECT_EQ(cast_cast->matched_node_signatures[1].outputs, std::vector<std::string>{"b"});
}

TEST_F(ReplayChecksTest, RefusesAPositionOutOfRange) {
  ExpectRefused(ReplayEdited([](auto& rewrites) { First(rewrites, "CastCastPattern").matched_nodes[0] = 40; }),
                {"CastCastPattern", "removes the node at position 40 but the graph has"});
  ExpectRefused(ReplayEdited([](auto& rewrites) { First(rewrites, "CastCastPattern").added_nodes_positions[0] = 40; }),
                {"adds a node at position 40"});
  ExpectRefused(ReplayEdited([](auto& rewrites) { First(rewrites, "FoldConstants").removed_initializers = {7}; }),
                {"FoldConstants", "removes the initializer at position 7"});
}

TEST_F(ReplayChecksTest, RefusesAPositionThatDesignatesAnotherNode) {
  // Positions in range, but the first Cast's position now points at another node.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  auto& record = First(rewrites, "CastCastPattern");
                  record.matched_nodes[0] = record.matched_nodes[0] == 0 ? 2 : 0;
                }),
                {"removes the node at position", "recorded as Cast (outputs 'a'), but the graph has"});
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  First(rewrites, "CastCastPattern").matched_node_signatures[1].op_type = "Relu";
                }),
                {"recorded as Relu (outputs 'b'), but the graph has Cast (outputs 'b')"});
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  First(rewrites, "CastCastPattern").matched_node_signatures[1].domain = "com.microsoft";
                }),
                {"recorded as com.microsoft.Cast"});
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  First(rewrites, "CastCastPattern").matched_node_signatures[1].outputs[0] = "zz";
                }),
                {"recorded as Cast (outputs 'zz')"});
}

TEST_F(ReplayChecksTest, RefusesABatchThatLeavesAnInvalidGraph) {
  // A replacement node that reads a value nothing defines.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  First(rewrites, "CastCastPattern").added_nodes.Mutable(0)->set_input(0, "nowhere");
                }),
                {"after the batch, the model is invalid", "nowhere"});
  // A rename to a value nothing defines.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  for (auto& record : rewrites)
                    for (auto& [from, to] : record.value_renames) to = "nowhere";
                }),
                {"after the batch, the model is invalid", "nowhere"});
  // A replacement node that defines a value twice.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  First(rewrites, "CastCastPattern").added_nodes.Mutable(0)->set_output(0, "y");
                }),
                {"after the batch, the model is invalid"});
}

TEST_F(ReplayChecksTest, RefusesAMissingNestedGraph) {
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  First(rewrites, "CastCastPattern").graph_path = {core::builder::SubgraphKey{"y", "then_branch", -1}};
                }),
                {"no nested graph 'y:then_branch' in graph ''"});
}

// Batches in a nested graph have that graph checked where it sits, against the graphs
// around it, not the whole model (which made a model with thousands of branches replay in
// quadratic time): the same problems are refused.
class ReplayNestedChecksTest : public ReplayChecksTest {
 protected:
  const char* ModelText() const override { return kIfModel; }
  // The first record of `name` in the then branch.
  static core::builder::LocalRewriting& InThenBranch(std::vector<core::builder::LocalRewriting>& rewrites,
                                                     const std::string& name) {
    for (auto& record : rewrites)
      if (record.Name() == name && !record.graph_path.empty() && record.graph_path[0].attribute == "then_branch")
        return record;
    ADD_FAILURE() << "no record of " << name << " in the then branch";
    return rewrites.front();
  }
};

TEST_F(ReplayNestedChecksTest, ReplaysTheRecordedRewritesOfTheBranches) {
  const CommandResult result = ReplayEdited([](auto& rewrites) { InThenBranch(rewrites, "CastCastPattern"); });
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(ReadFile(Out("o.onnx")), ReadFile(in_ / "opt.onnx"));
}

TEST_F(ReplayNestedChecksTest, RefusesABatchThatLeavesAnInvalidBranch) {
  // A value nothing defines.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  InThenBranch(rewrites, "CastCastPattern").added_nodes.Mutable(0)->set_input(0, "nowhere");
                }),
                {"after the batch, the model is invalid", "graph 'then_g' reads 'nowhere', which is not defined"});
  // The output of the If holding the branch, visible only after it.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  InThenBranch(rewrites, "CastCastPattern").added_nodes.Mutable(0)->set_input(0, "y");
                }),
                {"after the batch, the model is invalid",
                 "reads 'y', which node #2 (If) of graph 'g' produces only at or after the node holding graph 'then_g'"});
  // A definition shadowing a value of the main graph.
  ExpectRefused(ReplayEdited([](auto& rewrites) {
                  InThenBranch(rewrites, "CastCastPattern").added_nodes.Mutable(0)->set_output(0, "t");
                }),
                {"after the batch, the model is invalid", "shadows the value of graph 'g' visible there"});
}

// Whoever changes a file can compute its checksum again: Replay then still refuses what
// does not fit, and never accepts a model its loader would refuse, whatever the change.
TEST_F(ReplayChecksTest, EveryChangeUnderAValidChecksumKeepsTheModelValid) {
  const ModelProto model = core::ir::LoadModel(model_);
  const std::string fingerprint = core::builder::ModelFingerprint(model);
  const std::string content = record_.substr(0, record_.size() - 8);
  int replayed = 0;
  for (std::size_t i = 0; i < content.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string changed = content;
      changed[i] = static_cast<char>(static_cast<unsigned char>(changed[i]) ^ flip);
      SCOPED_TRACE("byte " + std::to_string(i) + " ^ " + std::to_string(flip));
      try {
        const core::builder::RewriteFile file =
            core::builder::ParseRewriteFile(changed + core::builder::RewriteFileChecksum(changed));
        if (file.model_fingerprint != fingerprint) continue;  // replay refuses it
        core::builder::GraphBuilder builder{ModelProto(model)};
        core::builder::Replay(builder, file.rewrites);
        const ModelProto result = std::move(builder).TakeModel();
        EXPECT_NO_THROW(core::ir::CheckModel(result));
        ++replayed;
      } catch (const ModelError&) {
      } catch (const BuilderError&) {
      }
    }
  }
  EXPECT_GT(replayed, 0) << "some changes (a time, a name) fit";
}

TEST_F(ReplayRejectsTest, MissingRecordFile) {
  const CommandResult result =
      Onnxopt({"replay", model_.string(), (in_ / "absent.rewrites").string(), "-o", Out("o.onnx").string()});
  ExpectInvalidInput(result, "absent.rewrites");
}

TEST_F(ReplayRejectsTest, RecordOfAnotherModel) {
  const CommandResult result = Replay(record_, WriteModel(kOtherModel, "other.onnx"));
  ExpectInvalidInput(result, "was recorded on another model");
}

TEST_F(ReplayRejectsTest, RecordOfAModelWithOtherWeights) {
  // Same graph, one weight changed: the folded constant in the record would be stale.
  ModelProto model = ParseText(kCastModel);
  core::ir::SaveModel(model, in_ / "same.onnx");
  ModelProto changed = ParseText(kCastModel);
  changed.mutable_graph()->mutable_node(5)->mutable_attribute(0)->mutable_t()->set_float_data(0, 3.0f);
  core::ir::SaveModel(changed, in_ / "changed.onnx");
  EXPECT_EQ(Replay(record_, in_ / "same.onnx").exit_code, 0);
  fs::remove(Out("o.onnx"));
  ExpectInvalidInput(Replay(record_, in_ / "changed.onnx"), "was recorded on another model");
}

TEST_F(ReplayRejectsTest, RecordWithoutFingerprintThatDoesNotFit) {
  // Without a fingerprint, Replay's own checks (positions in range) reject the record.
  const std::string unchecked = core::builder::SerializeRewrites(core::builder::ParseRewrites(record_));
  const CommandResult result = Replay(unchecked, WriteModel(kOtherModel, "other.onnx"));
  ExpectInvalidInput(result, "does not fit model");
  EXPECT_EQ(result.output.find("internal error"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace onnxopt::testing
