// SequenceMap: the body runs per position of the sequences; tensors are passed whole.

#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(SequenceMapKernel, IteratesSequencesAndPassesTensorsWhole) {
  // Positions: ([1,2], [10,20]) and ([3,4], [30,40]), each + w = [100, 200].
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2] a, float[2] b, float[2] c, float[2] d, float[2] w) => (float[2,2] y, int64[2,1] n) {
      s = SequenceConstruct (a, b)
      u = SequenceConstruct (c, d)
      ys, ns = SequenceMap <body = body (float[2] x0, float[2] x1, float[2] x2) => (float[2] o0, int64[1] o1) {
        t = Add (x0, x1)
        o0 = Add (t, x2)
        o1 = Shape (x0)
      }> (s, u, w)
      y = ConcatFromSequence <axis = 0, new_axis = 1> (ys)
      n = ConcatFromSequence <axis = 0, new_axis = 1> (ns)
    })ONNX",
                     {{"a", MakeTensor<float>({2}, {1, 2})},
                      {"b", MakeTensor<float>({2}, {3, 4})},
                      {"c", MakeTensor<float>({2}, {10, 20})},
                      {"d", MakeTensor<float>({2}, {30, 40})},
                      {"w", MakeTensor<float>({2}, {100, 200})}});
  EXPECT_TENSOR(OutputTensor(out, "y"), MakeTensor<float>({2, 2}, {111, 222, 133, 244}));
  EXPECT_TENSOR(OutputTensor(out, "n"), MakeTensor<std::int64_t>({2, 1}, {2, 2}));
}

TEST(SequenceMapKernel, MapsElementsOfDifferentShapesAndEmptySequences) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[5] x, int64[2] parts) => (int64[2,1] shapes, int64 empty) {
      s = SplitToSequence <axis = 0> (x, parts)
      m = SequenceMap <body = body (float[N] e) => (int64[1] o) { o = Shape (e) }> (s)
      shapes = ConcatFromSequence <axis = 0, new_axis = 1> (m)
      z = SequenceEmpty <dtype = 1> ()
      mz = SequenceMap <body = body (float[N] e) => (float[N] o) { o = Identity (e) }> (z)
      empty = SequenceLength (mz)
    })ONNX",
                     {{"x", MakeTensor<float>({5}, {1, 2, 3, 4, 5})}, {"parts", MakeTensor<std::int64_t>({2}, {3, 2})}});
  EXPECT_TENSOR(OutputTensor(out, "shapes"), MakeTensor<std::int64_t>({2, 1}, {3, 2}));
  EXPECT_TENSOR(OutputTensor(out, "empty"), MakeScalar<std::int64_t>(0));
}

TEST(SequenceMapKernel, CountsTheElementsOfItsOutputsAgainstTheLimit) {
  // The body's runs bound the positions, not the tensors the output sequences hold: 2 049
  // positions x 2 outputs at 256 bytes a tensor are just above 1 MiB; 2 048 fit.
  const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 20, "the test's limit");
  const auto model = [](int length) {
    return GraphText(18, "(uint8[" + std::to_string(length) + "] x) => (int64 n)",
                     "s = SplitToSequence <keepdims = 0> (x)\n"
                     "a, b = SequenceMap <body = body (uint8 e) => (uint8 o1, uint8 o2) { o1 = Identity (e) "
                     "o2 = Identity (e) }> (s)\n"
                     "n = SequenceLength (b)");
  };
  EXPECT_EQ(ModelErrorOf(model(2049), {{"x", Tensor(TensorProto::UINT8, {2049})}}),
            "node 'a' (SequenceMap): the 2049 x 2 elements of the output sequences needs 1049088 bytes (1.0 MiB), "
            "more than the test's limit of 1048576 bytes (1.0 MiB)");
  EXPECT_TENSOR(RunOne(model(2048), {{"x", Tensor(TensorProto::UINT8, {2048})}}, "n"), MakeScalar<std::int64_t>(2048));
}

TEST(SequenceMapKernel, RefusesATensorFirstUnequalLengthsAndMismatchedBodies) {
  const Inputs inputs{{"a", MakeTensor<float>({1}, {1})}, {"b", MakeTensor<float>({1}, {2})}};
  EXPECT_THAT(
      [&] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 17]>
          g (float[1] a, float[1] b) => (int64 n) {
            m = SequenceMap <body = body (float[1] e) => (float[1] o) { o = Identity (e) }> (a)
            n = SequenceLength (m)
          })ONNX",
                inputs);
      },
      ThrowsMessage<ModelError>(HasSubstr("node 'm' (SequenceMap): input 0 must be a sequence")));
  EXPECT_THAT(
      [&] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 17]>
          g (float[1] a, float[1] b) => (int64 n) {
            s = SequenceConstruct (a, b)
            t = SequenceConstruct (a)
            m = SequenceMap <body = body (float[1] e, float[1] f) => (float[1] o) { o = Add (e, f) }> (s, t)
            n = SequenceLength (m)
          })ONNX",
                inputs);
      },
      ThrowsMessage<ModelError>(HasSubstr("input sequence 1 has 1 elements, input 0 has 2")));
  EXPECT_THAT(
      [&] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 17]>
          g (float[1] a, float[1] b) => (int64 n) {
            s = SequenceConstruct (a, b)
            m = SequenceMap <body = body (float[1] e, float[1] f) => (float[1] o) { o = Add (e, f) }> (s)
            n = SequenceLength (m)
          })ONNX",
                inputs);
      },
      ThrowsMessage<ModelError>(HasSubstr("the body takes 2 inputs and gives 1 outputs; the node has 1 inputs")));
}

}  // namespace
}  // namespace onnxopt::testing
