// Benchmark of the pattern optimizer (issue 5): what one Optimize iteration that matches
// nothing costs (index build + matching), what the default set costs, and what Replay
// costs, each as a ratio to loading and saving the same model in the same run. Goal:
// optimization with the default set costs less than 3x load+save.
//
//   optimizer_bench [--reps N] [--warmup] [--cleanup-breakdown] MODEL.onnx [MODEL.onnx ...]
//
// For each model, N repetitions (default 5); each repetition measures, in this order:
//   load+save     core::ir::LoadModel(path) + SaveModel to a temporary file (the reference)
//   builder       GraphBuilder construction over the loaded model
//   shapes        GraphBuilder::InferShapes
//   no-match      GraphGraph(builder, {NeverMatchPattern}, registered = None,
//                 fold_constants_first = false) + Optimize(max_iter = 1), shapes already
//                 inferred; NeverMatchPattern has an empty FastOpType, so Match is called
//                 once on every node and returns NoMatch. The cleanup the driver runs
//                 before its first iteration is included in the wall time and shown apart.
//   optimize      GraphGraph(builder, {}, registered = Default, fold_constants_first = true)
//                 + Optimize() on a fresh builder (shape inference included), with the
//                 patterns onnx_patterns::RegisterPatterns() registers
//   replay        Replay(builder, records of `optimize`) on a fresh builder (Replay only)
// Fresh models are copies of the one just loaded (copies are not timed). The phases of
// a repetition run back to back, so machine noise hits them all alike; the table shows
// the median over repetitions (and min-max), its ratio to the median load+save ("x l+s")
// and the ratio of the minimums ("min x", less sensitive to a busy machine). The first
// repetition also checks that the replayed graph serializes byte for byte like the
// optimized one (OK / MISMATCH). --cleanup-breakdown also times, once per model, each
// cleanup pass the driver runs before its first iteration, next to two control walks.
// --warmup runs one untimed repetition per model first (bench/run starts one process per
// repetition: without it, the first phase would pay the heap's first page faults alone).
// After each model, a line `RESULT name=... key=value ...` repeats the medians for
// scripts, with the node counts, the process's peak resident memory so far (getrusage
// ru_maxrss: per model only when the process runs one model; it includes the benchmark's
// copies of the model) and checksums of the optimized model and of its records without
// their times (model_digest, records_digest: two builds that optimize alike print the
// same). bench/run_optimizer_bench.sh and bench/run drive it.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

#include "onnx_core/passes/cleanup.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_core/optimizer/report.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tools/allocator/allocator.h"

namespace {

using onnxopt::ModelProto;
using onnxopt::NodeProto;
namespace ir = onnxopt::core::ir;
namespace cb = onnxopt::core::builder;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
double Ms(std::int64_t ns) { return static_cast<double>(ns) * 1e-6; }

// Rejects every node: measures the driver's cost per candidate, not a pattern's.
class NeverMatchPattern final : public cb::PatternOptimization {
 public:
  std::string Name() const override { return "BenchNeverMatchPattern"; }
  cb::MatchResult Match(cb::GraphGraph&, const NodeProto& candidate) const override {
    return NoMatch(candidate, "the benchmark pattern never matches");
  }
  onnxopt::utils::RepeatedProtoField<NodeProto> Apply(cb::GraphGraph&,
                                                       const std::vector<const NodeProto*>&) const override {
    throw onnxopt::BuilderError("BenchNeverMatchPattern::Apply: the pattern never matches");
  }
};

// Samples of one measurement (ms).
struct Series {
  std::vector<double> samples;
  void Add(double ms) { samples.push_back(ms); }
  double Median() const {
    std::vector<double> s = samples;
    std::sort(s.begin(), s.end());
    const std::size_t n = s.size();
    return n == 0 ? 0.0 : (n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2);
  }
  double Min() const { return samples.empty() ? 0.0 : *std::min_element(samples.begin(), samples.end()); }
  double Max() const { return samples.empty() ? 0.0 : *std::max_element(samples.begin(), samples.end()); }
};

struct ModelResult {
  std::string name;
  std::size_t nodes = 0;
  std::vector<std::string> order;  // row order
  std::map<std::string, Series> rows;
  // Counters of the default optimization (identical across repetitions).
  std::size_t iterations = 0, nodes_before = 0, nodes_after = 0, rewrites = 0, patterns = 0;
  std::size_t nomatch_calls = 0, nomatch_nodes_after_cleanup = 0;
  bool replay_identical = false;
  // Checksums of the optimized model and of its records with their times zeroed (they
  // differ run to run): two builds whose default optimization does the same print the same.
  std::string model_digest, records_digest;
  std::string cleanup;  // per-operation counters of the default optimization

