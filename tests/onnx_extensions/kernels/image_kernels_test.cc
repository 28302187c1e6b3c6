// Tests of ImageDecoder (image_kernels.cc, image_codecs.cc). The images are built here:
// BMP and PNM byte by byte, PNG with libpng's writer, JPEG with libjpeg's encoder (its
// decode is lossy: compared within a tolerance). Malformed streams check that every
// decoder refuses them without reading out of bounds (this target also runs under
// ASan+UBSan).

// clang-format off: jpeglib.h needs FILE and size_t declared first.
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
// clang-format on
#include <png.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_extensions/kernels/image_codecs.h"
#include "tests/onnx_extensions/kernels/vision_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using Bytes = std::vector<std::uint8_t>;
using Dims = std::vector<std::int64_t>;

// The 2 x 3 RGB test picture (row-major, RGB).
const Bytes kPicture = {255, 0, 0, 0, 255, 0, 0, 0, 255,  //
                        10, 20, 30, 200, 100, 50, 7, 7, 7};

Tensor Decode(const Bytes& stream, const std::string& format = "RGB") {
  return RunNode("y = ImageDecoder <pixel_format = \"" + format + "\"> (x)",
                 {{"x", MakeTensor<std::uint8_t>({static_cast<std::int64_t>(stream.size())}, stream)}}, 20);
}

std::string DecodeError(const Bytes& stream) {
  return NodeError("y = ImageDecoder (x)", {{"x", MakeTensor<std::uint8_t>({static_cast<std::int64_t>(stream.size())}, stream)}},
                   20);
}

Tensor Picture(std::int64_t height, std::int64_t width, const Bytes& rgb) {
  return MakeTensor<std::uint8_t>({height, width, 3}, rgb);
}

void PutLe(Bytes& b, std::size_t at, std::uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

// A BMP with a 40-byte info header: bottom-up rows of 4-byte multiples; `pixels` holds
// each row's bytes (without padding), top row first. The palette, when given, sits
// before the pixels.
Bytes Bmp(std::int32_t width, std::int32_t height, int bpp, const std::vector<Bytes>& rows, const Bytes& palette = {},
          std::uint32_t compression = 0, const Bytes& masks = {}) {
  const std::size_t stride = (static_cast<std::size_t>(width) * static_cast<std::size_t>(bpp) + 31) / 32 * 4;
  const std::size_t offset = 54 + masks.size() + palette.size();
  Bytes b(offset + stride * rows.size(), 0);
  b[0] = 'B', b[1] = 'M';
  PutLe(b, 2, static_cast<std::uint32_t>(b.size()), 4);
  PutLe(b, 10, static_cast<std::uint32_t>(offset), 4);
  PutLe(b, 14, 40, 4);
  PutLe(b, 18, static_cast<std::uint32_t>(width), 4);
  PutLe(b, 22, static_cast<std::uint32_t>(height), 4);
  PutLe(b, 26, 1, 2);
  PutLe(b, 28, static_cast<std::uint32_t>(bpp), 2);
  PutLe(b, 30, compression, 4);
  std::copy(masks.begin(), masks.end(), b.begin() + 54);
  std::copy(palette.begin(), palette.end(), b.begin() + 54 + static_cast<std::ptrdiff_t>(masks.size()));
  // Bottom-up unless the height is negative.
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::size_t stored = height < 0 ? r : rows.size() - 1 - r;
    std::copy(rows[r].begin(), rows[r].end(), b.begin() + static_cast<std::ptrdiff_t>(offset + stored * stride));
  }
  return b;
}

Bytes Text(const std::string& s) { return Bytes(s.begin(), s.end()); }
Bytes Concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Bytes EncodePng(std::int64_t width, std::int64_t height, const Bytes& pixels, png_uint_32 format) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = format;
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, nullptr));
  Bytes out(size);
  EXPECT_TRUE(png_image_write_to_memory(&image, out.data(), &size, 0, pixels.data(), 0, nullptr));
  out.resize(size);
  return out;
}

