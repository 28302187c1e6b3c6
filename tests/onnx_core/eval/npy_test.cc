// .npy reading and writing: round trips of every dtype, the exact NumPy header layout,
// and hostile files (each rejected with a ModelError naming the file).

#include "onnx_core/eval/npy.h"

#include <sys/stat.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::eval::Tensor;
using core::eval::ReadNpy;
using core::eval::WriteNpy;

template <class T>
Tensor MakeTensor(int elem_type, std::vector<std::int64_t> shape, const std::vector<T>& values) {
  Tensor tensor(elem_type, std::move(shape));
  T* data = tensor.MutableData<T>();
  for (std::size_t i = 0; i < values.size(); ++i) data[i] = values[i];
  return tensor;
}

// A version 1.0 file with the given header dictionary (padded like NumPy) and data.
std::string NpyBytes(const std::string& dict, const std::string& data, char major = 1) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += major;
  out += '\0';
  out += static_cast<char>(header.size() & 0xFF);
  out += static_cast<char>(header.size() >> 8);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

class NpyTest : public ::testing::Test {
 protected:
  Tensor RoundTrip(const Tensor& tensor, bool expect_native = true) {
    EXPECT_EQ(WriteNpy(tensor, dir_ / "t.npy"), expect_native);
    return ReadNpy(dir_ / "t.npy");
  }
  // Reading `bytes` fails with an InputFileError naming the file and containing `expected`.
  void ExpectRejected(const std::string& bytes, const std::string& expected) {
    WriteFile(dir_ / "bad.npy", bytes);
    try {
      ReadNpy(dir_ / "bad.npy");
      ADD_FAILURE() << "accepted a file that should fail with '" << expected << "'";
    } catch (const InputFileError& error) {
      const std::string message = error.what();
      EXPECT_TRUE(message.starts_with("invalid input file '" + (dir_ / "bad.npy").string() + "': ")) << message;
      EXPECT_NE(message.find(expected), std::string::npos) << "expected '" << expected << "' in: " << message;
    }
  }
  TempDir dir_;
};

TEST_F(NpyTest, RoundTripsEveryNumericType) {
  const std::vector<Tensor> tensors = {
      MakeTensor<float>(TensorProto::FLOAT, {2, 3}, {1.5f, -2, 0, 3.25f, 1e-30f, -7}),
      MakeTensor<double>(TensorProto::DOUBLE, {3}, {1.0 / 3, -1e300, 0}),
      MakeTensor<std::uint16_t>(TensorProto::FLOAT16, {2}, {0x3C00, 0xC000}),
      MakeTensor<std::int8_t>(TensorProto::INT8, {2}, {-128, 127}),
      MakeTensor<std::int16_t>(TensorProto::INT16, {2}, {-32768, 32767}),
      MakeTensor<std::int32_t>(TensorProto::INT32, {1, 2}, {-5, 1 << 30}),
      MakeTensor<std::int64_t>(TensorProto::INT64, {2}, {-(std::int64_t{1} << 60), 42}),
      MakeTensor<std::uint8_t>(TensorProto::UINT8, {2}, {0, 255}),
      MakeTensor<std::uint16_t>(TensorProto::UINT16, {2}, {0, 65535}),
      MakeTensor<std::uint32_t>(TensorProto::UINT32, {2}, {0, 4000000000u}),
      MakeTensor<std::uint64_t>(TensorProto::UINT64, {2}, {0, ~std::uint64_t{0}}),
      MakeTensor<bool>(TensorProto::BOOL, {2, 2}, {true, false, false, true}),
  };
  for (const Tensor& tensor : tensors) EXPECT_TRUE(RoundTrip(tensor) == tensor) << tensor.Describe();
}

TEST_F(NpyTest, RoundTripsScalarsAndEmptyTensors) {
  const Tensor scalar = MakeTensor<float>(TensorProto::FLOAT, {}, {2.5f});
  EXPECT_TRUE(RoundTrip(scalar) == scalar);
  const Tensor empty(TensorProto::INT64, {0, 3});
  EXPECT_TRUE(RoundTrip(empty) == empty);
  const Tensor one = MakeTensor<std::int32_t>(TensorProto::INT32, {1}, {7});
  EXPECT_TRUE(RoundTrip(one) == one);
}