  void Add(const std::string& row, double ms) {
    if (!rows.contains(row)) order.push_back(row);
    rows[row].Add(ms);
  }
};

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : bytes) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

void RunOnce(const std::filesystem::path& path, const std::filesystem::path& tmp, bool first, ModelResult& result) {
  // 1. load+save (the reference).
  auto start = Clock::now();
  ModelProto model = ir::LoadModel(path);
  ir::SaveModel(model, tmp);
  result.Add("load+save", MsSince(start));
  result.nodes = static_cast<std::size_t>(model.graph().node_size());

  // 2. shape inference alone.
  ModelProto copy = model;
  start = Clock::now();
  cb::GraphBuilder builder{std::move(copy)};
  result.Add("GraphBuilder construction", MsSince(start));
  start = Clock::now();
  builder.InferShapes();
  result.Add("InferShapes", MsSince(start));

  // 3. one iteration that matches nothing (shapes are known: the driver skips inference).
  {
    cb::OptimizerOptions options;
    options.registered = cb::PatternSelection::None();
    options.fold_constants_first = false;
    cb::OptimizationReport report;
    start = Clock::now();
    cb::GraphGraph graph(builder, {std::make_shared<NeverMatchPattern>()}, std::move(options));
    const double ctor = MsSince(start);
    const auto records = graph.Optimize(1, &report);
    const double wall = MsSince(start);
    if (report.shape_inference_time_ns != 0) throw onnxopt::BuilderError("no-match run inferred shapes again");
    result.Add("no-match: ctor+Optimize(1) wall", wall);
    result.Add("  ctor (BuildIndex)", ctor);
    result.Add("  cleanup before the iteration", Ms(report.cleanup_time_ns));
    result.Add("  index rebuild after cleanup", Ms(report.indexing_time_ns));
    result.Add("  matching (every node)", Ms(report.matching_time_ns));
    // The iteration's index is the constructor's unless the cleanup changed the graph.
    const double index = report.indexing_time_ns > 0 ? Ms(report.indexing_time_ns) : ctor;
    result.Add("  one iteration (index + matching)", index + Ms(report.matching_time_ns));
    std::size_t calls = 0;
    for (const auto& stats : report.patterns) calls += stats.match_calls;
    result.nomatch_calls = calls;
    result.nomatch_nodes_after_cleanup = report.nodes_after;
  }

  // 4. the default set, from a fresh builder.
  std::vector<cb::LocalRewriting> records;
  std::string optimized_bytes;
  {
    cb::GraphBuilder fresh{ModelProto(model)};
    cb::OptimizerOptions options;
    options.registered = cb::PatternSelection::Default();
    options.fold_constants_first = true;
    cb::OptimizationReport report;
    start = Clock::now();
    cb::GraphGraph graph(fresh, {}, std::move(options));
    const double ctor = MsSince(start);
    records = graph.Optimize(-1, &report);
    const double wall = MsSince(start);
    result.Add("default Optimize: ctor+Optimize wall", wall);
    result.Add("  ctor (patterns, BuildIndex)", ctor);
    result.Add("  shape inference", Ms(report.shape_inference_time_ns));
    result.Add("  constant folding", Ms(report.constant_folding_time_ns));
    result.Add("  cleanup", Ms(report.cleanup_time_ns));
    result.Add("  indexing", Ms(report.indexing_time_ns));
    result.Add("  matching", Ms(report.matching_time_ns));
    result.Add("  rewriting", Ms(report.rewriting_time_ns));
    result.Add("  subgraphs", Ms(report.subgraph_optimization_time_ns));
    result.Add("  other (wall - ctor - phases)", wall - ctor - Ms(report.TotalTimeNs()));
    result.iterations = report.iterations;
    result.nodes_before = report.nodes_before;
    result.nodes_after = report.nodes_after;
    result.rewrites = report.rewrites;
    result.patterns = graph.Patterns().size();
    result.cleanup.clear();
    for (const auto& stats : report.cleanup)
      result.cleanup += "  " + stats.name + ": " + std::to_string(stats.runs) + " effective runs, " +
                        std::to_string(stats.removed_nodes) + " nodes and " + std::to_string(stats.removed_initializers) +
                        " initializers removed, " + std::to_string(stats.renames) + " renames\n";
    for (const auto& stats : report.patterns)
      result.cleanup += "  " + stats.name + ": " + std::to_string(stats.match_calls) + " Match calls, " +
                        std::to_string(stats.applied) + " applied\n";
    if (first) {
      optimized_bytes = ir::SerializeDeterministic(fresh.ToModel());
      std::vector<cb::LocalRewriting> untimed = records;
      for (cb::LocalRewriting& record : untimed) record.match_time_ns = record.apply_time_ns = 0;
      result.model_digest = Hex(cb::RewriteFileChecksum(optimized_bytes));
      result.records_digest = Hex(cb::RewriteFileChecksum(cb::SerializeRewrites(untimed)));
    }
  }

  // 5. Replay of those records on a fresh builder.
  {
    cb::GraphBuilder fresh{std::move(model)};
    start = Clock::now();
    cb::Replay(fresh, records);
    result.Add("Replay", MsSince(start));
    if (first) result.replay_identical = ir::SerializeDeterministic(fresh.ToModel()) == optimized_bytes;
  }
}

