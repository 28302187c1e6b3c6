#include "onnx_core/ir/tensor_data.h"

#include <unistd.h>

#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"

namespace onnxopt::core::ir {
namespace {

constexpr int kInt4 = 22;
constexpr int kFloat8E4M3FN = 17;
constexpr int kFloat8E8M0 = 24;

TensorProto MakeTensor(int elem_type, std::initializer_list<std::int64_t> dims) {
  TensorProto tensor;
  tensor.set_name("t");
  tensor.set_data_type(elem_type);
  for (std::int64_t dim : dims) tensor.add_dims(dim);
  return tensor;
}

template <typename T>
std::string Bytes(std::initializer_list<T> values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), std::data(values), bytes.size());
  return bytes;
}

TEST(TensorDataTest, ElementTypeNamesIncludeTypesNewerThanOnnx112) {
  EXPECT_EQ(ElementTypeName(TensorProto::FLOAT), "FLOAT");
  EXPECT_EQ(ElementTypeName(TensorProto::BFLOAT16), "BFLOAT16");
  EXPECT_EQ(ElementTypeName(kFloat8E4M3FN), "FLOAT8E4M3FN");
  EXPECT_EQ(ElementTypeName(kInt4), "INT4");
  EXPECT_EQ(ElementTypeName(kFloat8E8M0), "FLOAT8E8M0");
  EXPECT_EQ(ElementTypeName(99), "UNDEFINED(99)");
  EXPECT_EQ(ElementTypeName(-1), "UNDEFINED(-1)");
}

TEST(TensorDataTest, ElementBits) {
  EXPECT_EQ(ElementBits(TensorProto::FLOAT), 32);
  EXPECT_EQ(ElementBits(TensorProto::BOOL), 8);
  EXPECT_EQ(ElementBits(TensorProto::COMPLEX128), 128);
  EXPECT_EQ(ElementBits(kInt4), 4);
  EXPECT_EQ(ElementBits(kFloat8E8M0), 8);
  EXPECT_EQ(ElementBits(TensorProto::STRING), std::nullopt);
  EXPECT_EQ(ElementBits(TensorProto::UNDEFINED), std::nullopt);
  EXPECT_EQ(ElementBits(99), std::nullopt);
}

TEST(TensorDataTest, ElementCount) {
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {2, 3})), 6);
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {})), 1);
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {0, 5})), 0);
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {2, -1})), std::nullopt);
  const std::int64_t big = std::int64_t{1} << 32;
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {big, big})), std::nullopt);
}

TEST(TensorDataTest, ElementCountOfAnEmptyShapeIsZeroWhateverTheOtherDims) {
  const std::int64_t huge = std::int64_t{1} << 62;
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {huge, 4, 0})), 0);
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {0, huge, huge})), 0);
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {huge, 4})), std::nullopt);
  EXPECT_EQ(ElementCount(MakeTensor(TensorProto::FLOAT, {0, -1})), std::nullopt);
  const std::vector<std::int64_t> dims = {3, 0, huge};
  EXPECT_EQ(ElementCount(dims), 0);
}

TEST(TensorDataTest, DataSizeMismatchComparesSizesWithoutCopying) {
  // The hostile initializer: 2^30 floats declared, 4 bytes held.
  TensorProto huge = MakeTensor(TensorProto::FLOAT, {std::int64_t{1} << 30});
  huge.set_raw_data(Bytes({1.0f}));
  EXPECT_EQ(DataSizeMismatch(huge), "declares 1073741824 elements of FLOAT (4294967296 bytes) but holds 4 bytes of data");
  EXPECT_EQ(StoredRawDataBytes(huge), 4u);
  EXPECT_EQ(RawBytes(huge), std::nullopt);

  TensorProto typed = MakeTensor(TensorProto::INT64, {3});
  typed.add_int64_data(1);
  EXPECT_EQ(DataSizeMismatch(typed), "declares 3 elements of INT64 (24 bytes) but holds 8 bytes of data");
  typed.add_int64_data(2);
  typed.add_int64_data(3);
  EXPECT_EQ(DataSizeMismatch(typed), std::nullopt);

  TensorProto complex = MakeTensor(TensorProto::COMPLEX64, {1});  // two floats per element
  complex.add_float_data(1.0f);
  EXPECT_NE(DataSizeMismatch(complex), std::nullopt);
  complex.add_float_data(2.0f);
  EXPECT_EQ(DataSizeMismatch(complex), std::nullopt);

  TensorProto strings = MakeTensor(TensorProto::STRING, {std::int64_t{1} << 40});
  strings.add_string_data("a");
  EXPECT_EQ(DataSizeMismatch(strings), "declares 1099511627776 elements of STRING but holds 1 strings");

  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_EQ(DataSizeMismatch(MakeTensor(TensorProto::FLOAT, {big, big})),
            "declares more elements than int64 can count");
  EXPECT_EQ(DataSizeMismatch(MakeTensor(TensorProto::FLOAT, {2, -3})), "has a negative dimension (-3)");
  EXPECT_EQ(DataSizeMismatch(MakeTensor(TensorProto::FLOAT, {0, big, big})), std::nullopt);

  TensorProto external = MakeTensor(TensorProto::FLOAT, {big});
  external.set_data_location(TensorProto::EXTERNAL);
  EXPECT_EQ(DataSizeMismatch(external), std::nullopt);  // checked when loaded
}

