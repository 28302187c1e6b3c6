#pragma once
// Optimizing a model with given patterns and checking the records, shared by the engine's
// tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::LocalRewriting;
using core::builder::OptimizationReport;
using core::builder::OptimizerOptions;
using core::builder::PatternOptimization;
using core::builder::PatternSelection;

using Patterns = std::vector<std::shared_ptr<const PatternOptimization>>;

struct Outcome {
  ModelProto original;
  ModelProto optimized;
  std::vector<LocalRewriting> records;
  OptimizationReport report;
};

inline Outcome Optimize(ModelProto model, Patterns patterns, int max_iter = -1, OptimizerOptions options = {}) {
  Outcome run;
  run.original = std::move(model);
  GraphBuilder builder{ModelProto(run.original)};
  options.registered = PatternSelection::None();
  GraphGraph graph(builder, std::move(patterns), std::move(options));
  run.records = graph.Optimize(max_iter, &run.report);
  run.optimized = std::move(builder).TakeModel();
  return run;
}

inline Outcome Optimize(std::string_view text, Patterns patterns, int max_iter = -1, OptimizerOptions options = {}) {
  return Optimize(ParseText(text), std::move(patterns), max_iter, std::move(options));
}

// "out = Op(in, ...)" per node, for exact comparisons.
inline std::string NodesText(const GraphProto& graph) {
  std::string text;
  for (const NodeProto& node : graph.node()) {
    for (int i = 0; i < node.output_size(); ++i) text += (i ? "," : "") + node.output(i);
    text += " = " + node.op_type() + "(";
    for (int i = 0; i < node.input_size(); ++i) text += (i ? "," : "") + node.input(i);
    text += "); ";
  }
  return text;
}

inline void ExpectReplayed(const Outcome& run) {
  const GraphProto replayed = core::builder::Replay(run.original, run.records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(run.optimized.graph()))
      << "replayed: " << NodesText(replayed) << "\noptimized: " << NodesText(run.optimized.graph());
}

inline std::size_t RecordsOf(const Outcome& run, std::string_view name) {
  return static_cast<std::size_t>(std::count_if(run.records.begin(), run.records.end(),
                                                [&](const LocalRewriting& r) { return r.Name() == name; }));
}

}  // namespace onnxopt::testing
