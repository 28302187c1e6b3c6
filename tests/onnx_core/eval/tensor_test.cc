#include "onnx_core/eval/tensor.h"

#include <sys/resource.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::eval {
namespace {

using ::testing::HasSubstr;

template <class T>
Tensor Make(int elem_type, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  Tensor tensor(elem_type, std::move(shape));
  EXPECT_EQ(static_cast<std::size_t>(tensor.size()), values.size());
  std::copy(values.begin(), values.end(), tensor.MutableData<T>());
  return tensor;
}

template <class T>
void ExpectRoundTrip(int elem_type, const std::vector<T>& values) {
  const Tensor tensor = Make<T>(elem_type, {static_cast<std::int64_t>(values.size())}, values);
  const TensorProto proto = tensor.ToProto("t");
  EXPECT_EQ(proto.name(), "t");
  EXPECT_EQ(proto.data_type(), elem_type);
  const Tensor back = Tensor::FromProto(proto);
  EXPECT_TRUE(back == tensor) << "element type " << elem_type << ": " << back.Describe();
}

TEST(Tensor, ConstructorZeroFillsAndChecks) {
  Tensor tensor(TensorProto::FLOAT, {2, 3});
  EXPECT_EQ(tensor.size(), 6);
  EXPECT_EQ(tensor.ByteSize(), 24u);
  EXPECT_EQ(tensor.Describe(), "float[2,3]");
  for (int i = 0; i < 6; ++i) EXPECT_EQ(tensor.Data<float>()[i], 0.0f);
  EXPECT_EQ(Tensor(TensorProto::STRING, {2}).Data<std::string>()[1], "");
  EXPECT_EQ(Tensor(TensorProto::INT64, {}).size(), 1);
  EXPECT_EQ(Tensor(TensorProto::INT64, {0, 4}).size(), 0);
  EXPECT_THROW(Tensor(TensorProto::FLOAT, {-1}), ModelError);
  EXPECT_THROW(Tensor(0, {1}), ModelError);
  EXPECT_THROW(Tensor(TensorProto::COMPLEX64, {1}), ModelError);
  EXPECT_THROW(Tensor(TensorProto::UINT8, {1 << 20, 1 << 20}), ModelError);
  EXPECT_THROW(Tensor(TensorProto::UINT8, {std::int64_t{1} << 40, std::int64_t{1} << 40}), ModelError);
}

// The buffer is left unfilled only by ForOverwrite: memory freed dirty and allocated again
// (same size, so the allocator hands the same block back) reads as zeros.
TEST(Tensor, OnlyForOverwriteLeavesTheBufferUnfilled) {
  constexpr std::int64_t kCount = 4096;
  for (int round = 0; round < 4; ++round) {
    {
      Tensor dirty(TensorProto::INT32, {kCount});
      std::fill_n(dirty.MutableData<std::int32_t>(), kCount, -1);
    }
    Tensor fresh(TensorProto::INT32, {kCount});
    const std::int32_t* data = fresh.Data<std::int32_t>();
    EXPECT_TRUE(std::all_of(data, data + kCount, [](std::int32_t v) { return v == 0; })) << "round " << round;
  }
  Tensor unfilled = Tensor::ForOverwrite(TensorProto::INT32, {2, 3});
  EXPECT_EQ(unfilled.Describe(), "int32[2,3]");
  EXPECT_EQ(unfilled.ByteSize(), 24u);
  EXPECT_EQ(Tensor::ForOverwrite(TensorProto::STRING, {2}).Data<std::string>()[1], "") << "strings are constructed";
  EXPECT_THROW(Tensor::ForOverwrite(TensorProto::FLOAT, {-1}), ModelError) << "the constructor's checks";
}

std::string ErrorOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const ModelError& error) {
    return error.what();
  }
  return "no error";
}

