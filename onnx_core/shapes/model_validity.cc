#include "onnx_core/shapes/model_validity.h"

#include <string>

#include "onnx_core/shapes/inference.h"
#include "onnx_core/shapes/shape_registry.h"

namespace onnxopt::core::shapes {

void ValidateModel(const ModelProto& model, std::string_view origin) {
  ShapesContext context;
  try {
    InferGraph(model, model.graph(), context);
  } catch (const InvalidNodeError& error) {
    throw ModelError(std::string(origin) + ": " + error.what());
  }
}

}  // namespace onnxopt::core::shapes
