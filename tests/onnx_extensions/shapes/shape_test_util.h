#pragma once
// The fixture of the shape-function tests: parse a model written in ONNX text, register
// the shape functions, infer the main graph, then look at values compactly:
//
//   auto shapes = InferText(R"ONNX(... g (float[batch,seq,64] x) => (...) { ... })ONNX");
//   EXPECT_EQ(shapes.Get("y"), "float[batch,8,8*seq]");
//   EXPECT_EQ(shapes.Get("s"), "int64[3] = [batch,seq,64]");
//   EXPECT_THAT(shapes.Diagnostics(), ElementsAre(HasSubstr("incompatible broadcast")));
//
// Get() is SymTensor::ToString(); SameDims() compares a shape with dims given as text
// (parsed with SymDim::Parse, "?" for unknown) so that equal expressions written
// differently match.
//
// In the ONNX text syntax `float x` is a scalar, `float[] x` has an unknown rank and
// `float[?,n] x` has rank 2 with an unknown first dim.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::testing {

class InferredShapes {
 public:
  // Parses `text`, registers every shape function and infers the main graph.
  explicit InferredShapes(std::string_view text);

  // SymTensor::ToString() of the value ("float[batch,8]", "int64[2] = [batch,8]");
  // "<not inferred>" when inference recorded nothing for it.
  std::string Get(std::string_view name) const;
  // The value's shape as text ("[batch,8]", "?" for unknown rank).
  std::string Shape(std::string_view name) const;
  // The value's SymTensor; fails the test (and throws) when it was not inferred.
  const core::shapes::SymTensor& Tensor(std::string_view name) const;
  // Whether the shape of `name` is `dims` (SymDim::Parse each, "?" = unknown dim that
  // must be unknown). Returns a gtest-friendly result with both sides on failure.
  ::testing::AssertionResult SameDims(std::string_view name, const std::vector<std::string>& dims) const;

  // Diagnostics of the main graph and nested graphs, as "node: message".
  std::vector<std::string> Diagnostics() const;

  const ModelProto& Model() const { return model_; }
  const core::shapes::ShapesContext& Context() const { return *context_; }

 private:
  ModelProto model_;
  std::unique_ptr<core::shapes::ShapesContext> context_;
};

inline InferredShapes InferText(std::string_view text) { return InferredShapes(text); }

// The message of the InvalidNodeError (InferenceContext::Refuse, type constraints) that
// inferring `text` raises; "" when the model is accepted.
std::string InferenceRefusal(std::string_view text);

}  // namespace onnxopt::testing
