// The graph fuzzer's generator and checks (fuzz/graph_case.h) outside libFuzzer: a few
// hundred fixed pseudo-random inputs, and every reproducer of a past finding in
// tests/fuzz/graph_regressions (a libFuzzer artifact, replayed byte for byte).

#include <algorithm>
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

std::optional<std::string> ProblemOf(const std::vector<std::uint8_t>& bytes, GraphCaseOutcome* outcome,
                                     GraphCaseRange range = kNewestGraphCaseRange) {
  FuzzedDataProvider data(bytes.data(), bytes.size());
  return FindGraphCaseProblem(GenerateGraphCase(data, range), outcome);
}

// Under the fuzzer's range and under the range of the earlier reproducers.
TEST_F(GraphCaseTest, PseudoRandomGraphsBehave) {
  constexpr int kCases = 300;
  for (const GraphCaseRange range : {kNewestGraphCaseRange, kGraphCaseRangeOpset23}) {
    std::map<GraphCaseOutcome, int> outcomes;
    for (int seed = 0; seed < kCases; ++seed) {
      std::mt19937 random(static_cast<std::uint32_t>(seed));
      std::vector<std::uint8_t> bytes(2048);
      for (auto& byte : bytes) byte = static_cast<std::uint8_t>(random());
      GraphCaseOutcome outcome{};
      const std::optional<std::string> problem = ProblemOf(bytes, &outcome, range);
      EXPECT_FALSE(problem) << "seed " << seed << ", opsets up to " << range.newest_opset << ": "
                            << problem.value_or("");
      ++outcomes[outcome];
    }
    std::cout << "outcomes of " << kCases << " graphs of opsets up to " << range.newest_opset
              << ": refused by the model checks " << outcomes[GraphCaseOutcome::kRefusedAtLoad]
              << ", by shape inference " << outcomes[GraphCaseOutcome::kRefusedAtValidation] << ", by the evaluator "
              << outcomes[GraphCaseOutcome::kRefusedAtEvaluation] << ", evaluated and compared "
              << outcomes[GraphCaseOutcome::kCompared] << "\n";
    // The generator must reach every step, not only the model checks: a change that made
    // every graph invalid would leave the optimizer and the comparison untested. About a
    // tenth are compared (29 of 300 up to opset 27, 34 up to opset 23, when written).
    EXPECT_GE(outcomes[GraphCaseOutcome::kRefusedAtLoad], 1);
    EXPECT_GE(outcomes[GraphCaseOutcome::kRefusedAtValidation], 1);
    EXPECT_GE(outcomes[GraphCaseOutcome::kCompared], kCases / 12);
  }
}

// Each reproducer under the range it was found with: those in opset27/ under the newest,
// the others under the range of opset 23.
TEST_F(GraphCaseTest, ReproducersOfPastFindingsBehave) {
  const std::filesystem::path folder = testing::SourceDir() / "tests/fuzz/graph_regressions";
  for (const auto& path : testing::ListFiles(folder)) {
    if (path.extension() == ".md") continue;
    const bool newest = path.parent_path() == folder / "opset27";
    const std::string text = testing::ReadFile(path);
    GraphCaseOutcome outcome{};
    const std::optional<std::string> problem =
        ProblemOf(std::vector<std::uint8_t>(text.begin(), text.end()), &outcome,
                  newest ? kNewestGraphCaseRange : kGraphCaseRangeOpset23);
    EXPECT_FALSE(problem) << path.filename() << ": " << problem.value_or("");
  }
}

// A reproducer found before opset 25 still builds the graph its name describes under the
// range it was found with (four SequenceErase nodes of an opset-13 model), and another
// under the newest: each range reads the bytes its own way.
TEST_F(GraphCaseTest, AReproducerBuildsItsGraphUnderItsRange) {
  const std::string text =
      testing::ReadFile(testing::SourceDir() / "tests/fuzz/graph_regressions/same-children-identity-of-sequence-opset13");
  auto generate = [&](GraphCaseRange range) {
    FuzzedDataProvider data(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    return GenerateGraphCase(data, range).model;
  };
  auto erasures = [](const ModelProto& model) {
    return std::count_if(model.graph().node().begin(), model.graph().node().end(),
                         [](const NodeProto& node) { return node.op_type() == "SequenceErase"; });
  };
  const ModelProto found = generate(kGraphCaseRangeOpset23);
  EXPECT_EQ(found.opset_import(0).version(), 13);
  EXPECT_EQ(erasures(found), 4);
  EXPECT_NE(generate(kNewestGraphCaseRange).SerializeAsString(), found.SerializeAsString());
}

}  // namespace
}  // namespace onnxopt::fuzz
