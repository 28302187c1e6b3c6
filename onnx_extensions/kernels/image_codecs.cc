#include "onnx_extensions/kernels/image_codecs.h"

// clang-format off: jpeglib.h needs FILE and size_t declared first.
#include <cstddef>
#include <cstdio>
#include <jpeglib.h>
#include <jerror.h>
// clang-format on
#include <png.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cctype>
#include <csetjmp>
#include <cstring>
#include <string>
#include <string_view>

#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels::image {
namespace {

using Bytes = std::span<const std::uint8_t>;

bool StartsWith(Bytes data, std::initializer_list<std::uint8_t> prefix) {
  return data.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), data.begin());
}

// An image of height x width RGB pixels (the tensor checks its size first: a few header
// bytes never allocate gigabytes).
RgbImage AllocateImage(std::int64_t height, std::int64_t width) {
  return RgbImage(TensorProto::UINT8, {height, width, 3});
}

// ---------------------------------------------------------------------------------
// BMP: uncompressed 1/4/8-bit palettes, 16/24/32-bit BGR, 16/32-bit bit fields; core
// (OS/2 1.x) and Windows info headers (40 to 124 bytes); bottom-up or top-down.

std::uint32_t Le(Bytes data, std::size_t offset, std::size_t bytes) {
  std::uint32_t v = 0;
  for (std::size_t i = bytes; i-- > 0;) v = (v << 8) | data[offset + i];
  return v;
}

// A bit field of a 16/32-bit pixel scaled to 8 bits (floor, as PIL).
struct Channel {
  std::uint32_t mask = 0, shift = 0, max = 0;
  explicit Channel(std::uint32_t m) : mask(m) {
    if (m == 0) return;
    shift = static_cast<std::uint32_t>(std::countr_zero(m));
    max = m >> shift;
  }
  std::uint8_t operator()(std::uint32_t pixel) const {
    if (max == 0) return 0;
    return static_cast<std::uint8_t>(static_cast<std::uint64_t>((pixel & mask) >> shift) * 255 / max);
  }
};

