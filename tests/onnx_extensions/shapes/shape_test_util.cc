#include "tests/onnx_extensions/shapes/shape_test_util.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

InferredShapes::InferredShapes(std::string_view text)
    : model_(ParseText(text)), context_(std::make_unique<core::shapes::ShapesContext>()) {
  onnx_shapes::RegisterShapeFunctions();
  core::shapes::InferGraph(model_, model_.graph(), *context_);
}

std::string InferredShapes::Get(std::string_view name) const {
  const auto* t = context_->Find(name);
  return t ? t->ToString() : "<not inferred>";
}

std::string InferredShapes::Shape(std::string_view name) const {
  const auto* t = context_->Find(name);
  return t ? t->shape.ToString() : "<not inferred>";
}

const core::shapes::SymTensor& InferredShapes::Tensor(std::string_view name) const {
  const auto* t = context_->Find(name);
  if (!t) {
    ADD_FAILURE() << "value '" << name << "' was not inferred";
    throw std::runtime_error("value '" + std::string(name) + "' was not inferred");
  }
  return *t;
}

::testing::AssertionResult InferredShapes::SameDims(std::string_view name, const std::vector<std::string>& dims) const {
  std::string expected = "[";
  for (std::size_t k = 0; k < dims.size(); ++k) expected += (k ? "," : "") + dims[k];
  expected += "]";
  const auto* t = context_->Find(name);
  if (!t) return ::testing::AssertionFailure() << "value '" << name << "' was not inferred";
  const auto& shape = t->shape;
  auto failure = [&] {
    return ::testing::AssertionFailure() << "shape of '" << name << "' is " << shape.ToString() << ", expected "
                                         << expected;
  };
  if (!shape.HasRank() || shape.Rank() != dims.size()) return failure();
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const auto& actual = shape[k];
    if (dims[k] == "?") {
      if (!actual.IsUnknown()) return failure();
    } else if (!(actual == core::shapes::SymDim::Parse(dims[k]))) {
      return failure();
    }
  }
  return ::testing::AssertionSuccess();
}

std::string InferenceRefusal(std::string_view text) {
  try {
    InferredShapes shapes(text);
  } catch (const core::shapes::InvalidNodeError& error) {
    return error.what();
  }
  return "";
}

std::vector<std::string> InferredShapes::Diagnostics() const {
  // Nested graphs and local functions share the root context's list.
  std::vector<std::string> out;
  for (const auto& d : context_->Diagnostics()) out.push_back(d.node + ": " + d.message);
  return out;
}

}  // namespace onnxopt::testing
