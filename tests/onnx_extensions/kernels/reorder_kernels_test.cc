// ReverseSequence and Unique: the spec's examples, NumPy's conventions for NaN and signed
// zeros, empty inputs, and the validation of attributes and inputs.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

Tensor Iota(std::vector<std::int64_t> shape) {
  Tensor t(TensorProto::FLOAT, std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) t.MutableData<float>()[i] = static_cast<float>(i);
  return t;
}

// ReverseSequence -----------------------------------------------------------------------

TEST(ReverseSequenceKernel, ReversesPrefixesAlongTheTimeAxis) {
  // The spec's example 1: time axis 0, batch axis 1, lengths [4, 3, 2, 1].
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (float[4,4] x, int64[4] l) => (float[4,4] y) { y = ReverseSequence <time_axis = 0, batch_axis = 1> (x, l) })ONNX",
                  {{"x", MakeTensor<float>({4, 4}, {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15})},
                   {"l", MakeTensor<std::int64_t>({4}, {4, 3, 2, 1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({4, 4}, {3, 6, 9, 12, 2, 5, 8, 13, 1, 4, 10, 14, 0, 7, 11, 15}));
  // Example 2 with trailing dimensions and strings: batch axis 0, time axis 1, lengths [1, 0, 2].
  auto s = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (string[3,2,1] x, int64[3] l) => (string[3,2,1] y) { y = ReverseSequence <time_axis = 1, batch_axis = 0> (x, l) })ONNX",
                  {{"x", MakeTensor<std::string>({3, 2, 1}, {"a", "b", "c", "d", "e", "f"})},
                   {"l", MakeTensor<std::int64_t>({3}, {1, 0, 2})}});
  EXPECT_TENSOR(s, MakeTensor<std::string>({3, 2, 1}, {"a", "b", "c", "d", "f", "e"}));
}

TEST(ReverseSequenceKernel, RefusesBadAxesAndLengths) {
  const auto run = [](const std::string& attributes, const Tensor& lengths) {
    return [=] {
      RunText("<ir_version: 8, opset_import: [\"\" : 10]>\ng (float[2,3] x, int64[" + std::to_string(lengths.size()) +
                  "] l) => (float[2,3] y) { y = ReverseSequence <" + attributes + "> (x, l) }",
              {{"x", Iota({2, 3})}, {"l", lengths}});
    };
  };
  // batch axis 1 (size 3), time axis 0 (size 2).
  EXPECT_THAT(run("batch_axis = 1", MakeTensor<std::int64_t>({3}, {1, 3, 0})),
              ThrowsMessage<ModelError>(HasSubstr(
                  "node 'y' (ReverseSequence): sequence_lens value 3 at index 1 is out of range [0, 2] (the time axis)")));
  EXPECT_THAT(run("batch_axis = 1", MakeTensor<std::int64_t>({3}, {1, -1, 0})),
              ThrowsMessage<ModelError>(HasSubstr("sequence_lens value -1 at index 1 is out of range")));
  EXPECT_THAT(run("batch_axis = 1", MakeTensor<std::int64_t>({2}, {1, 1})),
              ThrowsMessage<ModelError>(HasSubstr("sequence_lens must be a 1-D tensor of batch_size=3 elements")));
  EXPECT_THAT(run("batch_axis = 0, time_axis = 0", MakeTensor<std::int64_t>({2}, {1, 1})),
              ThrowsMessage<ModelError>(HasSubstr("batch_axis and time_axis must be 0 and 1 in some order")));
  EXPECT_THAT(run("batch_axis = 2", MakeTensor<std::int64_t>({2}, {1, 1})),
              ThrowsMessage<ModelError>(HasSubstr("found batch_axis=2, time_axis=0")));
}

TEST(ReverseSequenceKernel, ReturnsAnEmptyInputAsIs) {
  // No element: nothing to move, whatever the lengths.
  Tensor x(TensorProto::FLOAT, {3, std::int64_t{1} << 20, 0});
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (float[3,N,0] x, int64[3] l) => (float[3,N,0] y) { y = ReverseSequence <batch_axis = 0, time_axis = 1> (x, l) })ONNX",
                  {{"x", x}, {"l", MakeTensor<std::int64_t>({3}, {1, 5, std::int64_t{1} << 20})}});
  EXPECT_EQ(y.shape(), x.shape());
}

// Unique ------------------------------------------------------------------------------------

std::string UniqueModel(const std::string& attributes, const std::string& input_type) {
  return "<ir_version: 8, opset_import: [\"\" : 11]>\ng (" + input_type +
         " x) => (y, int64[K] i, int64[L] v, int64[K] c) { y, i, v, c = Unique" +
         (attributes.empty() ? "" : " <" + attributes + ">") + " (x) }";
}

