// The numerical classes of patterns on the command line: `onnxopt patterns` shows them,
// and `optimize` leaves the approximate ones out unless they are asked for.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

// Sub runs in float after a Cast from float16 and is cast back: CastOpCastPattern would
// run it in float16, which rounds X and the difference separately.
constexpr const char* kFloat16Model = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[4] X, float16[4] H) => (float16[4] Z) {
    hf = Cast <to = 1> (H)
    s = Sub (X, hf)
    Z = Cast <to = 10> (s)
  })ONNX";

CommandResult Onnxopt(std::vector<std::string> args) {
  args.insert(args.begin(), OnnxoptExe().string());
  return RunCommand(args);
}

int CountOps(const GraphProto& graph, const std::string& op) {
  int count = 0;
  for (const NodeProto& node : graph.node()) count += node.op_type() == op;
  return count;
}

TEST(PatternNumerics, PatternsCommandShowsEachClass) {
  const CommandResult result = Onnxopt({"patterns"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("numerics"), std::string::npos) << result.output;
  for (const std::string line_start : {"CastOpCastPattern", "CastCastBinaryPattern", "WhereAddPattern"}) {
    const std::size_t at = result.output.find("\n" + line_start + " ");
    ASSERT_NE(at, std::string::npos) << result.output;
    const std::string line = result.output.substr(at + 1, result.output.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find(" approximate "), std::string::npos) << line;
  }
  EXPECT_NE(result.output.find("11 approximate"), std::string::npos) << result.output;
  const CommandResult json = Onnxopt({"patterns", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  EXPECT_NE(json.output.find(R"("name":"CastOpCastPattern","family":"canonicalization","numerics":"approximate")"),
            std::string::npos)
      << json.output;
}

TEST(PatternNumerics, OptimizeRunsApproximatePatternsOnlyWhenAskedFor) {
  TempDir dir;
  const auto model = dir / "model.onnx";
  WriteFile(model, core::ir::SerializeDeterministic(ParseText(kFloat16Model)));
  const struct {
    std::vector<std::string> selection;
    int casts;
  } cases[] = {
      {{}, 2},                                                   // default: the model's casts stay
      {{"--patterns", "default"}, 2},
      {{"--patterns", "all"}, 1},                                // CastOpCastPattern: one Cast on X
      {{"--patterns", "default,+CastOpCastPattern"}, 1},
      {{"--patterns", "CastOpCastPattern"}, 1},
      {{"--patterns", "all,-CastOpCastPattern"}, 2},
  };
  for (const auto& [selection, casts] : cases) {
    std::vector<std::string> args = {"optimize", model.string(), "-o", (dir / "out.onnx").string(), "-q"};
    args.insert(args.end(), selection.begin(), selection.end());
    const CommandResult result = Onnxopt(args);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(CountOps(core::ir::LoadModel(dir / "out.onnx").graph(), "Cast"), casts)
        << (selection.empty() ? std::string("(no --patterns)") : selection.back());
  }
}

}  // namespace
}  // namespace onnxopt::testing
