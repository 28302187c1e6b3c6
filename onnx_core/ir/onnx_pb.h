#pragma once
// The one include for ONNX protobuf classes (onnx 1.12, built with ONNX_ML=1, namespace onnx).

#include <onnx/onnx_pb.h>

namespace onnxopt {
using onnx::AttributeProto;
using onnx::FunctionProto;
using onnx::GraphProto;
using onnx::ModelProto;
using onnx::NodeProto;
using onnx::OperatorSetIdProto;
using onnx::SparseTensorProto;
using onnx::TensorProto;
using onnx::TypeProto;
using onnx::ValueInfoProto;
}  // namespace onnxopt