TEST_F(NpyTest, RoundTripsUnicodeStrings) {
  const Tensor strings = MakeTensor<std::string>(TensorProto::STRING, {3}, {"a", "", "h\xC3\xA9llo \xE2\x82\xAC"});
  EXPECT_TRUE(RoundTrip(strings) == strings);
}

TEST_F(NpyTest, WritesBFloat16AsFloat32) {
  const Tensor bf16 = MakeTensor<std::uint16_t>(TensorProto::BFLOAT16, {2}, {0x3F80, 0xC040});  // 1, -3
  const Tensor back = RoundTrip(bf16, /*expect_native=*/false);
  ASSERT_EQ(back.elem_type(), TensorProto::FLOAT);
  EXPECT_EQ(back.Data<float>()[0], 1.0f);
  EXPECT_EQ(back.Data<float>()[1], -3.0f);
}

// NumPy has no 2- or 4-bit integers: they are written, exactly, in the 8-bit type of the
// same signedness.
TEST_F(NpyTest, WritesSubByteIntegersAsEightBitOnes) {
  const Tensor int2 = MakeTensor<std::int8_t>(core::eval::kInt2, {3}, {-2, 1, -1});
  const Tensor back = RoundTrip(int2, /*expect_native=*/false);
  ASSERT_EQ(back.elem_type(), TensorProto::INT8);
  EXPECT_EQ(back.ToInt64Vector(), (std::vector<std::int64_t>{-2, 1, -1}));
  const Tensor uint2 = RoundTrip(MakeTensor<std::uint8_t>(core::eval::kUint2, {2}, {3, 2}), /*expect_native=*/false);
  ASSERT_EQ(uint2.elem_type(), TensorProto::UINT8);
  EXPECT_EQ(uint2.ToInt64Vector(), (std::vector<std::int64_t>{3, 2}));
  const Tensor int4 = RoundTrip(MakeTensor<std::int8_t>(core::eval::kInt4, {2}, {-8, 7}), /*expect_native=*/false);
  ASSERT_EQ(int4.elem_type(), TensorProto::INT8);
  EXPECT_EQ(int4.ToInt64Vector(), (std::vector<std::int64_t>{-8, 7}));
}

