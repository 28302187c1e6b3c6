#pragma once
// Registration entry points of the shape-function groups, one per source file.
// Only register_shape_functions.cc calls them.

namespace onnxopt::onnx_shapes {

void RegisterElementwiseShapes();   // elementwise_shapes.cc
void RegisterTensorShapes();        // tensor_shapes.cc
void RegisterNnShapes();            // nn_shapes.cc
void RegisterControlFlowShapes();   // control_flow_shapes.cc
void RegisterContribShapes();       // contrib_shapes.cc (com.microsoft)
void RegisterSignalShapes();        // signal_shapes.cc
void RegisterStringShapes();        // string_shapes.cc

}  // namespace onnxopt::onnx_shapes