std::optional<RgbImage> DecodeBmp(Bytes data) {
  constexpr std::size_t kFileHeader = 14;
  if (data.size() < kFileHeader + 4) return std::nullopt;
  const std::size_t pixel_offset = Le(data, 10, 4);
  const std::size_t header_size = Le(data, 14, 4);
  const bool core = header_size == 12;
  if (!core && header_size < 40) return std::nullopt;
  if (data.size() < kFileHeader + (core ? 12 : 40)) return std::nullopt;
  std::int64_t width, height;
  std::uint32_t bpp, compression = 0, colors_used = 0;
  if (core) {
    width = Le(data, 18, 2);
    height = Le(data, 20, 2);
    bpp = Le(data, 24, 2);
  } else {
    width = static_cast<std::int32_t>(Le(data, 18, 4));
    height = static_cast<std::int32_t>(Le(data, 22, 4));
    bpp = Le(data, 28, 2);
    compression = Le(data, 30, 4);
    colors_used = Le(data, 46, 4);
  }
  switch (compression) {
    case 0: case 3: case 6: break;  // BI_RGB, BI_BITFIELDS, BI_ALPHABITFIELDS
    case 1: case 2: Fail("BMP images with RLE compression are not supported");
    case 4: Fail("BMP images holding a JPEG stream are not supported");
    case 5: Fail("BMP images holding a PNG stream are not supported");
    default: return std::nullopt;
  }
  const bool bitfields = compression != 0;
  if (bitfields && bpp != 16 && bpp != 32) return std::nullopt;
  if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) return std::nullopt;
  const bool top_down = height < 0;
  height = std::abs(height);
  if (width <= 0 || height == 0) return std::nullopt;
  // Rows of 4-byte multiples, the last one possibly without its padding.
  const std::uint64_t stride = (static_cast<std::uint64_t>(width) * bpp + 31) / 32 * 4;
  const std::uint64_t last_row = (static_cast<std::uint64_t>(width) * bpp + 7) / 8;
  if (pixel_offset > data.size()) return std::nullopt;
  const std::uint64_t available = data.size() - pixel_offset;
  if (last_row > available || static_cast<std::uint64_t>(height - 1) > (available - last_row) / stride) return std::nullopt;

  // Bit fields follow a 40-byte header or sit inside a longer one: at offset 54 either way.
  std::array<std::uint32_t, 3> masks = bpp == 16 ? std::array<std::uint32_t, 3>{0x7C00, 0x03E0, 0x001F}
                                                 : std::array<std::uint32_t, 3>{0xFF0000, 0x00FF00, 0x0000FF};
  if (bitfields) {
    if (data.size() < 54 + 12) return std::nullopt;
    masks = {Le(data, 54, 4), Le(data, 58, 4), Le(data, 62, 4)};
  }
  const Channel red(masks[0]), green(masks[1]), blue(masks[2]);
  std::vector<std::array<std::uint8_t, 3>> palette;
  if (bpp <= 8) {
    const std::size_t max_colors = std::size_t{1} << bpp;
    const std::size_t colors = colors_used == 0 ? max_colors : std::min<std::size_t>(colors_used, max_colors);
    const std::size_t entry = core ? 3 : 4;
    std::size_t at = kFileHeader + header_size;
    if (header_size == 40 && bitfields) at += compression == 6 ? 16 : 12;
    if (at > data.size() || colors > (data.size() - at) / entry) return std::nullopt;
    for (std::size_t i = 0; i < colors; ++i, at += entry) palette.push_back({data[at + 2], data[at + 1], data[at]});
  }

  RgbImage image = AllocateImage(height, width);
  std::uint8_t* pixels = image.MutableData<std::uint8_t>();
  for (std::int64_t y = 0; y < height; ++y) {
    const std::uint8_t* row = data.data() + pixel_offset + static_cast<std::size_t>(y) * stride;
    std::uint8_t* out = pixels + (top_down ? y : height - 1 - y) * width * 3;
    for (std::int64_t x = 0; x < width; ++x, out += 3) {
      if (bpp <= 8) {
        const std::uint64_t bit = static_cast<std::uint64_t>(x) * bpp;
        const std::uint32_t index = (row[bit / 8] >> (8 - bpp - bit % 8)) & ((1u << bpp) - 1);
        if (index >= palette.size()) return std::nullopt;
        std::copy(palette[index].begin(), palette[index].end(), out);
      } else if (bpp == 24) {
        out[0] = row[x * 3 + 2], out[1] = row[x * 3 + 1], out[2] = row[x * 3];
      } else {
        const std::size_t bytes = bpp / 8;
        std::uint32_t pixel = 0;
        for (std::size_t i = bytes; i-- > 0;) pixel = (pixel << 8) | row[static_cast<std::size_t>(x) * bytes + i];
        out[0] = red(pixel), out[1] = green(pixel), out[2] = blue(pixel);
      }
    }
  }
  return image;
}

// ---------------------------------------------------------------------------------
// PNM: P1/P4 bitmaps (1 = black), P2/P5 gray, P3/P6 RGB; ASCII or binary samples of up
// to 16 bits, scaled to 8 bits rounding half to even (as PIL).

class PnmReader {
 public:
  explicit PnmReader(Bytes data) : data_(data) {}