TEST(UniqueKernel, ReturnsAllFourOutputsSortedOrInOrderOfFirstOccurrence) {
  // The spec's example 1 (unsorted) and 2 (sorted).
  auto unsorted = RunText(UniqueModel("sorted = 0", "float[6]"), {{"x", MakeTensor<float>({6}, {2, 1, 1, 3, 4, 3})}});
  EXPECT_TENSOR(OutputTensor(unsorted, "y"), MakeTensor<float>({4}, {2, 1, 3, 4}));
  EXPECT_TENSOR(OutputTensor(unsorted, "i"), MakeTensor<std::int64_t>({4}, {0, 1, 3, 4}));
  EXPECT_TENSOR(OutputTensor(unsorted, "v"), MakeTensor<std::int64_t>({6}, {0, 1, 1, 2, 3, 2}));
  EXPECT_TENSOR(OutputTensor(unsorted, "c"), MakeTensor<std::int64_t>({4}, {1, 2, 2, 1}));
  auto sorted = RunText(UniqueModel("sorted = 1", "int32[2,2]"), {{"x", MakeTensor<std::int32_t>({2, 2}, {1, 3, 2, 3})}});
  EXPECT_TENSOR(OutputTensor(sorted, "y"), MakeTensor<std::int32_t>({3}, {1, 2, 3}));
  EXPECT_TENSOR(OutputTensor(sorted, "i"), MakeTensor<std::int64_t>({3}, {0, 2, 1}));
  EXPECT_TENSOR(OutputTensor(sorted, "v"), MakeTensor<std::int64_t>({4}, {0, 2, 1, 2}));
  EXPECT_TENSOR(OutputTensor(sorted, "c"), MakeTensor<std::int64_t>({3}, {1, 1, 2}));
}

TEST(UniqueKernel, ComparesSlicesAlongAnAxis) {
  // The spec's example 4: slices along axis 1 of [2, 4, 2], sorted lexicographically.
  auto out = RunText(UniqueModel("axis = -2", "float[2,4,2]"),
                     {{"x", MakeTensor<float>({2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1})}});
  EXPECT_TENSOR(OutputTensor(out, "y"), MakeTensor<float>({2, 3, 2}, {0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
  EXPECT_TENSOR(OutputTensor(out, "i"), MakeTensor<std::int64_t>({3}, {1, 0, 2}));
  EXPECT_TENSOR(OutputTensor(out, "v"), MakeTensor<std::int64_t>({4}, {1, 0, 2, 0}));
  EXPECT_TENSOR(OutputTensor(out, "c"), MakeTensor<std::int64_t>({3}, {2, 1, 1}));
  // Unsorted along axis 0 of float16 rows.
  auto rows = RunText(UniqueModel("axis = 0, sorted = 0", "float16[3,2]"), {{"x", MakeHalf({3, 2}, {2, 1, 1, 0, 2, 1})}});
  EXPECT_TENSOR(OutputTensor(rows, "y"), MakeHalf({2, 2}, {2, 1, 1, 0}));
  EXPECT_TENSOR(OutputTensor(rows, "v"), MakeTensor<std::int64_t>({3}, {0, 1, 0}));
}

TEST(UniqueKernel, GroupsNaNsAndSignedZerosLikeNumPy) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = RunText(UniqueModel("", "float[5]"), {{"x", MakeTensor<float>({5}, {nan, 1, nan, -0.0f, 0.0f})}});
  // Sorted: -0 (first of the zeros), 1, then the NaNs as one value.
  const Tensor& y = OutputTensor(out, "y");
  ASSERT_EQ(y.shape(), (std::vector<std::int64_t>{3}));
  EXPECT_TRUE(std::signbit(y.Data<float>()[0]));
  EXPECT_EQ(y.Data<float>()[1], 1);
  EXPECT_TRUE(std::isnan(y.Data<float>()[2]));
  EXPECT_TENSOR(OutputTensor(out, "i"), MakeTensor<std::int64_t>({3}, {3, 1, 0}));
  EXPECT_TENSOR(OutputTensor(out, "v"), MakeTensor<std::int64_t>({5}, {2, 1, 2, 0, 0}));
  EXPECT_TENSOR(OutputTensor(out, "c"), MakeTensor<std::int64_t>({3}, {2, 1, 2}));
}

TEST(UniqueKernel, HandlesStringsAndEmptySlices) {
  auto strings = RunText(UniqueModel("sorted = 0", "string[3]"), {{"x", MakeTensor<std::string>({3}, {"b", "a", "b"})}});
  EXPECT_TENSOR(OutputTensor(strings, "y"), MakeTensor<std::string>({2}, {"b", "a"}));
  // Three empty rows are one unique row (as in NumPy).
  auto empty = RunText(UniqueModel("axis = 0", "float[3,0]"), {{"x", Tensor(TensorProto::FLOAT, {3, 0})}});
  EXPECT_EQ(OutputTensor(empty, "y").shape(), (std::vector<std::int64_t>{1, 0}));
  EXPECT_TENSOR(OutputTensor(empty, "v"), MakeTensor<std::int64_t>({3}, {0, 0, 0}));
  EXPECT_TENSOR(OutputTensor(empty, "c"), MakeTensor<std::int64_t>({1}, {3}));
  // No element at all.
  auto none = RunText(UniqueModel("", "float[0]"), {{"x", Tensor(TensorProto::FLOAT, {0})}});
  EXPECT_EQ(OutputTensor(none, "y").shape(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(OutputTensor(none, "c").shape(), (std::vector<std::int64_t>{0}));
}

TEST(UniqueKernel, RefusesBadAxisAndSorted) {
  EXPECT_THAT([] { RunText(UniqueModel("axis = 2", "float[2,2]"), {{"x", Iota({2, 2})}}); },
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (Unique): axis 2 is out of range for rank 2")));
  EXPECT_THAT([] { RunText(UniqueModel("sorted = 2", "float[2,2]"), {{"x", Iota({2, 2})}}); },
              ThrowsMessage<ModelError>(HasSubstr("sorted must be 0 or 1, found 2")));
}

}  // namespace
}  // namespace onnxopt::testing
