// Matching time of declarative rules against the hand-written patterns they restate
// (T60 of shared/docs/declarative-fusion.md): CastCastPattern, TransposeTransposePattern
// and MatMulAddPattern (bench/declarative_catalog.h). Goal: declarative <= 2x.
//
//   declarative_bench [--reps N] MODEL.onnx [MODEL.onnx ...]
//
// For each model and pattern, N repetitions (default 5) of: a fresh GraphBuilder with
// shapes inferred (not timed), then GraphGraph(builder, {the pattern(s)}, registered none)
// + Optimize with a report; the time is the report's match_time_ns summed over the
// rule's patterns (fusion::ReportedNames: a group and its alternatives; every Match call,
// MeetRequirements included; no rewriting, cleanup or indexing). The table gives the
// minimum over repetitions of each side, their ratio, Match calls and rewrites applied.
// bench/declarative_bench.sh makes the decoders.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "bench/declarative_catalog.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/fusion/fusion_pass.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/report.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"

namespace {

using namespace onnxopt;
using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::OptimizationReport;
using core::builder::OptimizerOptions;
using core::builder::PatternSelection;

struct Timing {
  std::int64_t match_ns = std::numeric_limits<std::int64_t>::max();  // minimum over repetitions
  std::size_t calls = 0;
  std::size_t applied = 0;
};

Timing Measure(const ModelProto& model, const std::vector<declarative_catalog::PatternPtr>& patterns, int reps) {
  Timing timing;
  for (int rep = 0; rep < reps; ++rep) {
    GraphBuilder builder{ModelProto(model)};
    builder.InferShapes();
    OptimizerOptions options;
    options.registered = PatternSelection::None();
    GraphGraph graph(builder, patterns, options);
    OptimizationReport report;
    graph.Optimize(-1, &report);
    std::vector<std::string> names;
    for (const auto& pattern : patterns)
      for (std::string& name : fusion::ReportedNames(*pattern)) names.push_back(std::move(name));
    std::int64_t match_ns = 0;
    std::size_t calls = 0, applied = 0;
    for (const auto& stats : report.patterns)
      for (const std::string& name : names)
        if (stats.name == name) {
          match_ns += stats.match_time_ns;
          calls += stats.match_calls;
          applied += stats.applied;
        }
    timing.match_ns = std::min(timing.match_ns, match_ns);
    timing.calls = calls;
    timing.applied = applied;
  }
  return timing;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::vector<std::string> models;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else
      models.push_back(arg);
  }
  if (models.empty()) {
    std::fprintf(stderr, "usage: declarative_bench [--reps N] MODEL.onnx [MODEL.onnx ...]\n");
    return 2;
  }
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  std::printf("%-28s %-26s %12s %12s %7s %9s %9s %8s\n", "model", "pattern", "hand (ms)", "decl (ms)", "ratio",
              "calls h", "calls d", "applied");
  for (const std::string& path : models) {
    const ModelProto model = core::ir::LoadModel(path);
    const std::string name = path.substr(path.find_last_of('/') + 1);
    for (const auto& pair : declarative_catalog::CatalogPairs()) {
      const Timing hand = Measure(model, {pair.handwritten}, reps);
      const Timing decl = Measure(model, pair.declarative, reps);
      const double ratio = hand.match_ns > 0 ? static_cast<double>(decl.match_ns) / hand.match_ns : 0;
      std::printf("%-28s %-26s %12.3f %12.3f %7.2f %9zu %9zu %4zu/%-4zu\n", name.c_str(), pair.name.c_str(),
                  hand.match_ns / 1e6, decl.match_ns / 1e6, ratio, hand.calls, decl.calls, hand.applied,
                  decl.applied);
    }
  }
  return 0;
}
