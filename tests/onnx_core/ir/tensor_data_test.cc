#include "onnx_core/ir/tensor_data.h"

#include <cstring>
#include <limits>

#include <gtest/gtest.h>

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
