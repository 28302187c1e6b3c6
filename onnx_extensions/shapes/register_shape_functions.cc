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
  });
}

}  // namespace onnxopt::onnx_shapes
