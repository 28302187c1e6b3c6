#pragma once
// A graph as patterns see it (shapes inferred, constants computable, no pattern
// selected), for tests of the family matchers that query a GraphGraph directly.

#include <gtest/gtest.h>

#include <string_view>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns::testing {

struct GraphFixture {
  explicit GraphFixture(std::string_view text) : builder(onnxopt::testing::ParseText(text)) {
    onnx_shapes::RegisterShapeFunctions();
    onnx_kernels::RegisterKernels();
    builder.InferShapes();
  }
  static core::builder::OptimizerOptions NoPatterns() {
    core::builder::OptimizerOptions options;
    options.registered = core::builder::PatternSelection::None();
    return options;
  }
  // The node of the graph whose first output is `output`.
  const NodeProto& Node(std::string_view output) const {
    for (const NodeProto& node : builder.Nodes())
      if (node.output(0) == output) return node;
    ADD_FAILURE() << "no node writes " << output;
    return builder.Nodes().Get(0);
  }
  core::builder::GraphBuilder builder;
  core::builder::GraphGraph graph{builder, {}, NoPatterns()};
};

}  // namespace onnxopt::onnx_patterns::testing
