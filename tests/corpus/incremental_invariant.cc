// The invariant of the optimizer's incremental work (incremental matching,
// onnx_core/optimizer/match_cache.h, and the cleanup passes it skips): on one model, the
// default optimization of `onnxopt optimize` (every registered default pattern and pass,
// constant folding first) gives the same model and the same rewrite records as the
// whole-graph version (ONNXOPT_INCREMENTAL=0), both as users run it and with
// ONNXOPT_CHECK_INCREMENTAL, which tries every node the cache skips and runs every skipped
// pass, failing when one of them finds something, and after every batch compares the
// shapes inferred node by node with an inference of the whole graph from scratch.
//
// Usage: incremental_invariant MODEL.onnx
// Prints "MODEL: N nodes -> M, R records, identical" and exits 0, or names the first
// difference and exits 1 (2 when the model cannot be optimized).

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/initializer_inputs.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/rewrite_file.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"

namespace {

namespace cb = onnxopt::core::builder;

struct Run {
  std::string model;    // deterministic serialization
  std::string records;  // serialized, times set to zero (they differ run to run)
  std::size_t records_count = 0, nodes_after = 0;
};

struct Mode {
  const char* name;
  bool incremental, check;
};
constexpr Mode kWholeGraph{"whole-graph", false, false};
constexpr Mode kIncremental[] = {{"incremental", true, false}, {"incremental (checked)", true, true}};

Run Optimize(const onnx::ModelProto& original, const Mode& mode) {
  // The driver reads these when it starts (optimize.cc).
  setenv("ONNXOPT_INCREMENTAL", mode.incremental ? "1" : "0", 1);
  setenv("ONNXOPT_CHECK_INCREMENTAL", mode.check ? "1" : "0", 1);
  cb::GraphBuilder builder{onnx::ModelProto(original)};
  cb::OptimizerOptions options;
  options.fold_constants_first = true;
  std::vector<cb::LocalRewriting> records;
  {
    cb::GraphGraph optimizer(builder, {}, std::move(options));
    records = optimizer.Optimize();
  }
  Run run;
  run.records_count = records.size();
  for (cb::LocalRewriting& record : records) record.match_time_ns = record.apply_time_ns = 0;
  run.records = cb::SerializeRewrites(records);
  onnx::ModelProto model = std::move(builder).TakeModel();
  run.nodes_after = static_cast<std::size_t>(model.graph().node_size());
  model.SerializeToString(&run.model);
  return run;
}

// The first record whose serialization differs, for the message.
std::size_t FirstDifference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: incremental_invariant MODEL.onnx\n";
    return 2;
  }
  const std::string path = argv[1];
  try {
    onnxopt::onnx_shapes::RegisterShapeFunctions();
    onnxopt::onnx_kernels::RegisterKernels();
    onnxopt::onnx_patterns::RegisterPatterns();
    onnx::ModelProto model = onnxopt::core::ir::LoadModel(path);
    onnxopt::core::ir::MakeInitializerInputsConstant(model, onnxopt::core::ir::InitializerInputs::kConstantBeforeIr4);
    const Run whole = Optimize(model, kWholeGraph);
    for (const Mode& mode : kIncremental) {
      const Run incremental = Optimize(model, mode);
      if (whole.records != incremental.records) {
        std::cerr << path << ": the rewrite records differ (byte " << FirstDifference(whole.records, incremental.records)
                  << " of " << whole.records.size() << "; " << whole.records_count << " records whole-graph, "
                  << incremental.records_count << " " << mode.name << ")\n";
        return 1;
      }
      if (whole.model != incremental.model) {
        std::cerr << path << ": the optimized models differ, whole-graph and " << mode.name << " (byte "
                  << FirstDifference(whole.model, incremental.model) << ")\n";
        return 1;
      }
    }
    std::cout << path << ": " << model.graph().node_size() << " nodes -> " << whole.nodes_after << ", "
              << whole.records_count << " records, identical whole-graph, incremental and incremental (checked)\n";
    return 0;
  } catch (const std::exception& error) {
    std::cerr << path << ": " << error.what() << "\n";
    return 2;
  }
}