// Baseline JPEG of an RGB picture, quality 100, without chroma subsampling unless asked.
Bytes EncodeJpeg(std::int64_t width, std::int64_t height, const Bytes& rgb, bool subsample, bool gray = false) {
  jpeg_compress_struct cinfo{};
  jpeg_error_mgr errors{};
  cinfo.err = jpeg_std_error(&errors);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = gray ? 1 : 3;
  cinfo.in_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, 100, TRUE);
  if (!gray && !subsample)
    for (int c = 0; c < 3; ++c) cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
  jpeg_start_compress(&cinfo, TRUE);
  const std::size_t row_bytes = static_cast<std::size_t>(width) * (gray ? 1 : 3);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(rgb.data() + cinfo.next_scanline * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  Bytes out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

// A smooth 16 x 16 picture (JPEG keeps it within a few levels).
Bytes SmoothPicture() {
  Bytes rgb;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x)
      rgb.insert(rgb.end(), {static_cast<std::uint8_t>(8 * x + 40), static_cast<std::uint8_t>(8 * y + 40),
                             static_cast<std::uint8_t>(100 + 4 * (x + y))});
  return rgb;
}

// ---------------------------------------------------------------------------------
// Pixel formats

TEST(ImageDecoderKernel, PixelFormats) {
  const Bytes bmp = Bmp(3, 2, 24, {{0, 0, 255, 0, 255, 0, 255, 0, 0}, {30, 20, 10, 50, 100, 200, 7, 7, 7}});
  EXPECT_TENSOR(Decode(bmp), Picture(2, 3, kPicture));
  EXPECT_TENSOR(Decode(bmp, "BGR"), Picture(2, 3, {0, 0, 255, 0, 255, 0, 255, 0, 0, 30, 20, 10, 50, 100, 200, 7, 7, 7}));
  // Luma: (19595 R + 38470 G + 7471 B + 2^15) >> 16; gray stays gray.
  EXPECT_TENSOR(Decode(bmp, "Grayscale"), MakeTensor<std::uint8_t>({2, 3, 1}, {76, 150, 29, 18, 124, 7}));
  EXPECT_THAT(NodeError("y = ImageDecoder <pixel_format = \"RGBA\"> (x)", {{"x", MakeTensor<std::uint8_t>({2}, {1, 2})}}, 20),
              AllOf(HasSubstr("node 'y' (ImageDecoder)"), HasSubstr("pixel_format must be RGB, BGR or Grayscale")));
  EXPECT_THAT(NodeError("y = ImageDecoder (x)", {{"x", MakeTensor<std::int8_t>({2}, {1, 2})}}, 20),
              HasSubstr("encoded_stream must be a 1-D uint8 tensor"));
}