TEST_F(NpyTest, ReadsSubByteIntegersBackFromTheirEightBitForm) {
  using core::eval::FromNpyForm;
  const Tensor int2 = FromNpyForm(MakeTensor<std::int8_t>(TensorProto::INT8, {3}, {-2, 1, -1}), core::eval::kInt2, "x.npy");
  ASSERT_EQ(int2.elem_type(), core::eval::kInt2);
  EXPECT_EQ(int2.ToInt64Vector(), (std::vector<std::int64_t>{-2, 1, -1}));
  const Tensor uint4 = FromNpyForm(MakeTensor<std::uint8_t>(TensorProto::UINT8, {2}, {15, 0}), core::eval::kUint4, "x.npy");
  ASSERT_EQ(uint4.elem_type(), core::eval::kUint4);
  EXPECT_EQ(uint4.ToInt64Vector(), (std::vector<std::int64_t>{15, 0}));
  auto error_of = [](const Tensor& value, int elem_type) -> std::string {
    try {
      FromNpyForm(value, elem_type, "x.npy");
    } catch (const InputFileError& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(MakeTensor<std::int8_t>(TensorProto::INT8, {2}, {7, -9}), core::eval::kInt4),
            "invalid input file 'x.npy': element 1 is -9, outside the range of INT4 [-8, 7]");
  EXPECT_EQ(error_of(MakeTensor<std::uint8_t>(TensorProto::UINT8, {1}, {4}), core::eval::kUint2),
            "invalid input file 'x.npy': element 0 is 4, outside the range of UINT2 [0, 3]");
  // Another type (uint8 for INT2, a float) stays as read: the caller refuses it.
  EXPECT_EQ(FromNpyForm(MakeTensor<std::uint8_t>(TensorProto::UINT8, {1}, {1}), core::eval::kInt2, "x.npy").elem_type(),
            TensorProto::UINT8);
  EXPECT_EQ(FromNpyForm(Tensor(TensorProto::FLOAT, {1}), TensorProto::FLOAT, "x.npy").elem_type(), TensorProto::FLOAT);
}

TEST_F(NpyTest, WritesTheHeaderNumPyWrites) {
  // numpy.save of numpy.zeros((2, 3), numpy.float32): a 128-byte header.
  WriteNpy(Tensor(TensorProto::FLOAT, {2, 3}), dir_ / "z.npy");
  const std::string bytes = ReadFile(dir_ / "z.npy");
  const std::string expected = NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", std::string(24, '\0'));
  EXPECT_EQ(bytes, expected);
  WriteNpy(Tensor(TensorProto::BOOL, {4}), dir_ / "b.npy");
  EXPECT_EQ(ReadFile(dir_ / "b.npy"),
            NpyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", std::string(4, '\0')));
}

TEST_F(NpyTest, ReadsVersion2AndOtherSpellings) {
  WriteFile(dir_ / "v2.npy", NpyBytes("{\"shape\": ( 2 ,), \"descr\": \"<i4\", \"fortran_order\": False}",
                                      std::string("\x01\0\0\0\xFF\xFF\xFF\xFF", 8), 2));
  const Tensor tensor = ReadNpy(dir_ / "v2.npy");
  EXPECT_TRUE(tensor == MakeTensor<std::int32_t>(TensorProto::INT32, {2}, {1, -1}));
}

TEST_F(NpyTest, NormalizesBoolBytes) {
  WriteFile(dir_ / "b.npy", NpyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x02\x00", 2)));
  const Tensor tensor = ReadNpy(dir_ / "b.npy");
  EXPECT_TRUE(tensor == MakeTensor<bool>(TensorProto::BOOL, {2}, {true, false}));
}

TEST_F(NpyTest, RejectsMalformedHeaders) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  const std::string data(4, '\0');
  ExpectRejected("\x93NUMP", "too short");
  ExpectRejected("PK\x03\x04" + NpyBytes(f4, data).substr(4), "bad magic");
  std::string version = NpyBytes(f4, data);
  version[6] = 9;
  ExpectRejected(version, "unsupported .npy format version 9");
  std::string huge = NpyBytes(f4, data, 2);
  huge[10] = '\x10';  // header length 0x10xxxxxx
  ExpectRejected(huge.substr(0, 12), "header length");
  std::string truncated_header = NpyBytes(f4, data);
  ExpectRejected(truncated_header.substr(0, 40), "truncated header");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'shape': (1,), }", data), "lacks one of");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", data),
                 "repeated key 'descr'");
  ExpectRejected(NpyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", data), "little-endian");
  ExpectRejected(NpyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", data), "unsupported dtype");
  ExpectRejected(NpyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", data), "unsupported dtype");
  ExpectRejected(NpyBytes("{'descr': '<U0', 'fortran_order': False, 'shape': (1,), }", data), "unsupported dtype");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", data), "fortran_order");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", data), "non-negative");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1, x), }", data), "non-negative");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } junk", data), "after the dictionary");
  ExpectRejected(NpyBytes("{'descr': '<f4, 'fortran_order': False, 'shape': (1,), }", data), "malformed header");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data),
                 "elements");
  ExpectRejected(NpyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", std::string(16, '\0')),
                 "Fortran-order");
}

TEST_F(NpyTest, RejectsDataOfTheWrongSize) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ExpectRejected(NpyBytes(f4, std::string(23, '\0')), "truncated data");
  ExpectRejected(NpyBytes(f4, std::string(25, '\0')), "bytes after the data");
  ExpectRejected(NpyBytes("{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }", std::string(4, 'a')),
                 "truncated data");
  ExpectRejected(NpyBytes("{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }", std::string("\0\xD8\0\0", 4)),
                 "invalid code point");
}

TEST_F(NpyTest, ReportsMissingFilesAsIoErrors) {
  EXPECT_THROW(ReadNpy(dir_ / "missing.npy"), IoError);
  EXPECT_THROW(ReadNpy(dir_.path()), IoError) << "a folder";
  EXPECT_THROW(WriteNpy(Tensor(TensorProto::FLOAT, {1}), dir_ / "no" / "such" / "dir.npy"), IoError);
  EXPECT_TRUE(ListFiles(dir_.path()).empty());
}

TEST_F(NpyTest, RefusesAFifoWithoutWaitingForAWriter) {
  ASSERT_EQ(mkfifo((dir_ / "pipe.npy").c_str(), 0600), 0);
  try {
    ReadNpy(dir_ / "pipe.npy");
    ADD_FAILURE() << "read a FIFO";
  } catch (const IoError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot open input file '" + (dir_ / "pipe.npy").string() + "': a FIFO, not a regular file");
  }
}

}  // namespace
}  // namespace onnxopt::testing