// Restores the process-wide limit on tensor sizes when a test ends.
class TensorLimitTest : public ::testing::Test {
 protected:
  void TearDown() override { SetMaxTensorBytes(0); }
};

TEST_F(TensorLimitTest, DefaultIsAQuarterOfThePhysicalMemory) {
  const std::uint64_t physical =
      static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(DefaultMaxTensorBytes(), physical / 4);
  EXPECT_EQ(MaxTensorBytes(), DefaultMaxTensorBytes());
  SetMaxTensorBytes(1000);
  EXPECT_EQ(MaxTensorBytes(), 1000u);
  SetMaxTensorBytes(0);
  EXPECT_EQ(MaxTensorBytes(), DefaultMaxTensorBytes());
}

TEST_F(TensorLimitTest, ProblemGivesTheSizeTheLimitAndHowToRaiseIt) {
  SetMaxTensorBytes(1000);
  EXPECT_EQ(TensorSizeProblem(1000, "tensor float[250]"), std::nullopt);
  const std::optional<std::string> problem = TensorSizeProblem(8000000000, "tensor float[2000000000]");
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "tensor float[2000000000] needs 8000000000 bytes (7.5 GiB), more than the limit on tensor sizes of 1000 "
            "bytes (by default a quarter of the physical memory; raise it with the option --max-tensor-bytes, or "
            "onnxopt.set_max_tensor_bytes in Python)");
  EXPECT_NE(TensorSizeProblem(std::nullopt, "tensor x")->find("needs more than 2^64 bytes"), std::string::npos);
  EXPECT_THROW(CheckTensorBytes(1001, "tensor x"), ModelError);
  EXPECT_NO_THROW(CheckTensorBytes(999, "tensor x"));
}

TEST_F(TensorLimitTest, ScopedLimitLowersNeverRaisesAndTellsItWasHit) {
  SetMaxTensorBytes(1000);
  {
    ScopedTensorLimit outer(100, "the outer limit");
    EXPECT_EQ(MaxTensorBytes(), 100u);
    {
      ScopedTensorLimit inner(5000, "the inner limit");
      EXPECT_EQ(MaxTensorBytes(), 100u);
      EXPECT_EQ(inner.refused_bytes(), std::nullopt);
      EXPECT_EQ(TensorSizeProblem(200, "tensor t"), "tensor t needs 200 bytes, more than the outer limit of 100 bytes");
      EXPECT_EQ(inner.refused_bytes(), 200u);
    }
    EXPECT_EQ(outer.refused_bytes(), std::nullopt);
    EXPECT_EQ(TensorSizeProblem(std::nullopt, "tensor t"),
              "tensor t needs more than 2^64 bytes, more than the outer limit of 100 bytes");
    EXPECT_EQ(outer.refused_bytes(), UINT64_MAX);
  }
  EXPECT_EQ(MaxTensorBytes(), 1000u);
  ScopedTensorLimit above(1 << 20, "a limit above the global one");
  EXPECT_EQ(MaxTensorBytes(), 1000u);
  EXPECT_NE(TensorSizeProblem(2000, "tensor t")->find("the limit on tensor sizes of 1000 bytes"), std::string::npos);
}

TEST(TensorDataTest, RawDataBytesPacksSubByteTypes) {
  EXPECT_EQ(RawDataBytes(MakeTensor(TensorProto::FLOAT, {2, 3})), 24u);
  EXPECT_EQ(RawDataBytes(MakeTensor(kInt4, {3})), 2u);
  EXPECT_EQ(RawDataBytes(MakeTensor(TensorProto::STRING, {3})), std::nullopt);
  EXPECT_EQ(RawDataBytes(MakeTensor(TensorProto::FLOAT, {-2})), std::nullopt);
}

TEST(TensorDataTest, RawBytesReturnsRawData) {
  TensorProto tensor = MakeTensor(TensorProto::FLOAT, {2});
  tensor.set_raw_data(Bytes({1.0f, 2.0f}));
  EXPECT_EQ(RawBytes(tensor), Bytes({1.0f, 2.0f}));
}

