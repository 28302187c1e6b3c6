#pragma once
// Helpers of the vision, spatial, fused and image kernel tests: a one-node model whose
// signature declares the given input tensors exactly, run through the evaluator, and the
// ModelError message of a run that must fail.
//
//   Tensor y = RunNode("y = LRN <size = 3> (x)", {{"x", x}}, 13);
//   EXPECT_THAT(NodeError("y = LRN <size = 0> (x)", {{"x", x}}, 13), HasSubstr("node 'y' (LRN)"));

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {

inline std::string TextTypeName(int elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT: return "float";
    case TensorProto::DOUBLE: return "double";
    case TensorProto::FLOAT16: return "float16";
    case TensorProto::BFLOAT16: return "bfloat16";
    case TensorProto::INT8: return "int8";
    case TensorProto::INT16: return "int16";
    case TensorProto::INT32: return "int32";
    case TensorProto::INT64: return "int64";
    case TensorProto::UINT8: return "uint8";
    case TensorProto::UINT16: return "uint16";
    case TensorProto::UINT32: return "uint32";
    case TensorProto::UINT64: return "uint64";
    case TensorProto::BOOL: return "bool";
    case TensorProto::STRING: return "string";
    default: return "float";
  }
}

// A model with the single node `node` (ONNX text), its inputs declared with the types and
// shapes of `inputs`, output `y` of unknown shape and element type `output_type` (the
// first input's when 0); default domain at `opset`, com.microsoft at 1.
inline std::string NodeModel(const std::string& node, const Inputs& inputs, int opset, int output_type = 0) {
  std::string signature;
  for (const auto& [name, t] : inputs) {
    std::string dims;
    for (std::size_t i = 0; i < t.rank(); ++i) dims += (i ? "," : "") + std::to_string(t.shape()[i]);
    signature += (signature.empty() ? "" : ", ") + TextTypeName(t.elem_type()) + "[" + dims + "] " + name;
  }
  return "<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) +
         ", \"com.microsoft\" : 1]>\ng (" + signature + ") => (" +
         TextTypeName(output_type ? output_type : inputs.at(0).second.elem_type()) + "[] y) {\n" + node + "\n}";
}

inline Tensor RunNode(const std::string& node, const Inputs& inputs, int opset, int output_type = 0) {
  return RunOne(NodeModel(node, inputs, opset, output_type), inputs, "y");
}

// The message of the ModelError that running `node` throws; a test failure (and "") when
// it runs or throws something else.
inline std::string NodeError(const std::string& node, const Inputs& inputs, int opset) {
  try {
    RunText(NodeModel(node, inputs, opset), inputs);
  } catch (const ModelError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected a ModelError from '" << node << "', got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected a ModelError from '" << node << "'";
  return "";
}

// Values 0, 1, 2, ... of the given shape.
template <class T>
Tensor Iota(std::vector<std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(i);
  return MakeTensor<T>(std::move(shape), v);
}

}  // namespace onnxopt::testing
