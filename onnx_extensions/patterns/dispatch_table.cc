// The only file that lists every built-in pattern, by family. Each family's block is
// kept apart so that families grow without touching each other's lines.

#include "onnx_extensions/patterns/dispatch_table.h"

#include "onnx_core/optimizer/pattern_registry.h"

// canonicalization
#include "onnx_extensions/patterns/canonicalization/cast_cast_pattern.h"
#include "onnx_extensions/patterns/canonicalization/cast_pattern.h"
#include "onnx_extensions/patterns/canonicalization/not_not_pattern.h"
#include "onnx_extensions/patterns/canonicalization/conv_bias_null_pattern.h"
#include "onnx_extensions/patterns/canonicalization/pad_conv_pattern.h"
#include "onnx_extensions/patterns/canonicalization/clip_clip_pattern.h"
#include "onnx_extensions/patterns/canonicalization/dropout_pattern.h"
#include "onnx_extensions/patterns/canonicalization/constant_to_initializer_pattern.h"
#include "onnx_extensions/patterns/canonicalization/cast_cast_binary_pattern.h"
#include "onnx_extensions/patterns/canonicalization/cast_op_cast_pattern.h"
#include "onnx_extensions/patterns/canonicalization/identity_pattern.h"

// collections

// expand

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::RegisterPattern;

void RegisterCanonicalization() {
  const std::string family = "canonicalization";
  RegisterPattern<CastCastPattern>(family);
  RegisterPattern<CastPattern>(family);
  RegisterPattern<NotNotPattern>(family);
  RegisterPattern<ConvBiasNullPattern>(family);
  RegisterPattern<PadConvPattern>(family);
  RegisterPattern<ClipClipPattern>(family);
  RegisterPattern<DropoutPattern>(family);
  RegisterPattern<ConstantToInitializerPattern>(family);
  RegisterPattern<CastCastBinaryPattern>(family);
  RegisterPattern<CastOpCastPattern>(family);
  RegisterPattern<IdentityPattern>(family);
}

void RegisterCollections() {
  const std::string family = "collections";
}

void RegisterExpand() {
  const std::string family = "expand";
}

}  // namespace

void RegisterPatterns() {
  RegisterCanonicalization();
  RegisterCollections();
  RegisterExpand();
}

}  // namespace onnxopt::onnx_patterns