  // Skips whitespace and '#' comments; false at the end of the data.
  bool SkipSpace() {
    while (pos_ < data_.size()) {
      if (data_[pos_] == '#') {
        while (pos_ < data_.size() && data_[pos_] != '\n' && data_[pos_] != '\r') ++pos_;
      } else if (std::isspace(data_[pos_])) {
        ++pos_;
      } else {
        return true;
      }
    }
    return false;
  }
  // A decimal number of at most 9 digits (PNM sizes and samples are far below).
  std::optional<std::uint32_t> Number() {
    if (!SkipSpace() || !std::isdigit(data_[pos_])) return std::nullopt;
    std::uint32_t v = 0;
    int digits = 0;
    while (pos_ < data_.size() && std::isdigit(data_[pos_])) {
      if (++digits > 9) return std::nullopt;
      v = v * 10 + static_cast<std::uint32_t>(data_[pos_++] - '0');
    }
    return v;
  }
  // One '0' or '1' of a P1 bitmap (they need no separator).
  std::optional<std::uint32_t> Bit() {
    if (!SkipSpace() || (data_[pos_] != '0' && data_[pos_] != '1')) return std::nullopt;
    return static_cast<std::uint32_t>(data_[pos_++] - '0');
  }
  // The single whitespace byte between the header and binary samples.
  bool EndHeader() {
    if (pos_ >= data_.size()) return false;
    ++pos_;
    return true;
  }
  Bytes Rest() const { return data_.subspan(pos_); }

 private:
  Bytes data_;
  std::size_t pos_ = 2;  // after the magic number
};

std::optional<RgbImage> DecodePnm(Bytes data) {
  const char kind = static_cast<char>(data[1]);
  const bool bitmap = kind == '1' || kind == '4', color = kind == '3' || kind == '6';
  const bool binary = kind >= '4';
  PnmReader reader(data);
  const auto width = reader.Number(), height = reader.Number();
  const auto maxval = bitmap ? std::optional<std::uint32_t>(1) : reader.Number();
  if (!width || !height || !maxval || *width == 0 || *height == 0 || *maxval == 0 || *maxval > 65535) return std::nullopt;
  if (binary && !reader.EndHeader()) return std::nullopt;
  const std::int64_t w = *width, h = *height;
  const std::int64_t channels = color ? 3 : 1;
  const std::uint64_t samples = static_cast<std::uint64_t>(w) * static_cast<std::uint64_t>(h) * static_cast<std::uint64_t>(channels);
  const Bytes rest = reader.Rest();
  const std::size_t sample_bytes = *maxval > 255 ? 2 : 1;
  // Binary sizes are known before allocating; ASCII needs at least one byte per sample.
  const std::uint64_t row_bits = static_cast<std::uint64_t>(w);
  if (kind == '4' ? (row_bits + 7) / 8 * static_cast<std::uint64_t>(h) > rest.size()
                  : (binary ? samples * sample_bytes : samples) > rest.size())
    return std::nullopt;
  RgbImage image = AllocateImage(h, w);
  std::uint8_t* pixels = image.MutableData<std::uint8_t>();
  auto scale = [&](std::uint32_t v) {
    if (bitmap) return static_cast<std::uint8_t>(v ? 0 : 255);
    return static_cast<std::uint8_t>(std::min(255.0, std::nearbyint(v * 255.0 / *maxval)));
  };
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x)
      for (std::int64_t c = 0; c < channels; ++c) {
        std::optional<std::uint32_t> v;
        const std::uint64_t i = static_cast<std::uint64_t>((y * w + x) * channels + c);
        if (kind == '4') {
          const std::uint8_t byte = rest[static_cast<std::size_t>(static_cast<std::uint64_t>(y) * ((row_bits + 7) / 8) + static_cast<std::uint64_t>(x) / 8)];
          v = (byte >> (7 - x % 8)) & 1u;
        } else if (binary) {
          v = sample_bytes == 1 ? rest[i] : static_cast<std::uint32_t>(rest[2 * i] << 8 | rest[2 * i + 1]);
        } else {
          v = kind == '1' ? reader.Bit() : reader.Number();
        }
        if (!v) return std::nullopt;
        std::uint8_t* out = pixels + (y * w + x) * 3;
        if (color) out[c] = scale(*v);
        else out[0] = out[1] = out[2] = scale(*v);
      }
  return image;
}

// ---------------------------------------------------------------------------------
// PNG through libpng: palettes, low bit depths and transparency expanded, 16-bit samples
// reduced to their high byte (as PIL), alpha dropped, gray replicated; no gamma
// correction.