TEST(ImageDecoderKernel, LumaMatchesTheFormula) {
  for (int r : {0, 13, 128, 255})
    for (int g : {0, 77, 200, 255})
      for (int b : {0, 31, 255}) {
        const auto expected = static_cast<std::uint8_t>((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
        EXPECT_EQ(onnx_kernels::image::Luma(static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g),
                                            static_cast<std::uint8_t>(b)),
                  expected);
      }
  for (int v = 0; v < 256; ++v) {
    const auto u = static_cast<std::uint8_t>(v);
    EXPECT_EQ(onnx_kernels::image::Luma(u, u, u), u);
  }
}

// ---------------------------------------------------------------------------------
// BMP

TEST(ImageDecoderKernel, BmpPalettesAndBitFields) {
  // 1-bit, 2 colors (blue, white), top-down: bits 1 0 1 / 0 1 0.
  const Bytes palette1 = {255, 0, 0, 0, 255, 255, 255, 0};
  EXPECT_TENSOR(Decode(Bmp(3, -2, 1, {{0xA0}, {0x40}}, palette1)),
                Picture(2, 3, {255, 255, 255, 0, 0, 255, 255, 255, 255, 0, 0, 255, 255, 255, 255, 0, 0, 255}));
  // 4-bit with 3 used colors (colors_used 0 means all 16: the palette holds 16 here).
  Bytes palette4(64, 0);
  palette4[4 * 2 + 2] = 9;  // color 2 = (9, 0, 0)
  EXPECT_TENSOR(Decode(Bmp(2, 1, 4, {{0x20}}, palette4)), Picture(1, 2, {9, 0, 0, 0, 0, 0}));
  // 8-bit.
  Bytes palette8(1024, 0);
  palette8[4 * 200 + 1] = 77;
  EXPECT_TENSOR(Decode(Bmp(1, 1, 8, {{200}}, palette8)), Picture(1, 1, {0, 77, 0}));
  // 16-bit 5-5-5 (BI_RGB): 5-bit channels scaled by 255 / 31, rounding down.
  EXPECT_TENSOR(Decode(Bmp(2, 1, 16, {{0x00, 0x7C, 0x03, 0x00}})), Picture(1, 2, {255, 0, 0, 0, 0, 24}));
  // 32-bit BI_BITFIELDS with masks R = 0xFF, G = 0xFF00, B = 0xFF0000 (RGBX order).
  const Bytes masks = {0xFF, 0, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0xFF, 0};
  EXPECT_TENSOR(Decode(Bmp(1, 1, 32, {{1, 2, 3, 4}}, {}, 3, masks)), Picture(1, 1, {1, 2, 3}));
  // 32-bit BI_RGB: BGRX.
  EXPECT_TENSOR(Decode(Bmp(1, 1, 32, {{1, 2, 3, 4}})), Picture(1, 1, {3, 2, 1}));
}

TEST(ImageDecoderKernel, CorruptBmpGivesAnEmptyImage) {
  const Tensor empty = MakeTensor<std::uint8_t>({0, 0, 3}, {});
  Bytes bmp = Bmp(3, 2, 24, {{0, 0, 255, 0, 255, 0, 255, 0, 0}, {30, 20, 10, 50, 100, 200, 7, 7, 7}});
  // Truncated at every length: corrupt until the last row's pixels are there (its
  // padding may be missing: 54 + 12 + 9 = 75 bytes suffice).
  for (std::size_t n = 0; n <= bmp.size(); ++n) {
    SCOPED_TRACE(n);
    EXPECT_TENSOR(Decode(Bytes(bmp.begin(), bmp.begin() + static_cast<std::ptrdiff_t>(n))),
                  n < 75 ? empty : Picture(2, 3, kPicture));
  }
  Bytes bad = bmp;
  PutLe(bad, 28, 7, 2);  // 7 bits per pixel
  EXPECT_TENSOR(Decode(bad), empty);
  bad = bmp;
  PutLe(bad, 10, 0xFFFFFFF0u, 4);  // pixel data beyond the end
  EXPECT_TENSOR(Decode(bad), empty);
  bad = bmp;
  PutLe(bad, 18, 0x7FFFFFFF, 4);  // 2^31 pixels wide: the data is far too short
  EXPECT_TENSOR(Decode(bad), empty);
  // A palette shorter than its 256 colors.
  EXPECT_TENSOR(Decode(Bmp(1, 1, 8, {{3}}, Bytes(8, 0))), empty);
  // Another header size.
  bad = bmp;
  PutLe(bad, 14, 20, 4);
  EXPECT_TENSOR(Decode(bad), empty);
}

TEST(ImageDecoderKernel, UnsupportedBmpCompressionsAreNamed) {
  EXPECT_THAT(DecodeError(Bmp(1, 1, 8, {{0, 0}}, Bytes(1024, 0), 1)),
              AllOf(HasSubstr("node 'y' (ImageDecoder)"), HasSubstr("BMP images with RLE compression are not supported")));
  EXPECT_THAT(DecodeError(Bmp(1, 1, 24, {{0, 0, 0}}, {}, 4)), HasSubstr("BMP images holding a JPEG stream"));
  EXPECT_THAT(DecodeError(Bmp(1, 1, 24, {{0, 0, 0}}, {}, 5)), HasSubstr("BMP images holding a PNG stream"));
}

// ---------------------------------------------------------------------------------
// PNM

TEST(ImageDecoderKernel, PortableAnymaps) {
  // P6 with a comment, maxval 255.
  EXPECT_TENSOR(Decode(Concat(Text("P6\n# made by hand\n3 2\n255\n"), kPicture)), Picture(2, 3, kPicture));
  // P3 (ASCII) with maxval 15: 15 -> 255, 7 -> round(119) = 119, 1 -> 17.
  EXPECT_TENSOR(Decode(Text("P3 2 1 15\n15 0 7  1 15 0\n")), Picture(1, 2, {255, 0, 119, 17, 255, 0}));
  // P5 (gray) with 16-bit samples: 65535 -> 255, 32768 -> round(127.502) = 128.
  EXPECT_TENSOR(Decode(Concat(Text("P5 2 1 65535\n"), {0xFF, 0xFF, 0x80, 0x00})), Picture(1, 2, {255, 255, 255, 128, 128, 128}));
  // P2, maxval 2: 1 -> 127.5 -> 128.
  EXPECT_TENSOR(Decode(Text("P2\n1 1\n2\n1\n")), Picture(1, 1, {128, 128, 128}));
  // P1: 1 is black, bits need no separator; P4 packs bits with byte-aligned rows.
  EXPECT_TENSOR(Decode(Text("P1\n3 1\n101\n")), Picture(1, 3, {0, 0, 0, 255, 255, 255, 0, 0, 0}));
  EXPECT_TENSOR(Decode(Concat(Text("P4\n3 2\n"), {0xA0, 0x40})),
                Picture(2, 3, {0, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255, 255, 0, 0, 0, 255, 255, 255}));
}

TEST(ImageDecoderKernel, CorruptAnymapsGiveAnEmptyImage) {
  const Tensor empty = MakeTensor<std::uint8_t>({0, 0, 3}, {});
  const Bytes p6 = Concat(Text("P6 3 2 255\n"), kPicture);
  for (std::size_t n = 2; n < p6.size(); ++n) {
    SCOPED_TRACE(n);
    EXPECT_TENSOR(Decode(Bytes(p6.begin(), p6.begin() + static_cast<std::ptrdiff_t>(n))), empty);
  }
  EXPECT_TENSOR(Decode(Text("P3 1 1 255\n1 2\n")), empty);              // a sample missing
  EXPECT_TENSOR(Decode(Text("P3 1 1 0\n0 0 0\n")), empty);              // maxval 0
  EXPECT_TENSOR(Decode(Text("P2 1 1 70000\n1\n")), empty);              // maxval above 16 bits
  EXPECT_TENSOR(Decode(Text("P2 0 1 255\n")), empty);                   // no pixels
  EXPECT_TENSOR(Decode(Text("P2 99999999999 1 255\n1\n")), empty);      // a size of 11 digits
  EXPECT_TENSOR(Decode(Text("P5 100000 100000 255\n")), empty);         // declared far beyond the data
  EXPECT_TENSOR(Decode(Text("P1 2 1\n1 2\n")), empty);                  // a bit that is not 0 or 1
}

// ---------------------------------------------------------------------------------
// PNG

TEST(ImageDecoderKernel, PngColorTypes) {
  EXPECT_TENSOR(Decode(EncodePng(3, 2, kPicture, PNG_FORMAT_RGB)), Picture(2, 3, kPicture));
  // Alpha is dropped, gray is replicated.
  const Bytes rgba = {1, 2, 3, 0, 4, 5, 6, 255};
  EXPECT_TENSOR(Decode(EncodePng(2, 1, rgba, PNG_FORMAT_RGBA)), Picture(1, 2, {1, 2, 3, 4, 5, 6}));
  EXPECT_TENSOR(Decode(EncodePng(2, 1, {9, 200}, PNG_FORMAT_GRAY)), Picture(1, 2, {9, 9, 9, 200, 200, 200}));
  EXPECT_TENSOR(Decode(EncodePng(2, 1, {9, 200}, PNG_FORMAT_GRAY), "Grayscale"), MakeTensor<std::uint8_t>({1, 2, 1}, {9, 200}));
  // 16-bit samples keep their high byte: 0x1234 -> 0x12.
  const std::vector<std::uint16_t> wide = {0x1234, 0xFFFF, 0x00FF};
  Bytes wide_bytes(reinterpret_cast<const std::uint8_t*>(wide.data()),
                   reinterpret_cast<const std::uint8_t*>(wide.data()) + 6);
  EXPECT_TENSOR(Decode(EncodePng(1, 1, wide_bytes, PNG_FORMAT_LINEAR_RGB)), Picture(1, 1, {0x12, 0xFF, 0x00}));
}

TEST(ImageDecoderKernel, CorruptPngGivesAnEmptyImage) {
  const Tensor empty = MakeTensor<std::uint8_t>({0, 0, 3}, {});
  const Bytes png = EncodePng(3, 2, kPicture, PNG_FORMAT_RGB);
  for (std::size_t n = 8; n < png.size(); n += 3) {
    SCOPED_TRACE(n);
    const Tensor y = Decode(Bytes(png.begin(), png.begin() + static_cast<std::ptrdiff_t>(n)));
    // The trailing IEND chunk is not needed for the pixels.
    EXPECT_TENSOR(y, y.size() != 0 ? Picture(2, 3, kPicture) : empty);
  }
  Bytes bad = png;
  bad[20] ^= 0xFF;  // the header's CRC no longer matches
  EXPECT_TENSOR(Decode(bad), empty);
}

// ---------------------------------------------------------------------------------
// JPEG

TEST(ImageDecoderKernel, JpegWithinTolerance) {
  const Bytes rgb = SmoothPicture();
  for (bool subsample : {false, true}) {
    SCOPED_TRACE(subsample);
    const Tensor y = Decode(EncodeJpeg(16, 16, rgb, subsample));
    // Quality 100: the decode differs from the original by the DCT's and the color
    // conversion's rounding, and by the chroma upsampling when subsampled.
    ASSERT_EQ(y.shape(), (Dims{16, 16, 3}));
    const std::uint8_t* d = y.Data<std::uint8_t>();
    int worst = 0;
    for (std::size_t i = 0; i < rgb.size(); ++i) worst = std::max(worst, std::abs(int(d[i]) - int(rgb[i])));
    EXPECT_LE(worst, subsample ? 6 : 3);
  }
  // A grayscale JPEG decodes to equal channels.
  Bytes gray(64);
  for (std::size_t i = 0; i < gray.size(); ++i) gray[i] = static_cast<std::uint8_t>(60 + 2 * i);
  const Tensor y = Decode(EncodeJpeg(8, 8, gray, false, true), "Grayscale");
  ASSERT_EQ(y.shape(), (Dims{8, 8, 1}));
  for (std::size_t i = 0; i < gray.size(); ++i) EXPECT_NEAR(y.Data<std::uint8_t>()[i], gray[i], 2) << i;
}

TEST(ImageDecoderKernel, CorruptJpegGivesAnEmptyImage) {
  const Tensor empty = MakeTensor<std::uint8_t>({0, 0, 3}, {});
  const Bytes jpeg = EncodeJpeg(16, 16, SmoothPicture(), true);
  // Every truncation (libjpeg would pad a truncated stream with gray; it is corrupt).
  for (std::size_t n = 3; n + 2 < jpeg.size(); n += 7) {
    SCOPED_TRACE(n);
    EXPECT_TENSOR(Decode(Bytes(jpeg.begin(), jpeg.begin() + static_cast<std::ptrdiff_t>(n))), empty);
  }
  // Garbage after the start of image.
  EXPECT_TENSOR(Decode({0xFF, 0xD8, 0xFF, 0x00, 0x01, 0x02}), empty);
}

// ---------------------------------------------------------------------------------
// Mutated streams (meant for the ASan+UBSan run): every decoder either refuses the stream
// or returns a well-formed image, never reading outside it.

TEST(ImageDecoderKernel, MutatedStreamsDecodeOrAreRefused) {
  Bytes palette8(1024);
  for (std::size_t i = 0; i < palette8.size(); ++i) palette8[i] = static_cast<std::uint8_t>(i * 7);
  const std::vector<Bytes> originals = {
      Bmp(3, 2, 24, {{0, 0, 255, 0, 255, 0, 255, 0, 0}, {30, 20, 10, 50, 100, 200, 7, 7, 7}}),
      Bmp(5, -3, 8, {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {11, 12, 13, 14, 15}}, palette8),
      Bmp(1, 1, 32, {{1, 2, 3, 4}}, {}, 3, {0xFF, 0, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0xFF, 0}),
      Concat(Text("P6 3 2 255\n"), kPicture),
      Text("P3 2 1 15\n15 0 7  1 15 0\n"),
      Concat(Text("P4\n3 2\n"), {0xA0, 0x40}),
      EncodePng(3, 2, kPicture, PNG_FORMAT_RGB),
      EncodeJpeg(16, 16, SmoothPicture(), true),
  };
  std::mt19937 random(13);
  int decoded = 0, refused = 0;
  for (const Bytes& original : originals)
    for (int round = 0; round < 300; ++round) {
      Bytes data = original;
      const int edits = 1 + static_cast<int>(random() % 4);
      for (int e = 0; e < edits && !data.empty(); ++e) {
        const std::size_t at = random() % data.size();
        switch (random() % 4) {
          case 0: data[at] = static_cast<std::uint8_t>(random()); break;               // any byte
          case 1: data[at] ^= static_cast<std::uint8_t>(1u << (random() % 8)); break;  // one bit
          case 2: data.resize(at); break;                                               // truncated
          default: data.insert(data.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(random()));
        }
      }
      try {
        const auto image = onnx_kernels::image::DecodeImage(data);
        if (!image) {
          ++refused;
          continue;
        }
        ++decoded;
        ASSERT_EQ(image->elem_type(), TensorProto::UINT8);
        ASSERT_EQ(image->rank(), 3u);
        EXPECT_EQ(image->shape()[2], 3);
      } catch (const ModelError&) {
        ++refused;  // a recognised but unsupported variant, or an image above the size limit
      }
    }
  // Both outcomes occur: the mutations neither all break nor all spare the streams.
  EXPECT_GT(decoded, 100);
  EXPECT_GT(refused, 100);
}

// ---------------------------------------------------------------------------------
// Other formats

TEST(ImageDecoderKernel, UnknownStreamsAreEmptyAndUnsupportedFormatsNamed) {
  EXPECT_TENSOR(Decode(Text("GIF89a not decoded")), MakeTensor<std::uint8_t>({0, 0, 3}, {}));
  EXPECT_TENSOR(Decode({}, "Grayscale"), MakeTensor<std::uint8_t>({0, 0, 1}, {}));
  EXPECT_THAT(DecodeError({'I', 'I', 42, 0, 8, 0}), AllOf(HasSubstr("node 'y' (ImageDecoder)"), HasSubstr("TIFF images are not supported")));
  EXPECT_THAT(DecodeError({'M', 'M', 0, 42, 0}), HasSubstr("TIFF"));
  EXPECT_THAT(DecodeError(Concat(Text("RIFF"), Concat({1, 0, 0, 0}, Text("WEBPVP8 ")))), HasSubstr("WebP images are not supported"));
  EXPECT_THAT(DecodeError({0, 0, 0, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}), HasSubstr("JPEG 2000"));
  EXPECT_THAT(DecodeError({0xFF, 0x4F, 0xFF, 0x51, 0}), HasSubstr("JPEG 2000"));
  EXPECT_THAT(DecodeError(Text("P7\nWIDTH 1\n")), HasSubstr("PAM (P7) images are not supported"));
}

}  // namespace
}  // namespace onnxopt::testing
