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
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"
#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"
#include "onnx_extensions/patterns/collections/gather_shape_pattern.h"
#include "onnx_extensions/patterns/collections/sequence_construct_at_pattern.h"
#include "onnx_extensions/patterns/collections/split_to_sequence_sequence_at_pattern.h"
#include "onnx_extensions/patterns/collections/slice_slice_pattern.h"
#include "onnx_extensions/patterns/collections/slices_split_pattern.h"
#include "onnx_extensions/patterns/collections/split_concat_pattern.h"

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

// algebra
#include "onnx_extensions/patterns/algebra/mul_mul_mul_scalar_pattern.h"
#include "onnx_extensions/patterns/algebra/switch_order_binary_pattern.h"
#include "onnx_extensions/patterns/algebra/swap_range_add_scalar_pattern.h"
#include "onnx_extensions/patterns/algebra/reduce_arg_top_k_pattern.h"
#include "onnx_extensions/patterns/algebra/reduce_sum_normalize_pattern.h"
#include "onnx_extensions/patterns/algebra/sub1_mul_pattern.h"
#include "onnx_extensions/patterns/algebra/swap_unary_pattern.h"
#include "onnx_extensions/patterns/algebra/same_children_pattern.h"
#include "onnx_extensions/patterns/algebra/same_children_from_input_pattern.h"
#include "onnx_extensions/patterns/algebra/shape_based_identity_pattern.h"
#include "onnx_extensions/patterns/algebra/shape_based_same_children_pattern.h"
#include "onnx_extensions/patterns/algebra/shape_based_shape_shape_add_pattern.h"

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
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<GatherGatherPattern>(family);
  RegisterPattern<GathersSplitPattern>(family);
  RegisterPattern<GatherShapePattern>(family);
  RegisterPattern<SequenceConstructAtPattern>(family);
  RegisterPattern<SplitToSequenceSequenceAtPattern>(family);
  RegisterPattern<SliceSlicePattern>(family);
  RegisterPattern<SlicesSplitPattern>(family);
  RegisterPattern<SplitConcatPattern>(family);
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

void RegisterAlgebra() {
  const std::string family = "algebra";
  RegisterPattern<MulMulMulScalarPattern>(family);
  RegisterPattern<SwitchOrderBinaryPattern>(family);
  RegisterPattern<SwapRangeAddScalarPattern>(family);
  RegisterPattern<ReduceArgTopKPattern>(family);
  RegisterPattern<ReduceSumNormalizePattern>(family);
  RegisterPattern<Sub1MulPattern>(family);
  RegisterPattern<SwapUnaryPattern>(family);
  RegisterPattern<SameChildrenPattern>(family);
  RegisterPattern<SameChildrenFromInputPattern>(family);
  RegisterPattern<ShapeBasedIdentityPattern>(family);
  RegisterPattern<ShapeBasedSameChildrenPattern>(family);
  RegisterPattern<ShapeBasedShapeShapeAddPattern>(family);
}

}  // namespace

void RegisterPatterns() {
  RegisterCanonicalization();
  RegisterCollections();
  RegisterExpand();
  RegisterAlgebra();
}

}  // namespace onnxopt::onnx_patterns