struct PngInput {
  Bytes data;
  std::size_t pos = 0;
};

void ReadPngBytes(png_structp png, png_bytep out, png_size_t count) {
  auto* input = static_cast<PngInput*>(png_get_io_ptr(png));
  if (count > input->data.size() - input->pos) png_error(png, "truncated stream");
  std::memcpy(out, input->data.data() + input->pos, count);
  input->pos += count;
}
[[noreturn]] void OnPngError(png_structp png, png_const_charp) { std::longjmp(png_jmpbuf(png), 1); }
void OnPngWarning(png_structp, png_const_charp) {}

enum class DecodeStep { kDone, kCorrupt, kUnsupported };

// Reads the header (width, height) and sets the transformations to 8-bit RGB. The
// functions calling setjmp keep no object with a destructor: libpng and libjpeg leave
// through longjmp on errors.
DecodeStep ReadPngHeader(png_structp png, png_infop info, std::int64_t& width, std::int64_t& height) {
  if (setjmp(png_jmpbuf(png))) return DecodeStep::kCorrupt;
  png_read_info(png, info);
  width = png_get_image_width(png, info);
  height = png_get_image_height(png, info);
  png_set_expand(png);
  png_set_strip_16(png);
  png_set_strip_alpha(png);
  png_set_gray_to_rgb(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != static_cast<std::size_t>(width) * 3) return DecodeStep::kCorrupt;
  return DecodeStep::kDone;
}

DecodeStep ReadPngPixels(png_structp png, std::vector<png_bytep>& rows) {
  if (setjmp(png_jmpbuf(png))) return DecodeStep::kCorrupt;
  png_read_image(png, rows.data());
  return DecodeStep::kDone;
}

std::optional<RgbImage> DecodePng(Bytes data) {
  struct Session {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, OnPngError, OnPngWarning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    ~Session() { png_destroy_read_struct(&png, &info, nullptr); }
  } session;
  if (!session.png || !session.info) return std::nullopt;
  PngInput input{data};
  png_set_read_fn(session.png, &input, ReadPngBytes);
  std::int64_t width = 0, height = 0;
  if (ReadPngHeader(session.png, session.info, width, height) != DecodeStep::kDone) return std::nullopt;
  RgbImage image = AllocateImage(height, width);
  std::vector<png_bytep> rows(static_cast<std::size_t>(height));
  std::uint8_t* pixels = image.MutableData<std::uint8_t>();
  for (std::int64_t y = 0; y < height; ++y) rows[static_cast<std::size_t>(y)] = pixels + y * width * 3;
  if (ReadPngPixels(session.png, rows) != DecodeStep::kDone) return std::nullopt;
  return image;
}

// ---------------------------------------------------------------------------------
// JPEG through libjpeg-turbo, decoded to RGB (gray replicated) with its default
// (islow) DCT and fancy upsampling. A truncated stream is corrupt, not padded with gray.

struct JpegErrors {
  jpeg_error_mgr base;
  std::jmp_buf jump;
  bool truncated = false;
};

[[noreturn]] void OnJpegError(j_common_ptr cinfo) { std::longjmp(reinterpret_cast<JpegErrors*>(cinfo->err)->jump, 1); }
void OnJpegMessage(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) reinterpret_cast<JpegErrors*>(cinfo->err)->truncated = true;
}
void OnJpegOutput(j_common_ptr) {}

// Progressive streams may hold any number of scans, each a pass over the whole image: a
// small file with thousands of them would take minutes. Real encoders write about ten.
constexpr int kMaxJpegScans = 256;
void OnJpegProgress(j_common_ptr cinfo) {
  if (cinfo->is_decompressor && reinterpret_cast<j_decompress_ptr>(cinfo)->input_scan_number > kMaxJpegScans)
    std::longjmp(reinterpret_cast<JpegErrors*>(cinfo->err)->jump, 1);
}

