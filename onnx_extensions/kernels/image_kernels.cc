// ImageDecoder (20): encoded bytes (uint8) to an [H, W, C] uint8 image in RGB, BGR or
// Grayscale (ITU-R 601-2 luma) pixel format. The decoders are in image_codecs.cc; a
// corrupt stream, or one in no known format, gives an empty [0, 0, C] image as the spec
// says ("it will return an empty matrix").

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/image_codecs.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

std::vector<Value> ImageDecoderKernel(KernelContext& ctx) {
  const Tensor& encoded = ctx.TensorInput(0);
  if (encoded.elem_type() != TensorProto::UINT8 || encoded.rank() != 1)
    Fail("encoded_stream must be a 1-D uint8 tensor, found " + encoded.Describe());
  const std::string format = ctx.StringAttribute("pixel_format").value_or("RGB");
  if (format != "RGB" && format != "BGR" && format != "Grayscale")
    Fail("pixel_format must be RGB, BGR or Grayscale, found '" + format + "'");
  const std::int64_t channels = format == "Grayscale" ? 1 : 3;
  const std::optional<image::RgbImage> decoded = image::DecodeImage(
      std::span<const std::uint8_t>(encoded.Data<std::uint8_t>(), static_cast<std::size_t>(encoded.size())));
  if (!decoded) return {Tensor(TensorProto::UINT8, {0, 0, channels})};
  if (format == "RGB") return {*decoded};
  const std::int64_t height = decoded->shape()[0], width = decoded->shape()[1];
  Tensor out(TensorProto::UINT8, {height, width, channels});
  const std::uint8_t* rgb = decoded->Data<std::uint8_t>();
  std::uint8_t* dst = out.MutableData<std::uint8_t>();
  const std::int64_t pixels = height * width;
  for (std::int64_t p = 0; p < pixels; ++p, rgb += 3) {
    if (channels == 1) {
      dst[p] = image::Luma(rgb[0], rgb[1], rgb[2]);
    } else {
      dst[3 * p] = rgb[2], dst[3 * p + 1] = rgb[1], dst[3 * p + 2] = rgb[0];
    }
  }
  return {out};
}

}  // namespace

void RegisterImageKernels() { core::eval::RegisterKernel("", "ImageDecoder", ImageDecoderKernel); }

}  // namespace onnxopt::onnx_kernels
