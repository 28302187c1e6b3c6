#pragma once
// Image decoders for the ImageDecoder kernel: BMP and PNM (PBM, PGM, PPM) written here,
// PNG through libpng, JPEG through libjpeg-turbo (its default "fancy" chroma upsampling
// is the one the spec prescribes). Every decoder reads an untrusted byte stream: it checks
// lengths before reading and the image size before allocating.

#include <cstdint>
#include <optional>
#include <span>

#include "onnx_core/eval/tensor.h"

namespace onnxopt::onnx_kernels::image {

// A uint8 [height, width, 3] RGB tensor: allocated as a tensor, so that the evaluator's
// size limit applies before any pixel is decoded.
using RgbImage = core::eval::Tensor;

// Decodes `data` (format told by its first bytes). nullopt when the stream is corrupt or
// in no format known to the spec's list ("it will return an empty matrix"). Throws
// ModelError for a format of the spec's list that is not supported here (JPEG 2000, TIFF,
// WebP, PAM, BMP with RLE or embedded compression, CMYK JPEG), naming it, and (from
// Tensor) for an image larger than the evaluator's tensor limit.
std::optional<RgbImage> DecodeImage(std::span<const std::uint8_t> data);

// ITU-R 601-2 luma of an RGB pixel, (19595 R + 38470 G + 7471 B + 2^15) >> 16: gray
// pixels (R = G = B) keep their value.
inline std::uint8_t Luma(std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  return static_cast<std::uint8_t>((19595u * r + 38470u * g + 7471u * b + 32768u) >> 16);
}

}  // namespace onnxopt::onnx_kernels::image