// Peak resident memory of this process so far, in KiB.
long PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(Tensor, EmptyTensorsOtherDimsAreHeldToTheLimit) {
  // Kernels loop over the rows of an empty tensor: [2^40, 0] would keep one busy for hours.
  // Its other dims count as elements of one byte.
  const ir::ScopedTensorLimit limit(1 << 20, "the test's limit");
  EXPECT_EQ(Tensor(TensorProto::FLOAT, {0, 1024, 1024}).size(), 0);
  EXPECT_EQ(Tensor(TensorProto::STRING, {1 << 20, 0}).size(), 0);
  EXPECT_EQ(Tensor(TensorProto::FLOAT, {0}).Reshaped({1024, 0, 1024}).Describe(), "float[1024,0,1024]");
  const std::int64_t huge = std::int64_t{1} << 62;
  EXPECT_EQ(ErrorOf([] { Tensor(TensorProto::FLOAT, {0, 1024, 1025}); }),
            "tensor float[0,1024,1025] holds no element, but its other dimensions multiply to 1049600, more than the "
            "1048576 the limit on tensor sizes allows (kernels loop over them)");
  EXPECT_THAT(ErrorOf([&] { Tensor(TensorProto::FLOAT, {huge, 4, 0}); }), HasSubstr("multiply to more than 2^64"));
  EXPECT_THAT(ErrorOf([&] { (void)Tensor(TensorProto::FLOAT, {0}).Reshaped({huge, 4, 0}); }),
              HasSubstr("tensor float[4611686018427387904,4,0] holds no element"));
}

TEST(Tensor, OverflowingShapeSaysWhatOverflowed) {
  const std::int64_t huge = std::int64_t{1} << 62;
  EXPECT_EQ(ErrorOf([&] { Tensor(TensorProto::FLOAT, {huge, 4, 4}); }),
            "tensor float[4611686018427387904,4,4]: its number of elements (product of the dimensions) overflows int64");
}

class TensorLimitTest : public ::testing::Test {
 protected:
  void TearDown() override { ir::SetMaxTensorBytes(0); }
};

