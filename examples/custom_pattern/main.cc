// custom_pattern: an application that links onnx_core only (no built-in pattern, no
// operator library) and optimizes a model with a pattern of its own.
//
//   custom_pattern MODEL.onnx OUT.onnx
//
// It prints the optimizer's report and the rewrites it applied.

#include <exception>
#include <iostream>

#include "examples/custom_pattern/mul_by_one_pattern.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/pattern_registry.h"

int main(int argc, char** argv) {
  namespace builder = onnxopt::core::builder;
  if (argc != 3) {
    std::cerr << "usage: custom_pattern MODEL.onnx OUT.onnx\n";
    return 1;
  }
  try {
    // Registration is explicit: nothing registers itself when a library is linked.
    builder::RegisterPattern<example::MulByOnePattern>();

    builder::GraphBuilder graph_builder(onnxopt::core::ir::LoadModel(argv[1]));
    // The default selection takes every registered pattern: here, ours.
    builder::GraphGraph optimizer(graph_builder);
    builder::OptimizationReport report;
    const std::vector<builder::LocalRewriting> rewrites = optimizer.Optimize(-1, &report);

    std::cout << report.ToString();
    for (const builder::LocalRewriting& rewrite : rewrites) std::cout << "  " << rewrite.ToString() << "\n";
    onnxopt::ModelProto optimized = std::move(graph_builder).TakeModel();
    onnxopt::core::ir::SaveModel(optimized, argv[2]);
  } catch (const std::exception& error) {
    std::cerr << "custom_pattern: " << error.what() << "\n";
    return 2;
  }
  return 0;
}
