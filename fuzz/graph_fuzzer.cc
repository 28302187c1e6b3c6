// libFuzzer target: build a random small graph from the operator schemas (graph_case.h),
// then load, validate, optimize (default patterns, folding first), check the optimized
// model and compare both models' outputs on the same inputs. Any finding of
// FindGraphCaseProblem aborts, so that libFuzzer records the input as an artifact; so do
// crashes, sanitizer reports and allocations above -malloc_limit_mb.
//
// GRAPH_FUZZER_PRINT=1 prints each generated model (protobuf text) and how far it got:
// run the binary on an artifact to see what it builds. GRAPH_FUZZER_EXPORT=DIR writes each
// model that both runs compared to DIR/<n>.onnx: replaying a corpus with it
// (graph_fuzzer -runs=0 CORPUS) gives models to judge in onnxruntime, whose kernels share no
// misreading of the spec with the evaluator that folded and checked them here.
// GRAPH_FUZZER_RANGE=opset23 builds graphs as the generator did before opset 25
// (kGraphCaseRangeOpset23): the reproducers found then build their graphs only so.
// GRAPH_FUZZER_OPS=BitCast,CumProd aims the generator at those operators (half the nodes,
// half the graphs at the newest opset): uniform draws over ~190 operators rarely reach a
// new one. Findings made so must be replayed with the same setting.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "fuzz/graph_case.h"

namespace {

// The limit on tensor sizes during fuzzing; run libFuzzer with -malloc_limit_mb a little
// above it, so that any allocation beyond the limit is reported.
constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{16} << 20;

const char* OutcomeName(onnxopt::fuzz::GraphCaseOutcome outcome) {
  switch (outcome) {
    case onnxopt::fuzz::GraphCaseOutcome::kRefusedAtLoad: return "refused by the model checks";
    case onnxopt::fuzz::GraphCaseOutcome::kRefusedAtValidation: return "refused by shape inference";
    case onnxopt::fuzz::GraphCaseOutcome::kRefusedAtEvaluation: return "refused by the evaluator";
    case onnxopt::fuzz::GraphCaseOutcome::kCompared: return "evaluated and compared";
  }
  return "?";
}

void ExportCompared(const onnx::ModelProto& model) {
  static const char* folder = std::getenv("GRAPH_FUZZER_EXPORT");
  static int exported = 0;
  if (!folder) return;
  std::ofstream out(std::string(folder) + "/" + std::to_string(exported++) + ".onnx", std::ios::binary);
  model.SerializeToOstream(&out);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  onnxopt::fuzz::PrepareGraphFuzzing(kMaxTensorBytes);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool opset23 = [] {
    const char* range = std::getenv("GRAPH_FUZZER_RANGE");
    if (!range || !*range) return false;
    if (std::string(range) != "opset23") {
      std::fprintf(stderr, "graph_fuzzer: GRAPH_FUZZER_RANGE takes opset23 (or is unset for the newest range)\n");
      std::exit(2);
    }
    return true;
  }();
  static const std::set<std::string> favoured_op_types = [] {
    std::set<std::string> op_types;
    std::istringstream list(std::getenv("GRAPH_FUZZER_OPS") ? std::getenv("GRAPH_FUZZER_OPS") : "");
    for (std::string op_type; std::getline(list, op_type, ',');)
      if (!op_type.empty()) op_types.insert(op_type);
    return op_types;
  }();
  FuzzedDataProvider provider(data, size);
  const onnxopt::fuzz::GraphCase graph_case = onnxopt::fuzz::GenerateGraphCase(
      provider, opset23 ? onnxopt::fuzz::kGraphCaseRangeOpset23 : onnxopt::fuzz::kNewestGraphCaseRange,
      favoured_op_types);
  onnxopt::fuzz::GraphCaseOutcome outcome{};
  const std::optional<std::string> problem = onnxopt::fuzz::FindGraphCaseProblem(graph_case, &outcome);
  static const bool print = std::getenv("GRAPH_FUZZER_PRINT") != nullptr;
  if (outcome == onnxopt::fuzz::GraphCaseOutcome::kCompared) ExportCompared(graph_case.model);
  if (print || problem)
    std::fprintf(stderr, "%s\n-- %s\n", graph_case.model.DebugString().c_str(), OutcomeName(outcome));
  if (problem) {
    std::fprintf(stderr, "graph_fuzzer finding: %s\n", problem->c_str());
    std::abort();
  }
  return 0;
}