TEST_F(TensorLimitTest, ConstructorRefusesTensorsAboveTheLimit) {
  ir::SetMaxTensorBytes(4000);
  EXPECT_EQ(Tensor(TensorProto::FLOAT, {1000}).ByteSize(), 4000u);
  const std::string error = ErrorOf([] { Tensor(TensorProto::FLOAT, {1001}); });
  EXPECT_NE(error.find("tensor float[1001] needs 4004 bytes, more than the limit on tensor sizes of 4000 bytes"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("--max-tensor-bytes"), std::string::npos) << error;
  // A STRING element counts as the std::string holding it.
  EXPECT_NE(ErrorOf([] { Tensor(TensorProto::STRING, {1000}); }).find("needs 32000 bytes"), std::string::npos);
  // The default limit refuses what no machine could hold.
  ir::SetMaxTensorBytes(0);
  EXPECT_NE(ErrorOf([] { Tensor(TensorProto::FLOAT, {std::int64_t{1} << 50}); }).find("more than the limit"),
            std::string::npos);
}

TEST_F(TensorLimitTest, CheckShapeAppliesTheConstructorsChecksWithoutAllocating) {
  ir::SetMaxTensorBytes(4000);
  EXPECT_NO_THROW(Tensor::CheckShape(TensorProto::FLOAT, {1000}));
  EXPECT_NO_THROW(Tensor::CheckShape(TensorProto::FLOAT, {4000, 0}));
  EXPECT_NE(ErrorOf([] { Tensor::CheckShape(TensorProto::FLOAT, {4001, 0}); }).find("holds no element"),
            std::string::npos);
  EXPECT_EQ(ErrorOf([] { Tensor::CheckShape(TensorProto::FLOAT, {1, 1001}); }).rfind("tensor float[1,1001] needs 4004 bytes", 0),
            0u);
  EXPECT_EQ(ErrorOf([] { Tensor::CheckShape(TensorProto::INT8, {2, -1}); }),
            "negative dimension in tensor shape int8[2,-1]");
  EXPECT_EQ(ErrorOf([] { Tensor::CheckShape(TensorProto::COMPLEX64, {1}); }),
            "unsupported tensor element type COMPLEX64");
}

TEST(Tensor, FromProtoChecksTheDeclaredSizeBeforeAllocating) {
  // 2^30 floats (4 GiB) declared, 4 bytes held: refused without allocating the 4 GiB.
  TensorProto proto;
  proto.set_name("w");
  proto.set_data_type(TensorProto::FLOAT);
  proto.add_dims(std::int64_t{1} << 30);
  proto.set_raw_data(std::string(4, '\0'));
  const long rss_before = PeakRssKib();
  EXPECT_EQ(ErrorOf([&] { Tensor::FromProto(proto); }),
            "tensor 'w' declares 1073741824 elements of FLOAT (4294967296 bytes) but holds 4 bytes of data");
  EXPECT_LT(PeakRssKib() - rss_before, 64 * 1024) << "the declared size was allocated";

  TensorProto strings;
  strings.set_name("s");
  strings.set_data_type(TensorProto::STRING);
  strings.add_dims(std::int64_t{1} << 34);
  strings.add_string_data("x");
  EXPECT_EQ(ErrorOf([&] { Tensor::FromProto(strings); }),
            "tensor 's' declares 17179869184 elements of STRING but holds 1 strings");
  EXPECT_LT(PeakRssKib() - rss_before, 64 * 1024);
}

TEST(Tensor, TypedAccessChecksTheStorageType) {
  Tensor tensor(TensorProto::FLOAT, {1});
  EXPECT_THROW(tensor.Data<double>(), BuilderError);
  EXPECT_THROW(Tensor(TensorProto::STRING, {1}).RawData(), BuilderError);
  EXPECT_NO_THROW(Tensor(kInt4, {1}).Data<std::int8_t>());
}

TEST(Tensor, CopiesShareAndMutableDataClones) {
  Tensor a = Make<float>(TensorProto::FLOAT, {2}, {1, 2});
  Tensor b = a;
  b.MutableData<float>()[0] = 5;
  EXPECT_EQ(a.Data<float>()[0], 1.0f);
  EXPECT_EQ(b.Data<float>()[0], 5.0f);
  const Tensor c = a.Reshaped({1, 2});
  EXPECT_EQ(c.Data<float>(), a.Data<float>());
  EXPECT_EQ(c.Describe(), "float[1,2]");
  EXPECT_THROW(a.Reshaped({3}), ModelError);
}

TEST(Tensor, HalfConversions) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // rounds to inf
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_EQ(FloatToHalf(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0x0000);  // tie rounds to even (0)
  EXPECT_EQ(FloatToHalf(0x1.8p-24f), 0x0002);  // tie rounds to even (2)
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3C00);  // tie to even
  EXPECT_EQ(FloatToHalf(1.0f + 0x1.8p-10f), 0x3C02);  // tie to even (up)
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  const std::uint16_t nan = FloatToHalf(std::nanf(""));
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x3FF, 0);
  EXPECT_TRUE(std::isnan(HalfToFloat(nan)));
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(std::signbit(HalfToFloat(0x8000)), true);
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7C00) == 0x7C00 && (bits & 0x3FF) != 0) continue;  // NaN
    ASSERT_EQ(FloatToHalf(HalfToFloat(static_cast<std::uint16_t>(bits))), bits);
  }
}

TEST(Tensor, BFloat16Conversions) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(BFloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(FloatToBFloat16(1.0f + 0x1p-8f), 0x3F80);  // tie to even
  EXPECT_EQ(FloatToBFloat16(1.0f + 0x1.8p-7f), 0x3F82);  // tie to even (up)
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);  // overflows to inf
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(std::nanf("")))));
  // A NaN whose payload lives only in the low bits stays NaN.
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(std::bit_cast<float>(0x7F800001u)))));
}

