// The graph fuzzer's generator and checks (fuzz/graph_case.h) outside libFuzzer: a few
// hundred fixed pseudo-random inputs, and every reproducer of a past finding in
// tests/fuzz/graph_regressions (a libFuzzer artifact, replayed byte for byte).

#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "fuzz/graph_case.h"
#include "onnx_core/ir/tensor_data.h"
#include "tests/support/test_support.h"

namespace onnxopt::fuzz {
namespace {

// The limit the fuzzer runs with (graph_fuzzer.cc).
constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{16} << 20;

class GraphCaseTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { PrepareGraphFuzzing(kMaxTensorBytes); }
  static void TearDownTestSuite() { core::ir::SetMaxTensorBytes(0); }
};

std::optional<std::string> ProblemOf(const std::vector<std::uint8_t>& bytes, GraphCaseOutcome* outcome) {
  FuzzedDataProvider data(bytes.data(), bytes.size());
  return FindGraphCaseProblem(GenerateGraphCase(data), outcome);
}

TEST_F(GraphCaseTest, PseudoRandomGraphsBehave) {
  constexpr int kCases = 300;
  std::map<GraphCaseOutcome, int> outcomes;
  for (int seed = 0; seed < kCases; ++seed) {
    std::mt19937 random(static_cast<std::uint32_t>(seed));
    std::vector<std::uint8_t> bytes(2048);
    for (auto& byte : bytes) byte = static_cast<std::uint8_t>(random());
    GraphCaseOutcome outcome{};
    const std::optional<std::string> problem = ProblemOf(bytes, &outcome);
    EXPECT_FALSE(problem) << "seed " << seed << ": " << problem.value_or("");
    ++outcomes[outcome];
  }
  std::cout << "outcomes of " << kCases << " graphs: refused by the model checks "
            << outcomes[GraphCaseOutcome::kRefusedAtLoad] << ", by shape inference "
            << outcomes[GraphCaseOutcome::kRefusedAtValidation] << ", by the evaluator "
            << outcomes[GraphCaseOutcome::kRefusedAtEvaluation] << ", evaluated and compared "
            << outcomes[GraphCaseOutcome::kCompared] << "\n";
  // The generator must reach every step, not only the model checks: a change that made
  // every graph invalid would leave the optimizer and the comparison untested.
  EXPECT_GE(outcomes[GraphCaseOutcome::kRefusedAtLoad], 1);
  EXPECT_GE(outcomes[GraphCaseOutcome::kRefusedAtValidation], 1);
  EXPECT_GE(outcomes[GraphCaseOutcome::kCompared], kCases / 10);
}

TEST_F(GraphCaseTest, ReproducersOfPastFindingsBehave) {
  for (const auto& path : testing::ListFiles(testing::SourceDir() / "tests/fuzz/graph_regressions")) {
    if (path.extension() == ".md") continue;
    const std::string text = testing::ReadFile(path);
    GraphCaseOutcome outcome{};
    const std::optional<std::string> problem = ProblemOf(std::vector<std::uint8_t>(text.begin(), text.end()), &outcome);
    EXPECT_FALSE(problem) << path.filename() << ": " << problem.value_or("");
  }
}

}  // namespace
}  // namespace onnxopt::fuzz