DecodeStep ReadJpegHeader(jpeg_decompress_struct& cinfo, JpegErrors& errors, Bytes data, std::int64_t& width,
                          std::int64_t& height) {
  if (setjmp(errors.jump)) return DecodeStep::kCorrupt;
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data.data(), static_cast<unsigned long>(data.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) return DecodeStep::kUnsupported;
  cinfo.out_color_space = JCS_RGB;
  width = cinfo.image_width;
  height = cinfo.image_height;
  return DecodeStep::kDone;
}

DecodeStep ReadJpegPixels(jpeg_decompress_struct& cinfo, JpegErrors& errors, RgbImage& image) {
  if (setjmp(errors.jump)) return DecodeStep::kCorrupt;
  // Working memory (whole-image coefficients of progressive streams) bounded by a few
  // times the image: past it libjpeg fails instead of allocating.
  cinfo.mem->max_memory_to_use = static_cast<long>(4 * image.size() + (64 << 20));
  jpeg_start_decompress(&cinfo);
  const std::int64_t height = image.shape()[0], width = image.shape()[1];
  if (cinfo.output_width != width || cinfo.output_height != height || cinfo.output_components != 3)
    return DecodeStep::kCorrupt;
  std::uint8_t* pixels = image.MutableData<std::uint8_t>();
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = pixels + static_cast<std::size_t>(cinfo.output_scanline) * width * 3;
    if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) return DecodeStep::kCorrupt;
  }
  jpeg_finish_decompress(&cinfo);
  return errors.truncated ? DecodeStep::kCorrupt : DecodeStep::kDone;
}

std::optional<RgbImage> DecodeJpeg(Bytes data) {
  struct Session {
    jpeg_decompress_struct cinfo{};
    JpegErrors errors;
    jpeg_progress_mgr progress{};
    Session() {
      cinfo.err = jpeg_std_error(&errors.base);
      errors.base.error_exit = OnJpegError;
      errors.base.emit_message = OnJpegMessage;
      errors.base.output_message = OnJpegOutput;
      progress.progress_monitor = OnJpegProgress;
    }
    ~Session() { jpeg_destroy_decompress(&cinfo); }
  } session;
  std::int64_t width = 0, height = 0;
  const DecodeStep header = ReadJpegHeader(session.cinfo, session.errors, data, width, height);
  if (header == DecodeStep::kUnsupported) Fail("CMYK and YCCK JPEG images are not supported");
  if (header != DecodeStep::kDone) return std::nullopt;
  session.cinfo.progress = &session.progress;
  RgbImage image = AllocateImage(height, width);
  if (ReadJpegPixels(session.cinfo, session.errors, image) != DecodeStep::kDone) return std::nullopt;
  return image;
}

}  // namespace

std::optional<RgbImage> DecodeImage(std::span<const std::uint8_t> data) {
  if (StartsWith(data, {0xFF, 0xD8, 0xFF})) return DecodeJpeg(data);
  if (StartsWith(data, {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A})) return DecodePng(data);
  if (StartsWith(data, {'B', 'M'})) return DecodeBmp(data);
  if (data.size() >= 3 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6' && std::isspace(data[2]))
    return DecodePnm(data);
  // Formats of the spec's list that are not decoded here.
  if (StartsWith(data, {'P', '7'})) Fail("PAM (P7) images are not supported");
  if (StartsWith(data, {0x00, 0x00, 0x00, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}) ||
      StartsWith(data, {0xFF, 0x4F, 0xFF, 0x51}))
    Fail("JPEG 2000 images are not supported");
  if (StartsWith(data, {'I', 'I', 42, 0}) || StartsWith(data, {'M', 'M', 0, 42})) Fail("TIFF images are not supported");
  if (data.size() >= 12 && StartsWith(data, {'R', 'I', 'F', 'F'}) && std::memcmp(data.data() + 8, "WEBP", 4) == 0)
    Fail("WebP images are not supported");
  return std::nullopt;
}

}  // namespace onnxopt::onnx_kernels::image