TEST(Tensor, RoundTripsThroughProtoForEveryType) {
  ExpectRoundTrip<float>(TensorProto::FLOAT, {1.5f, -2.0f, std::numeric_limits<float>::infinity()});
  ExpectRoundTrip<double>(TensorProto::DOUBLE, {1.5, -1e300});
  ExpectRoundTrip<std::uint16_t>(TensorProto::FLOAT16, {FloatToHalf(1.5f), FloatToHalf(-3.0f)});
  ExpectRoundTrip<std::uint16_t>(TensorProto::BFLOAT16, {FloatToBFloat16(1.5f), FloatToBFloat16(-3.0f)});
  ExpectRoundTrip<std::int8_t>(TensorProto::INT8, {-128, 127, 0});
  ExpectRoundTrip<std::int16_t>(TensorProto::INT16, {-32768, 32767});
  ExpectRoundTrip<std::int32_t>(TensorProto::INT32, {-5, 1 << 30});
  ExpectRoundTrip<std::int64_t>(TensorProto::INT64, {-5, std::int64_t{1} << 60});
  ExpectRoundTrip<std::uint8_t>(TensorProto::UINT8, {0, 255});
  ExpectRoundTrip<std::uint16_t>(TensorProto::UINT16, {0, 65535});
  ExpectRoundTrip<std::uint32_t>(TensorProto::UINT32, {0, 4000000000u});
  ExpectRoundTrip<std::uint64_t>(TensorProto::UINT64, {0, ~std::uint64_t{0}});
  ExpectRoundTrip<bool>(TensorProto::BOOL, {true, false, true});
  ExpectRoundTrip<std::uint8_t>(kFloat8E4M3FN, {0x38, 0xFF});
  ExpectRoundTrip<std::uint8_t>(kFloat8E5M2, {0x3C, 0x7F});
  ExpectRoundTrip<std::int8_t>(kInt4, {-8, 7, -1});
  ExpectRoundTrip<std::uint8_t>(kUint4, {0, 15, 9, 3});
  ExpectRoundTrip<std::int8_t>(kInt2, {-2, 1, -1, 0, 1});
  ExpectRoundTrip<std::uint8_t>(kUint2, {0, 3, 2, 1, 3, 3});
  ExpectRoundTrip<std::string>(TensorProto::STRING, {"a", "", "hello"});
}

TEST(Tensor, FourBitTypesArePackedLowNibbleFirst) {
  const Tensor tensor = Make<std::int8_t>(kInt4, {3}, {-8, 7, -1});
  const TensorProto proto = tensor.ToProto("t");
  ASSERT_EQ(proto.raw_data().size(), 2u);
  EXPECT_EQ(static_cast<std::uint8_t>(proto.raw_data()[0]), 0x78);
  EXPECT_EQ(static_cast<std::uint8_t>(proto.raw_data()[1]), 0x0F);
  // int32_data holds one packed byte per value.
  TensorProto typed;
  typed.set_data_type(kInt4);
  typed.add_dims(3);
  typed.add_int32_data(0x78);
  typed.add_int32_data(0x0F);
  EXPECT_EQ(Tensor::FromProto(typed).ToInt64Vector(), (std::vector<std::int64_t>{-8, 7, -1}));
  typed.set_data_type(kUint4);
  EXPECT_EQ(Tensor::FromProto(typed).ToInt64Vector(), (std::vector<std::int64_t>{8, 7, 15}));
}

// Four to a byte, the first in the lowest two bits (opset 25).
TEST(Tensor, TwoBitTypesArePackedFourToAByteLowBitsFirst) {
  const Tensor tensor = Make<std::int8_t>(kInt2, {5}, {-2, 1, -1, 0, 1});
  const TensorProto proto = tensor.ToProto("t");
  ASSERT_EQ(proto.raw_data().size(), 2u);
  // -2 = 0b10, 1 = 0b01, -1 = 0b11, 0 = 0b00: 0b00'11'01'10; then 1.
  EXPECT_EQ(static_cast<std::uint8_t>(proto.raw_data()[0]), 0x36);
  EXPECT_EQ(static_cast<std::uint8_t>(proto.raw_data()[1]), 0x01);
  TensorProto typed;
  typed.set_data_type(kInt2);
  typed.add_dims(5);
  typed.add_int32_data(0x36);
  typed.add_int32_data(0x01);
  EXPECT_EQ(Tensor::FromProto(typed).ToInt64Vector(), (std::vector<std::int64_t>{-2, 1, -1, 0, 1}));
  typed.set_data_type(kUint2);
  EXPECT_EQ(Tensor::FromProto(typed).ToInt64Vector(), (std::vector<std::int64_t>{2, 1, 3, 0, 1}));
}

