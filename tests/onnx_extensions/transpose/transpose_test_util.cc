#include "tests/onnx_extensions/transpose/transpose_test_util.h"

#include <gtest/gtest.h>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::OptimizerOptions;
using core::builder::PatternSelection;
using onnx_transpose::TransposeOptimizer;
using onnx_transpose::TransposeOptimizerOptions;

TransposeRun RunTransposeOptimizer(ModelProto model, const TransposeOptimizerOptions& options, bool infer_shapes) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  TransposeRun run;
  GraphBuilder builder(std::move(model));
  if (infer_shapes) builder.InferShapes();
  OptimizerOptions optimizer_options;
  optimizer_options.registered = PatternSelection::None();
  {
    GraphGraph graph(builder, {}, optimizer_options);
    TransposeOptimizer(options).Run(graph, run.result);
  }
  run.model = std::move(builder).TakeModel();
  return run;
}

namespace {

void ExpectRewriteWithin(std::string_view before, std::string_view after, const TransposeOptimizerOptions& options,
                         core::builder::NumericalClass numerics, double tolerance) {
  const ModelProto original = ParseText(before);
  const ModelProto expected = ParseText(after);
  const TransposeRun run = RunTransposeOptimizer(original, options);
  EXPECT_EQ(CanonicalGraph(run.model.graph()), CanonicalGraph(expected.graph()));
  const TransposeRun again = RunTransposeOptimizer(run.model, options);
  EXPECT_EQ(CanonicalGraph(again.model.graph()), CanonicalGraph(run.model.graph())) << "a second run changes the graph";
  ExpectSameOutputs(original, run.model, numerics, tolerance);
}

}  // namespace

void ExpectTransposeRewrite(std::string_view before, std::string_view after, const TransposeOptimizerOptions& options) {
  ExpectRewriteWithin(before, after, options, core::builder::NumericalClass::kExact, 0);
}

void ExpectTransposeRewriteRounding(std::string_view before, std::string_view after, double tolerance) {
  ExpectRewriteWithin(before, after, {}, core::builder::NumericalClass::kRounding, tolerance);
}

void ExpectTransposeUnchanged(std::string_view model, std::string_view reason,
                              const TransposeOptimizerOptions& options) {
  const ModelProto original = ParseText(model);
  const TransposeRun run = RunTransposeOptimizer(original, options);
  EXPECT_EQ(CanonicalGraph(run.model.graph()), CanonicalGraph(original.graph()));
  if (!reason.empty()) {
    std::string stops;
    for (const auto& [name, count] : run.result.counters) stops += name + "=" + std::to_string(count) + "; ";
    EXPECT_GT(run.Counter("stop: " + std::string(reason)), 0) << "no stop with reason '" << reason << "': " << stops;
  }
}

int CountTransposes(const ModelProto& model) {
  int count = 0;
  for (const NodeProto& node : model.graph().node()) count += node.op_type() == "Transpose" ? 1 : 0;
  return count;
}

}  // namespace onnxopt::testing
