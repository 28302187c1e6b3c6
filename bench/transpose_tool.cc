// transpose_tool MODEL OUTPUT [--default-cost]
// Runs the transpose optimizer alone on MODEL's main graph (load, shape inference, the
// pass, save) and prints one JSON line: the time of each step, the Transpose counts
// before and after, and the pass's counters. Used by bench/transpose_bench.sh and by the
// onnxruntime comparison test (tests/ort/transpose_cnn_vs_ort.sh) until `onnxopt optimize
// --patterns transpose` runs graph passes.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "onnx_extensions/transpose/transpose_optimizer.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); }

int CountTransposes(const onnxopt::GraphProto& graph) {
  int count = 0;
  for (const auto& node : graph.node()) count += node.op_type() == "Transpose" ? 1 : 0;
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace onnxopt;
  if (argc < 3) {
    std::cerr << "usage: transpose_tool MODEL OUTPUT [--default-cost]\n";
    return 2;
  }
  onnx_transpose::TransposeOptimizerOptions options;
  if (argc > 3 && std::string(argv[3]) == "--default-cost") options.cost_model = onnx_transpose::CostModel::kDefault;
  try {
    onnx_shapes::RegisterShapeFunctions();
    onnx_kernels::RegisterKernels();
    auto start = Clock::now();
    ModelProto model = core::ir::LoadModel(argv[1]);
    const double load = Seconds(start);
    const int before = CountTransposes(model.graph());
    core::builder::GraphBuilder builder(std::move(model));
    start = Clock::now();
    builder.InferShapes();
    const double infer = Seconds(start);
    core::builder::PassResult result;
    start = Clock::now();
    {
      core::builder::OptimizerOptions optimizer_options;
      optimizer_options.registered = core::builder::PatternSelection::None();
      core::builder::GraphGraph graph(builder, {}, optimizer_options);
      onnx_transpose::TransposeOptimizer(options).Run(graph, result);
    }
    const double pass = Seconds(start);
    ModelProto optimized = std::move(builder).TakeModel();
    const int after = CountTransposes(optimized.graph());
    start = Clock::now();
    core::ir::SaveModel(optimized, argv[2]);
    const double save = Seconds(start);
    std::printf(
        "{\"nodes\": %d, \"load\": %.6f, \"infer\": %.6f, \"pass\": %.6f, \"save\": %.6f, "
        "\"transposes_before\": %d, \"transposes_after\": %d",
        optimized.graph().node_size(), load, infer, pass, save, before, after);
    for (const auto& [name, value] : result.counters)
      std::printf(", \"%s\": %lld", name.c_str(), static_cast<long long>(value));
    std::printf("}\n");
  } catch (const std::exception& error) {
    std::cerr << "transpose_tool: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