// The ranges of the 2- and 4-bit integers (int4.md and Operators.md of the specification);
// the other types have none here, the 8-bit ones included.
TEST(Tensor, SubByteIntegerRangesAreThoseOfTheirBits) {
  using Range = std::pair<std::int64_t, std::int64_t>;
  EXPECT_EQ(SubByteIntegerRange(kInt4), (Range{-8, 7}));
  EXPECT_EQ(SubByteIntegerRange(kUint4), (Range{0, 15}));
  EXPECT_EQ(SubByteIntegerRange(kInt2), (Range{-2, 1}));
  EXPECT_EQ(SubByteIntegerRange(kUint2), (Range{0, 3}));
  EXPECT_EQ(SubByteIntegerRange(kFloat4E2M1), std::nullopt);
  EXPECT_EQ(SubByteIntegerRange(TensorProto::INT8), std::nullopt);
  EXPECT_EQ(SubByteIntegerRange(TensorProto::FLOAT), std::nullopt);
}

TEST(Tensor, FromProtoReadsTypedFields) {
  TensorProto proto;
  proto.set_name("w");
  proto.set_data_type(TensorProto::FLOAT16);
  proto.add_dims(2);
  proto.add_int32_data(FloatToHalf(1.0f));
  proto.add_int32_data(FloatToHalf(-2.5f));
  EXPECT_EQ(Tensor::FromProto(proto).ToDoubleVector(), (std::vector<double>{1.0, -2.5}));

  proto.clear_int32_data();
  proto.set_data_type(TensorProto::UINT32);
  proto.add_uint64_data(7);
  proto.add_uint64_data(4000000000u);
  EXPECT_EQ(Tensor::FromProto(proto).ToInt64Vector(), (std::vector<std::int64_t>{7, 4000000000}));

  proto.clear_uint64_data();
  proto.set_data_type(TensorProto::BOOL);
  proto.add_int32_data(1);
  proto.add_int32_data(0);
  EXPECT_EQ(Tensor::FromProto(proto).ToInt64Vector(), (std::vector<std::int64_t>{1, 0}));

  proto.clear_int32_data();
  proto.set_data_type(TensorProto::INT8);
  proto.add_int32_data(-3);
  proto.add_int32_data(100);
  EXPECT_EQ(Tensor::FromProto(proto).ToInt64Vector(), (std::vector<std::int64_t>{-3, 100}));

  proto.clear_int32_data();
  proto.set_data_type(TensorProto::DOUBLE);
  proto.add_double_data(0.5);
  proto.add_double_data(2.75);
  EXPECT_EQ(Tensor::FromProto(proto).ToInt64Vector(), (std::vector<std::int64_t>{0, 2}));
}

TEST(Tensor, FromProtoRejectsInconsistentData) {
  TensorProto proto;
  proto.set_name("w");
  proto.set_data_type(TensorProto::FLOAT);
  proto.add_dims(3);
  proto.add_float_data(1.0f);
  try {
    Tensor::FromProto(proto);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& error) {
    EXPECT_NE(std::string(error.what()).find("'w'"), std::string::npos) << error.what();
  }
  proto.clear_float_data();
  proto.set_data_location(TensorProto::EXTERNAL);
  try {
    Tensor::FromProto(proto);
    FAIL() << "expected a ModelError";
  } catch (const ModelError& error) {
    EXPECT_NE(std::string(error.what()).find("'w' has external data"), std::string::npos) << error.what();
  }
  TensorProto strings;
  strings.set_data_type(TensorProto::STRING);
  strings.add_dims(2);
  strings.add_string_data("x");
  EXPECT_THROW(Tensor::FromProto(strings), ModelError);
}

TEST(Tensor, ConvertsToInt64AndDouble) {
  EXPECT_EQ(Make<float>(TensorProto::FLOAT, {3}, {1.9f, -1.9f, NAN}).ToInt64Vector(),
            (std::vector<std::int64_t>{1, -1, 0}));
  EXPECT_EQ(Make<std::uint16_t>(TensorProto::BFLOAT16, {1}, {FloatToBFloat16(3.0f)}).ToDoubleVector(),
            (std::vector<double>{3.0}));
  EXPECT_EQ(Make<bool>(TensorProto::BOOL, {2}, {true, false}).ToDoubleVector(), (std::vector<double>{1.0, 0.0}));
  EXPECT_THROW(Make<std::string>(TensorProto::STRING, {1}, {"a"}).ToInt64Vector(), ModelError);
}

