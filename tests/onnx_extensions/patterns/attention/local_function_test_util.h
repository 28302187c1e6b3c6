#pragma once
// Checks of the local functions that the stage-1 attention patterns add (ExpectRewrite
// compares the main graph only).

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

// Concatenation without operator+ on temporaries (GCC 12 -Warray-bounds false positives),
// for model texts assembled from parts.
inline std::string Cat(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) text.append(part);
  return text;
}

// `model` optimized with `patterns` alone.
inline ModelProto OptimizeWithPatterns(
    const std::vector<std::shared_ptr<const core::builder::PatternOptimization>>& patterns, ModelProto model) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  core::builder::GraphBuilder builder(std::move(model));
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  core::builder::GraphGraph graph(builder, patterns, options);
  graph.Optimize();
  return std::move(builder).TakeModel();
}

inline ModelProto OptimizeWithPatterns(
    const std::vector<std::shared_ptr<const core::builder::PatternOptimization>>& patterns, std::string_view model) {
  return OptimizeWithPatterns(patterns, ParseText(model));
}

// `model` optimized with `pattern` alone.
inline ModelProto OptimizeWithPattern(const PatternPtr& pattern, std::string_view model) {
  return OptimizeWithPatterns({pattern}, model);
}

// The model of `text` with `function` in place of its local function of the same (domain,
// name), or added when it has none. The stage-2 patterns recognise only the exact body
// onnxopt writes, which the ONNX text syntax cannot give: the parser sets empty node domains
// and tensor names, and the parser of onnx 1.12 reads no infinity.
inline ModelProto WithFunction(std::string_view text, FunctionProto function) {
  ModelProto model = ParseText(text);
  for (FunctionProto& existing : *model.mutable_functions()) {
    if (existing.domain() == function.domain() && existing.name() == function.name()) {
      existing = std::move(function);
      return model;
    }
  }
  *model.add_functions() = std::move(function);
  return model;
}


// A text of a function: domain, name, inputs, outputs, opset imports, attributes and every
// node with its names as they are (bodies use fixed names) and constants by value.
inline std::string FunctionText(const FunctionProto& f) {
  std::string text = f.domain() + "." + f.name() + "(";
  for (const std::string& input : f.input()) text += input + ",";
  text += ") => (";
  for (const std::string& output : f.output()) text += output + ",";
  text += ")\nimports";
  for (const OperatorSetIdProto& import : f.opset_import())
    text += " '" + import.domain() + "':" + std::to_string(import.version());
  text += "\nattributes " + std::to_string(f.attribute_size()) + "\n";
  for (const NodeProto& node : f.node()) {
    for (const std::string& output : node.output()) text += output + " ";
    text += "= " + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() + "<";
    std::vector<std::string> attributes;
    for (const AttributeProto& attr : node.attribute()) {
      if (attr.type() == AttributeProto::TENSOR) {
        const core::eval::Tensor value = core::eval::Tensor::FromProto(attr.t());
        std::string elements;
        for (const double e : value.ToDoubleVector()) elements += std::to_string(e) + ",";
        attributes.push_back(attr.name() + "=" + value.Describe() + "{" + elements + "}");
      } else {
        attributes.push_back(attr.ShortDebugString());
      }
    }
    std::sort(attributes.begin(), attributes.end());
    for (const std::string& attr : attributes) text += attr + ";";
    text += ">(";
    for (const std::string& input : node.input()) text += input + ",";
    text += ")\n";
  }
  return text;
}

// The model imports the domain `intermediate` at version 1.
inline bool ImportsIntermediate(const ModelProto& model) {
  return std::any_of(model.opset_import().begin(), model.opset_import().end(),
                     [](const OperatorSetIdProto& i) { return i.domain() == "intermediate" && i.version() == 1; });
}

// `model` optimized with `pattern` has exactly one local function, equal to the only
// function of `expected_function_model` (a model text holding it), and imports
// `intermediate` 1; the number of its calls in the main graph is `calls`.
inline void ExpectAddedFunction(const PatternPtr& pattern, std::string_view model,
                                std::string_view expected_function_model, int calls) {
  const ModelProto optimized = OptimizeWithPattern(pattern, model);
  const ModelProto expected = ParseText(expected_function_model);
  ASSERT_EQ(expected.functions_size(), 1);
  ASSERT_EQ(optimized.functions_size(), 1);
  EXPECT_EQ(FunctionText(optimized.functions(0)), FunctionText(expected.functions(0)));
  EXPECT_TRUE(ImportsIntermediate(optimized)) << "the model does not import intermediate 1";
  const FunctionProto& f = optimized.functions(0);
  const int found = static_cast<int>(
      std::count_if(optimized.graph().node().begin(), optimized.graph().node().end(),
                    [&](const NodeProto& n) { return n.domain() == f.domain() && n.op_type() == f.name(); }));
  EXPECT_EQ(found, calls);
}

}  // namespace onnxopt::testing