// --cleanup-breakdown: each pass call of the cleanup the driver runs before its first
// iteration (same passes, same order, same scope), timed one by one.
void CleanupBreakdown(const std::filesystem::path& path) {
  using Pass = cb::CleanupResult (*)(cb::GraphBuilder&, cb::CleanupScope);
  constexpr Pass kPasses[] = {cb::RemoveIdentityNodes, cb::RemoveUnusedNodes, cb::RemoveDuplicateNodes,
                              cb::RemoveDuplicateInitializers};
  cb::GraphBuilder builder{ir::LoadModel(path)};
  std::printf("\ncleanup breakdown, %s (%d nodes, %d initializers):\n", path.filename().c_str(),
              builder.Nodes().size(), builder.Initializers().size());
  double total = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (Pass pass : kPasses) {
      const auto start = Clock::now();
      const cb::CleanupResult result = pass(builder, cb::CleanupScope::kThisGraph);
      const double ms = MsSince(start);
      total += ms;
      std::printf("  %-28s %9.2f ms  removed %zu nodes, %zu initializers, %zu renames\n", result.pass.c_str(), ms,
                  result.removed_nodes, result.removed_initializers, result.renames.size());
      changed = changed || result.Changed();
    }
  }
  std::printf("  %-28s %9.2f ms\n", "total", total);
  // Controls: the cheapest linear walks a pass can do, to tell an algorithm that grows
  // faster than the graph from per-node costs that grow with the working set.
  std::size_t sink = 0;
  auto start = Clock::now();
  for (const NodeProto& node : builder.Nodes()) {
    sink += node.op_type().size();
    for (const std::string& output : node.output()) sink += output.size();
  }
  std::printf("  %-28s %9.2f ms  (read op_type and outputs of every node)\n", "control: walk", MsSince(start));
  start = Clock::now();
  {
    std::unordered_map<std::string, const NodeProto*> producers;
    for (const NodeProto& node : builder.Nodes())
      for (const std::string& output : node.output()) producers.emplace(output, &node);
    sink += producers.size();
  }
  std::printf("  %-28s %9.2f ms  (unordered_map<string> of every output, freed)\n", "control: hash outputs",
              MsSince(start));
  if (sink == 0) std::printf("empty graph\n");
}