// float4e2m1 (float4.md): S.EE.M, bias 1, no infinity or NaN; float8e8m0 (float8.md):
// 2^(code - 127), 0xFF is NaN. Comparing or printing such outputs reads them as numbers.
TEST(Tensor, ConvertsFloat4AndFloat8E8M0CodesToNumbers) {
  std::vector<std::uint8_t> codes(16);
  for (std::size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<std::uint8_t>(i);
  EXPECT_EQ(Make<std::uint8_t>(kFloat4E2M1, {16}, codes).ToDoubleVector(),
            (std::vector<double>{0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6}));
  EXPECT_TRUE(std::signbit(Make<std::uint8_t>(kFloat4E2M1, {1}, {0x8}).ToDoubleVector()[0]));
  EXPECT_EQ(Make<std::uint8_t>(kFloat4E2M1, {2}, {0x7, 0xD}).ToInt64Vector(), (std::vector<std::int64_t>{6, -3}));
  const std::vector<double> e8m0 =
      Make<std::uint8_t>(kFloat8E8M0, {5}, {0, 126, 127, 254, 255}).ToDoubleVector();
  EXPECT_EQ(e8m0[0], std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0[1], 0.5);
  EXPECT_EQ(e8m0[2], 1.0);
  EXPECT_EQ(e8m0[3], std::ldexp(1.0, 127));
  EXPECT_TRUE(std::isnan(e8m0[4]));
}

TEST(Tensor, ConvertsARangeOfElementsToDouble) {
  const Tensor half = Make<std::uint16_t>(TensorProto::FLOAT16, {2, 2},
                                          {FloatToHalf(1), FloatToHalf(-2), FloatToHalf(0.5f), FloatToHalf(4)});
  EXPECT_EQ(half.ToDoubleVector(1, 2), (std::vector<double>{-2.0, 0.5}));
  EXPECT_EQ(half.ToDoubleVector(4, 0), (std::vector<double>{}));
  const Tensor ints = Make<std::int32_t>(TensorProto::INT32, {3}, {7, 8, 9});
  EXPECT_EQ(ints.ToDoubleVector(2, 1), (std::vector<double>{9.0}));
  EXPECT_THROW(ints.ToDoubleVector(2, 2), BuilderError);
  EXPECT_THROW(ints.ToDoubleVector(-1, 1), BuilderError);
  EXPECT_THROW(ints.ToDoubleVector(0, -1), BuilderError);
  EXPECT_THROW(Make<std::string>(TensorProto::STRING, {1}, {"a"}).ToDoubleVector(0, 0), ModelError);
}

TEST(Tensor, EqualityComparesTypeShapeAndBytes) {
  const Tensor a = Make<float>(TensorProto::FLOAT, {2}, {1, 2});
  EXPECT_TRUE(a == Make<float>(TensorProto::FLOAT, {2}, {1, 2}));
  EXPECT_FALSE(a == Make<float>(TensorProto::FLOAT, {2}, {1, 3}));
  EXPECT_FALSE(a == a.Reshaped({1, 2}));
  EXPECT_FALSE(a == Make<std::int32_t>(TensorProto::INT32, {2}, {1, 2}));
  const Tensor nan = Make<float>(TensorProto::FLOAT, {1}, {NAN});
  EXPECT_TRUE(nan == nan);
}

TEST(Tensor, AsTensorNamesWhatIsWrong) {
  const Value tensor = Tensor(TensorProto::FLOAT, {1});
  EXPECT_EQ(AsTensor(tensor, "x").Describe(), "float[1]");
  try {
    AsTensor(Value(Sequence{}), "input 'x'");
    FAIL();
  } catch (const ModelError& error) {
    EXPECT_EQ(std::string(error.what()), "input 'x' is a sequence, expected a tensor");
  }
  EXPECT_THROW(AsTensor(Value(NoValue{}), "y"), ModelError);
}

}  // namespace
}  // namespace onnxopt::core::eval
