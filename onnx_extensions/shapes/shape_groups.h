#pragma once
// Registration entry points of the shape-function groups, one per source file.
// Only register_shape_functions.cc calls them.

namespace onnxopt::onnx_shapes {

void RegisterElementwiseShapes();   // elementwise_shapes.cc
void RegisterTensorShapes();        // tensor_shapes.cc
void RegisterNnShapes();            // nn_shapes.cc
void RegisterControlFlowShapes();   // control_flow_shapes.cc
void RegisterContribShapes();       // contrib_shapes.cc (com.microsoft)
void RegisterQuantizedShapes();     // quantized_shapes.cc (com.microsoft quantized products)
void RegisterLossShapes();          // loss_shapes.cc
void RegisterTrainingShapes();      // training_shapes.cc (ai.onnx.preview.training)
void RegisterRandomShapes();        // random_shapes.cc
void RegisterVisionShapes();        // vision_shapes.cc: MaxRoiPool, DeformConv, ImageDecoder, FusedGemm
void RegisterSignalShapes();        // signal_shapes.cc
void RegisterStringShapes();        // string_shapes.cc

}  // namespace onnxopt::onnx_shapes