void Print(const ModelResult& r, int reps) {
  const double reference = r.rows.at("load+save").Median();
  std::printf("\n## %s: %zu nodes, %d repetitions (median, min-max)\n", r.name.c_str(), r.nodes, reps);
  const double reference_min = r.rows.at("load+save").Min();
  std::printf("%-40s %10s %10s %10s %9s %9s\n", "phase", "ms", "min", "max", "x l+s", "min x");
  for (const std::string& row : r.order) {
    const Series& s = r.rows.at(row);
    std::printf("%-40s %10.2f %10.2f %10.2f %9.3f %9.3f\n", row.c_str(), s.Median(), s.Min(), s.Max(),
                s.Median() / reference, s.Min() / reference_min);
  }
  std::printf("no-match: %zu Match calls, %zu nodes after the cleanup\n", r.nomatch_calls,
              r.nomatch_nodes_after_cleanup);
  std::printf("default Optimize: %zu patterns, %zu iterations, nodes %zu -> %zu, %zu records\n", r.patterns,
              r.iterations, r.nodes_before, r.nodes_after, r.rewrites);
  std::printf("%s", r.cleanup.c_str());
  std::printf("Replay == optimized graph (bytes): %s\n", r.replay_identical ? "OK" : "MISMATCH");
  auto ratio = [&](const char* row) { return r.rows.at(row).Median() / reference; };
  std::printf("SUMMARY %s nodes=%zu load+save=%.2fms no-match-iteration=%.3fx (wall %.3fx) replay=%.3fx "
              "default-optimize=%.3fx goal(<3x)=%s replay=%s\n",
              r.name.c_str(), r.nodes, reference, ratio("  one iteration (index + matching)"), ratio("no-match: ctor+Optimize(1) wall"),
              ratio("Replay"), ratio("default Optimize: ctor+Optimize wall"),
              ratio("default Optimize: ctor+Optimize wall") < 3 ? "met" : "MISSED",
              r.replay_identical ? "OK" : "MISMATCH");
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto median = [&](const char* row) { return r.rows.at(row).Median(); };
  std::printf("RESULT name=%s nodes=%zu load_save_ms=%.3f infer_shapes_ms=%.3f optimize_ms=%.3f replay_ms=%.3f "
              "nodes_after=%zu iterations=%zu replay=%s peak_rss_kb=%ld model_digest=%s records_digest=%s\n",
              r.name.c_str(), r.nodes, reference, median("InferShapes"),
              median("default Optimize: ctor+Optimize wall"), median("Replay"), r.nodes_after, r.iterations,
              r.replay_identical ? "OK" : "MISMATCH", usage.ru_maxrss, r.model_digest.c_str(), r.records_digest.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool cleanup_breakdown = false;
  bool warmup = false;
  std::vector<std::filesystem::path> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--cleanup-breakdown") {
      cleanup_breakdown = true;
    } else if (arg == "--warmup") {
      warmup = true;
    } else if (arg == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else if (arg.rfind("--reps=", 0) == 0) {
      reps = std::max(1, std::atoi(arg.c_str() + 7));
    } else if (arg == "-h" || arg == "--help" || arg.rfind("-", 0) == 0) {
      std::cerr << "usage: optimizer_bench [--reps N] [--warmup] [--cleanup-breakdown] MODEL.onnx [MODEL.onnx ...]\n";
      return arg == "-h" || arg == "--help" ? 0 : 2;
    } else {
      paths.emplace_back(arg);
    }
  }
  if (paths.empty()) {
    std::cerr << "usage: optimizer_bench [--reps N] [--warmup] [--cleanup-breakdown] MODEL.onnx [MODEL.onnx ...]\n";
    return 2;
  }
  onnxopt::onnx_shapes::RegisterShapeFunctions();
  onnxopt::onnx_kernels::RegisterKernels();
  onnxopt::onnx_patterns::RegisterPatterns();
  const auto registered = cb::RegisteredPatternNames();
  std::printf("allocator: %s\n", onnxopt::tools::AllocatorDescription().c_str());
  std::printf("registered patterns (%zu):", registered.size());
  for (const auto& name : registered) std::printf(" %s", name.c_str());
  std::printf("\n");

  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() / ("onnxopt_optimizer_bench_" + std::to_string(getpid()) + ".onnx");
  int status = 0;
  for (const auto& path : paths) {
    ModelResult result;
    result.name = path.filename().string();
    try {
      if (warmup) {
        ModelResult ignored;
        RunOnce(path, tmp, false, ignored);
      }
      for (int rep = 0; rep < reps; ++rep) RunOnce(path, tmp, rep == 0, result);
    } catch (const std::exception& error) {
      std::cerr << "optimizer_bench: " << path.string() << ": " << error.what() << "\n";
      status = 1;
      continue;
    }
    Print(result, reps);
    if (cleanup_breakdown) CleanupBreakdown(path);
    std::fflush(stdout);
    if (!result.replay_identical) status = 1;
  }
  std::error_code ignored;
  std::filesystem::remove(tmp, ignored);
  return status;
}
