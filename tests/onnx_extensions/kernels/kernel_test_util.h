#pragma once
// The fixture of the kernel tests: parse a model written in ONNX text, register every
// kernel, run the main graph on given tensors, then compare outputs:
//
//   auto out = RunText(R"ONNX(... g (float[2] x) => (float[2] y) { y = Relu (x) })ONNX",
//                      {{"x", MakeTensor<float>({2}, {-1, 2})}});
//   ExpectTensor(out.at("y"), MakeTensor<float>({2}, {0, 2}));
//
// MakeTensor<T> builds a tensor of the element type of T (float, double, the integer
// types, bool, std::string); MakeHalf / MakeBFloat16 build float16 / bfloat16 from floats.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"

namespace onnxopt::testing {

using core::eval::Tensor;

template <class T>
constexpr int ElemTypeOf() {
  if constexpr (std::is_same_v<T, float>) return TensorProto::FLOAT;
  else if constexpr (std::is_same_v<T, double>) return TensorProto::DOUBLE;
  else if constexpr (std::is_same_v<T, std::int8_t>) return TensorProto::INT8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return TensorProto::INT16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return TensorProto::INT32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return TensorProto::INT64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return TensorProto::UINT8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return TensorProto::UINT16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return TensorProto::UINT32;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return TensorProto::UINT64;
  else if constexpr (std::is_same_v<T, bool>) return TensorProto::BOOL;
  else if constexpr (std::is_same_v<T, std::string>) return TensorProto::STRING;
  else static_assert(sizeof(T) == 0, "no element type for T");
}

template <class T>
Tensor MakeTensor(std::vector<std::int64_t> shape, std::vector<T> values) {
  Tensor t(ElemTypeOf<T>(), std::move(shape));
  EXPECT_EQ(static_cast<std::size_t>(t.size()), values.size()) << "MakeTensor: wrong number of values";
  T* data = t.MutableData<T>();
  for (std::size_t i = 0; i < values.size() && i < static_cast<std::size_t>(t.size()); ++i) data[i] = values[i];
  return t;
}
// A scalar (rank 0).
template <class T>
Tensor MakeScalar(T value) { return MakeTensor<T>({}, {value}); }
Tensor MakeHalf(std::vector<std::int64_t> shape, const std::vector<float>& values);
Tensor MakeBFloat16(std::vector<std::int64_t> shape, const std::vector<float>& values);
// A tensor of a type stored one code per byte (float8, float8e8m0, float4e2m1, int4...),
// given its codes.
Tensor MakeCodes(int elem_type, std::vector<std::int64_t> shape, const std::vector<std::uint8_t>& codes);

using Inputs = std::vector<std::pair<std::string, Tensor>>;

// Parses `text`, registers the kernels, runs the main graph; returns outputs by name.
// Fails the test (and throws) when the text does not parse; evaluation errors propagate.
core::eval::ValueMap RunText(std::string_view text, const Inputs& inputs);
// The single tensor output `name` of RunText.
Tensor RunOne(std::string_view text, const Inputs& inputs, const std::string& name = "y");
// The tensor `name` of RunText's outputs (ModelError when it is not a tensor).
const Tensor& OutputTensor(const core::eval::ValueMap& outputs, const std::string& name);

// The message of the ModelError that RunText(text, inputs) throws; "" and a test failure
// when it runs or throws something else.
std::string ModelErrorOf(std::string_view text, const Inputs& inputs);

// "<ir_version: 10, opset_import: [OPSET_IMPORTS]>\ng SIGNATURE {\nBODY\n}".
std::string GraphText(std::string_view opset_imports, std::string_view signature, std::string_view body);
// The same importing the default domain at `opset`.
std::string GraphText(int opset, std::string_view signature, std::string_view body);

// Same type, shape and values; floating values (float16/bfloat16 through float) within
// atol + rtol * |expected|, NaN equal to NaN. Prints both tensors on failure.
::testing::AssertionResult SameTensor(const Tensor& actual, const Tensor& expected, double atol = 1e-5,
                                      double rtol = 1e-5);
#define EXPECT_TENSOR(actual, expected) EXPECT_TRUE(::onnxopt::testing::SameTensor((actual), (expected)))
#define EXPECT_TENSOR_NEAR(actual, expected, atol) \
  EXPECT_TRUE(::onnxopt::testing::SameTensor((actual), (expected), (atol), 0))

// "float[2,3] {1, 2, ...}".
std::string TensorToString(const Tensor& t);

// Runs `run` in a child process whose address space may grow by `bytes` at most, so that a
// kernel that allocates far beyond its tensors fails there (std::bad_alloc) instead of
// taking the machine's memory; `run` returns what went wrong, empty when nothing did.
// Memory that the limit on tensor sizes does not see cannot be told apart otherwise.
// Skipped under AddressSanitizer, which reserves terabytes of address space.
void ExpectWithinMemory(std::uint64_t bytes, const std::function<std::string()>& run);

}  // namespace onnxopt::testing
