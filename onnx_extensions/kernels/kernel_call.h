#pragma once
// Calls another registered kernel of the default domain from inside a kernel, so that an
// operator defined in terms of another one reuses its code instead of repeating it: the
// quantized convolutions run Conv on their zero-point-shifted inputs (window, padding and
// attribute checks included), float8 values are decoded and encoded by Cast.
//
//   Tensor y = CallKernel("Cast", {MakeIntAttribute("to", TensorProto::FLOAT)}, {x})[0];
//
// The callee sees a node of op type `op_type` with the given attributes, one input per
// value and `outputs` outputs; it cannot run subgraphs. Its ModelErrors propagate (the
// evaluator names the calling node).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::onnx_kernels {

std::vector<core::eval::Value> CallKernel(std::string_view op_type, const std::vector<AttributeProto>& attributes,
                                          std::vector<core::eval::Value> inputs, std::int64_t opset_version,
                                          std::size_t outputs = 1);

AttributeProto MakeIntAttribute(const std::string& name, std::int64_t value);

}  // namespace onnxopt::onnx_kernels
