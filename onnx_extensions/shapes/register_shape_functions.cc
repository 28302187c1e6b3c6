#include "onnx_extensions/shapes/register_shape_functions.h"

#include <climits>
#include <mutex>

#include "onnx_core/ir/op_schema.h"
#include "onnx_extensions/schemas/onnx_schemas_table.h"
#include "onnx_extensions/shapes/shape_groups.h"

namespace onnxopt::onnx_shapes {

void RegisterShapeFunctions() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterElementwiseShapes();
    RegisterTensorShapes();
    RegisterNnShapes();
    RegisterControlFlowShapes();
    RegisterContribShapes();
    RegisterQuantizedShapes();
    RegisterLossShapes();
    RegisterTrainingShapes();
    RegisterRandomShapes();
    RegisterVisionShapes();
    RegisterSignalShapes();
    RegisterStringShapes();
    // The signatures the shape functions rely on: what inference and the load check
    // hold nodes to.
    core::ir::RegisterOpSchemas(onnx_schemas::OnnxOpSchemas());
    // onnxruntime's own operators in the ai.onnx domain (contrib_shapes.cc, nn_shapes.cc
    // infer them): refusing them would refuse models onnxruntime runs.
    core::ir::RegisterOperatorExtension("", "SimplifiedLayerNormalization", 1, INT_MAX);
    core::ir::RegisterOperatorExtension("", "LayerNormalization", 1, 16);
    // The specification deprecated GroupNormalization-18 in place (version 21 changed its
    // scale and bias from per group to per channel), so models importing opsets 18 to 20
    // that use it break no rule onnxruntime applies: it runs them, and so does our kernel.
    core::ir::RegisterOperatorExtension("", "GroupNormalization", 18, 20);
  });
}

}  // namespace onnxopt::onnx_shapes
