// The only file that lists every built-in pattern, by family. Each family's block is
// kept apart so that families grow without touching each other's lines.

#include "onnx_extensions/patterns/dispatch_table.h"

#include "onnx_core/optimizer/pattern_registry.h"

// canonicalization
#include "onnx_extensions/patterns/canonicalization/cast_cast_pattern.h"

// collections

// expand
#include "onnx_extensions/patterns/expand/not_where_pattern.h"
#include "onnx_extensions/patterns/expand/unsqueeze_equal_pattern.h"
#include "onnx_extensions/patterns/expand/where_add_pattern.h"
#include "onnx_extensions/patterns/expand/expand_pattern.h"
#include "onnx_extensions/patterns/expand/expand_broadcast_pattern.h"
#include "onnx_extensions/patterns/expand/expand_swap_pattern.h"
#include "onnx_extensions/patterns/expand/swap_expand_unsqueeze_pattern.h"
#include "onnx_extensions/patterns/expand/expand_unsqueeze_expand_pattern.h"
#include "onnx_extensions/patterns/expand/shape_based_concat_expand_pattern.h"
#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_pattern.h"
#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_mat_mul_pattern.h"
#include "onnx_extensions/patterns/expand/shape_based_expand_cast_where_swap_pattern.h"
#include "onnx_extensions/patterns/expand/shape_based_expand_swap_pattern.h"
#include "onnx_extensions/patterns/expand/shape_based_static_expand_pattern.h"
#include "onnx_extensions/patterns/expand/swap_expand_reshape_pattern.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::RegisterPattern;

void RegisterCanonicalization() {
  const std::string family = "canonicalization";
  RegisterPattern<CastCastPattern>(family);
}

void RegisterCollections() {
  const std::string family = "collections";
}

void RegisterExpand() {
  const std::string family = "expand";
  RegisterPattern<NotWherePattern>(family);
  RegisterPattern<UnsqueezeEqualPattern>(family);
  RegisterPattern<WhereAddPattern>(family);
  RegisterPattern<ExpandPattern>(family);
  RegisterPattern<ExpandBroadcastPattern>(family);
  RegisterPattern<ExpandSwapPattern>(family);
  RegisterPattern<SwapExpandUnsqueezePattern>(family);
  RegisterPattern<ExpandUnsqueezeExpandPattern>(family);
  RegisterPattern<ShapeBasedConcatExpandPattern>(family);
  RegisterPattern<ShapeBasedExpandBroadcastPattern>(family);
  RegisterPattern<ShapeBasedExpandBroadcastMatMulPattern>(family);
  RegisterPattern<ShapeBasedExpandCastWhereSwapPattern>(family);
  RegisterPattern<ShapeBasedExpandSwapPattern>(family);
  RegisterPattern<ShapeBasedStaticExpandPattern>(family);
  RegisterPattern<SwapExpandReshapePattern>(family);
}

}  // namespace

void RegisterPatterns() {
  RegisterCanonicalization();
  RegisterCollections();
  RegisterExpand();
}

}  // namespace onnxopt::onnx_patterns