TEST(TensorDataTest, RawBytesConvertsTypedFields) {
  TensorProto floats = MakeTensor(TensorProto::FLOAT, {2});
  floats.add_float_data(1.5f);
  floats.add_float_data(-2.0f);
  EXPECT_EQ(RawBytes(floats), Bytes({1.5f, -2.0f}));

  TensorProto int64s = MakeTensor(TensorProto::INT64, {2});
  int64s.add_int64_data(-7);
  int64s.add_int64_data(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(RawBytes(int64s), Bytes<std::int64_t>({-7, std::numeric_limits<std::int64_t>::max()}));

  TensorProto doubles = MakeTensor(TensorProto::COMPLEX128, {1});
  doubles.add_double_data(1.0);
  doubles.add_double_data(-1.0);
  EXPECT_EQ(RawBytes(doubles), Bytes({1.0, -1.0}));

  TensorProto uint32s = MakeTensor(TensorProto::UINT32, {2});
  uint32s.add_uint64_data(0xFFFFFFFFu);
  uint32s.add_uint64_data(3);
  EXPECT_EQ(RawBytes(uint32s), Bytes<std::uint32_t>({0xFFFFFFFFu, 3}));
}

TEST(TensorDataTest, RawBytesNarrowsInt32Data) {
  TensorProto int8s = MakeTensor(TensorProto::INT8, {3});
  for (int value : {-1, 5, -128}) int8s.add_int32_data(value);
  EXPECT_EQ(RawBytes(int8s), std::string("\xFF\x05\x80", 3));

  TensorProto halves = MakeTensor(TensorProto::FLOAT16, {2});
  halves.add_int32_data(0x3C00);  // 1.0
  halves.add_int32_data(0xC000);  // -2.0
  EXPECT_EQ(RawBytes(halves), std::string("\x00\x3C\x00\xC0", 4));

  TensorProto float8s = MakeTensor(kFloat8E4M3FN, {1});
  float8s.add_int32_data(0x38);
  EXPECT_EQ(RawBytes(float8s), std::string("\x38", 1));
}

TEST(TensorDataTest, RawBytesKeepsInt4Packed) {
  // int32_data holds one packed byte (two elements) per value.
  TensorProto tensor = MakeTensor(kInt4, {3});
  tensor.add_int32_data(0x21);
  tensor.add_int32_data(0x03);
  EXPECT_EQ(RawBytes(tensor), std::string("\x21\x03", 2));
  tensor.add_int32_data(0x04);
  EXPECT_EQ(RawBytes(tensor), std::nullopt);
}

TEST(TensorDataTest, RawBytesRejectsInconsistentTensors) {
  TensorProto short_raw = MakeTensor(TensorProto::FLOAT, {3});
  short_raw.set_raw_data(Bytes({1.0f, 2.0f}));
  EXPECT_EQ(RawBytes(short_raw), std::nullopt);

  TensorProto wrong_field = MakeTensor(TensorProto::FLOAT, {1});
  wrong_field.add_int64_data(1);
  EXPECT_EQ(RawBytes(wrong_field), std::nullopt);

  TensorProto complex_half = MakeTensor(TensorProto::COMPLEX64, {1});
  complex_half.add_float_data(1.0f);
  EXPECT_EQ(RawBytes(complex_half), std::nullopt);

  TensorProto strings = MakeTensor(TensorProto::STRING, {1});
  strings.add_string_data("a");
  EXPECT_EQ(RawBytes(strings), std::nullopt);
}

TEST(TensorDataTest, RawBytesOfEmptyTensorIsEmpty) {
  EXPECT_EQ(RawBytes(MakeTensor(TensorProto::FLOAT, {0, 4})), std::string());
}

TEST(TensorDataTest, ExternalData) {
  TensorProto tensor = MakeTensor(TensorProto::FLOAT, {1});
  tensor.set_raw_data(Bytes({1.0f}));
  EXPECT_FALSE(HasExternalData(tensor));
  EXPECT_EQ(StoredDataBytes(tensor), 4u);
  tensor.set_data_location(TensorProto::EXTERNAL);
  EXPECT_TRUE(HasExternalData(tensor));
  EXPECT_EQ(RawBytes(tensor), std::nullopt);
  EXPECT_EQ(StoredDataBytes(tensor), 0u);
}

TEST(TensorDataTest, StoredDataBytesCountsEveryField) {
  TensorProto tensor = MakeTensor(TensorProto::FLOAT, {2});
  tensor.add_float_data(1.0f);
  tensor.add_int64_data(1);
  tensor.set_raw_data("abc");
  EXPECT_EQ(StoredDataBytes(tensor), 4u + 8u + 3u);

  TensorProto strings = MakeTensor(TensorProto::STRING, {2});
  strings.add_string_data("hello");
  strings.add_string_data("");
  EXPECT_EQ(StoredDataBytes(strings), 5u);
}

}  // namespace
}  // namespace onnxopt::core::ir
