// Benchmark of symbolic shape inference (issue 3, "Done when" 4): times
// core::shapes::InferGraph over a whole model, and GraphBuilder::InferShapes, for each
// model given on the command line (or in ONNXOPT_BENCH_MODEL, colon-separated).
//
//   shape_inference_bench [--benchmark_...] MODEL.onnx [MODEL.onnx ...]
//
// Loading the model is not timed. Counters: `nodes` (main graph), `values` (values the
// context holds after inference), `ns_per_node` (real time per node; linear growth means
// it stays flat from 10k to 100k nodes). bench/run_shape_inference.sh drives it.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_extensions/shapes/register_shape_functions.h"

namespace {

using onnxopt::ModelProto;
namespace shapes = onnxopt::core::shapes;

void BM_InferGraph(benchmark::State& state, std::shared_ptr<const ModelProto> model) {
  std::size_t values = 0;
  std::size_t diagnostics = 0;
  for (auto _ : state) {
    auto context = std::make_unique<shapes::ShapesContext>();
    shapes::InferGraph(*model, model->graph(), *context);
    values = context->Values().size();
    diagnostics = context->Diagnostics().size();
    benchmark::DoNotOptimize(values);
    state.PauseTiming();
    context.reset();  // destruction not timed
    state.ResumeTiming();
  }
  const double nodes = model->graph().node_size();
  state.counters["nodes"] = nodes;
  state.counters["values"] = static_cast<double>(values);
  state.counters["diagnostics"] = static_cast<double>(diagnostics);
  state.counters["ns_per_node"] = benchmark::Counter(
      nodes * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_GraphBuilderInferShapes(benchmark::State& state, std::shared_ptr<const ModelProto> model) {
  onnxopt::core::builder::GraphBuilder builder{ModelProto(*model)};
  for (auto _ : state) {
    builder.InferShapes();
    benchmark::ClobberMemory();
  }
  const double nodes = model->graph().node_size();
  state.counters["nodes"] = nodes;
  state.counters["ns_per_node"] = benchmark::Counter(
      nodes * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty()) {
    if (const char* env = std::getenv("ONNXOPT_BENCH_MODEL")) {
      std::string list = env;
      std::size_t start = 0;
      while (start <= list.size()) {
        std::size_t end = list.find(':', start);
        if (end == std::string::npos) end = list.size();
        if (end > start) paths.push_back(list.substr(start, end - start));
        start = end + 1;
      }
    }
  }
  if (paths.empty()) {
    std::cerr << "usage: shape_inference_bench [--benchmark_...] MODEL.onnx [MODEL.onnx ...]\n"
                 "       (or ONNXOPT_BENCH_MODEL=MODEL[:MODEL...])\n";
    return 2;
  }
  onnxopt::onnx_shapes::RegisterShapeFunctions();
  for (const std::string& path : paths) {
    std::shared_ptr<const ModelProto> model;
    try {
      model = std::make_shared<const ModelProto>(onnxopt::core::ir::LoadModel(path));
    } catch (const std::exception& err) {
      std::cerr << "cannot load " << path << ": " << err.what() << "\n";
      return 2;
    }
    const std::string name = std::filesystem::path(path).filename().string();
    benchmark::RegisterBenchmark(("InferGraph/" + name).c_str(), BM_InferGraph, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("GraphBuilder::InferShapes/" + name).c_str(), BM_GraphBuilderInferShapes, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
