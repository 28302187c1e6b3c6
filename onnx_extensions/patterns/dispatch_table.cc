// The only file that lists every built-in pattern, by family. Each family's block is
// kept apart so that families grow without touching each other's lines.

#include "onnx_extensions/patterns/dispatch_table.h"

#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_extensions/patterns/pattern_docs.h"
#include "onnx_extensions/transpose/transpose_optimizer.h"

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

// reshape
#include "onnx_extensions/patterns/reshape/reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/shaped_based_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/reshape_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/reduce_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/reshape2_of3_pattern.h"
#include "onnx_extensions/patterns/reshape/reshape_reshape_binary_pattern.h"
#include "onnx_extensions/patterns/reshape/concat_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/static_concat_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/shape_based_edit_distance_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/shape_based_reshape_is_squeeze_pattern.h"
#include "onnx_extensions/patterns/reshape/unsqueeze_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/unsqueeze_or_squeeze_reshape_pattern.h"
#include "onnx_extensions/patterns/reshape/reshape_squeeze_pattern.h"

// layout
#include "onnx_extensions/patterns/layout/squeeze_unsqueeze_pattern.h"
#include "onnx_extensions/patterns/layout/unsqueeze_unsqueeze_pattern.h"
#include "onnx_extensions/patterns/layout/squeeze_add_pattern.h"
#include "onnx_extensions/patterns/layout/mul_unsqueeze_unsqueeze_pattern.h"
#include "onnx_extensions/patterns/layout/squeeze_binary_unsqueeze_pattern.h"
#include "onnx_extensions/patterns/layout/swap_unsqueeze_transpose_pattern.h"
#include "onnx_extensions/patterns/layout/transpose_equal_reshape_pattern.h"
#include "onnx_extensions/patterns/layout/transpose_gather_pattern.h"
#include "onnx_extensions/patterns/layout/transpose_reshape_transpose_pattern.h"
#include "onnx_extensions/patterns/layout/transpose_transpose_pattern.h"
#include "onnx_extensions/patterns/layout/shape_transpose_pattern.h"
#include "onnx_extensions/patterns/layout/unsqueeze_shape_pattern.h"
#include "onnx_extensions/patterns/layout/dequantize_linear_reshape_pattern.h"
#include "onnx_extensions/patterns/layout/dequantize_linear_transpose_pattern.h"

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

// matmul
#include "onnx_extensions/patterns/matmul/gemm_transpose_pattern.h"
#include "onnx_extensions/patterns/matmul/mat_mul_add_pattern.h"
#include "onnx_extensions/patterns/matmul/mat_mul_reshape2_of3_pattern.h"
#include "onnx_extensions/patterns/matmul/mul_mul_mat_mul_pattern.h"
#include "onnx_extensions/patterns/matmul/reshape_mat_mul_reshape_pattern.h"
#include "onnx_extensions/patterns/matmul/shape_based_mat_mul_to_mul_pattern.h"
#include "onnx_extensions/patterns/matmul/switch_reshape_activation_pattern.h"
#include "onnx_extensions/patterns/matmul/transpose_mat_mul_pattern.h"
#include "onnx_extensions/patterns/matmul/transpose_reshape_mat_mul_pattern.h"
// normalization
#include "onnx_extensions/patterns/normalization/batch_normalization_pattern.h"
#include "onnx_extensions/patterns/normalization/batch_normalization_training_pattern.h"
#include "onnx_extensions/patterns/normalization/cast_layer_normalization_cast_pattern.h"
#include "onnx_extensions/patterns/normalization/layer_normalization_pattern.h"
#include "onnx_extensions/patterns/normalization/layer_normalization_scale_pattern.h"
#include "onnx_extensions/patterns/normalization/rms_normalization_pattern.h"
#include "onnx_extensions/patterns/normalization/rms_normalization_mul_pattern.h"
#include "onnx_extensions/patterns/normalization/gelu_pattern.h"
#include "onnx_extensions/patterns/normalization/leaky_relu_pattern.h"
#include "onnx_extensions/patterns/normalization/max_relu_pattern.h"
#include "onnx_extensions/patterns/normalization/softmax_cross_entropy_loss_cast_pattern.h"
// attention

// memory
#include "onnx_core/memory/copy_elimination_pass.h"
#include "onnx_extensions/memory/register_memory_traits.h"
#include "onnx_extensions/patterns/attention/attention_gqa_from_function_pattern.h"
#include "onnx_extensions/patterns/attention/attention_gqa_pattern.h"
#include "onnx_extensions/patterns/attention/function_attention_gqa_pattern.h"
#include "onnx_extensions/patterns/attention/function_attention_pattern.h"
#include "onnx_extensions/patterns/attention/function_causal_mask_mul_add_pattern.h"
#include "onnx_extensions/patterns/attention/function_causal_mask_pattern.h"
#include "onnx_extensions/patterns/attention/function_cos_sin_cache_pattern.h"
#include "onnx_extensions/patterns/attention/function_half_rotary_embedding_pattern.h"
#include "onnx_extensions/patterns/attention/rotary_concat_part_pattern.h"
#include "onnx_extensions/patterns/attention/rotary_embedding_pattern.h"
// fusion
#include "onnx_extensions/patterns/fusion/concat_concat_pattern.h"
#include "onnx_extensions/patterns/fusion/conv_add_pattern.h"
#include "onnx_extensions/patterns/fusion/conv_batch_normalization_pattern.h"
#include "onnx_extensions/patterns/fusion/conv_mul_pattern.h"
#include "onnx_extensions/patterns/fusion/div_power_of_two_pattern.h"
#include "onnx_extensions/patterns/fusion/pad_pool_pattern.h"

// elimination
#include "onnx_extensions/patterns/elimination/arg_injective_op_pattern.h"
#include "onnx_extensions/patterns/elimination/arg_monotone_op_pattern.h"
#include "onnx_extensions/patterns/elimination/dequantize_linear_quantize_linear_pattern.h"
#include "onnx_extensions/patterns/elimination/concat_single_input_pattern.h"
#include "onnx_extensions/patterns/elimination/flatten_same_shape_pattern.h"
#include "onnx_extensions/patterns/elimination/if_constant_condition_pattern.h"
#include "onnx_extensions/patterns/elimination/neutral_operand_pattern.h"
#include "onnx_extensions/patterns/elimination/pad_zeros_pattern.h"
#include "onnx_extensions/patterns/elimination/resize_same_size_pattern.h"
#include "onnx_extensions/patterns/elimination/split_single_output_pattern.h"

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

void RegisterReshape() {
  const std::string family = "reshape";
  RegisterPattern<ReshapePattern>(family);
  RegisterPattern<ShapedBasedReshapePattern>(family);
  RegisterPattern<ReshapeReshapePattern>(family);
  RegisterPattern<ReduceReshapePattern>(family);
  RegisterPattern<Reshape2Of3Pattern>(family);
  RegisterPattern<ReshapeReshapeBinaryPattern>(family);
  RegisterPattern<ConcatReshapePattern>(family);
  RegisterPattern<StaticConcatReshapePattern>(family);
  RegisterPattern<ShapeBasedEditDistanceReshapePattern>(family);
  RegisterPattern<ShapeBasedReshapeIsSqueezePattern>(family);
  RegisterPattern<UnsqueezeReshapePattern>(family);
  RegisterPattern<UnsqueezeOrSqueezeReshapePattern>(family);
  RegisterPattern<ReshapeSqueezePattern>(family);
}

void RegisterLayout() {
  const std::string family = "layout";
  RegisterPattern<SqueezeUnsqueezePattern>(family);
  RegisterPattern<UnsqueezeUnsqueezePattern>(family);
  RegisterPattern<SqueezeAddPattern>(family);
  RegisterPattern<MulUnsqueezeUnsqueezePattern>(family);
  RegisterPattern<SqueezeBinaryUnsqueezePattern>(family);
  RegisterPattern<SwapUnsqueezeTransposePattern>(family);
  RegisterPattern<TransposeEqualReshapePattern>(family);
  RegisterPattern<TransposeGatherPattern>(family);
  RegisterPattern<TransposeReshapeTransposePattern>(family);
  RegisterPattern<TransposeTransposePattern>(family);
  RegisterPattern<ShapeTransposePattern>(family);
  RegisterPattern<UnsqueezeShapePattern>(family);
  RegisterPattern<DequantizeLinearTransposePattern>(family);
  RegisterPattern<DequantizeLinearReshapePattern>(family);
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

void RegisterMatmul() {
  const std::string family = "matmul";
  RegisterPattern<GemmTransposePattern>(family);
  RegisterPattern<MatMulAddPattern>(family);
  RegisterPattern<MatMulReshape2Of3Pattern>(family);
  RegisterPattern<MulMulMatMulPattern>(family);
  RegisterPattern<ReshapeMatMulReshapePattern>(family);
  RegisterPattern<ShapeBasedMatMulToMulPattern>(family);
  RegisterPattern<SwitchReshapeActivationPattern>(family);
  RegisterPattern<TransposeMatMulPattern>(family);
  RegisterPattern<TransposeReshapeMatMulPattern>(family);
}

void RegisterNormalization() {
  const std::string family = "normalization";
  RegisterPattern<BatchNormalizationPattern>(family);
  RegisterPattern<BatchNormalizationTrainingPattern>(family);
  RegisterPattern<CastLayerNormalizationCastPattern>(family);
  RegisterPattern<LayerNormalizationPattern>(family);
  RegisterPattern<LayerNormalizationScalePattern>(family);
  RegisterPattern<RMSNormalizationPattern>(family);
  RegisterPattern<RMSNormalizationMulPattern>(family);
  RegisterPattern<GeluPattern>(family);
  RegisterPattern<LeakyReluPattern>(family);
  RegisterPattern<MaxReluPattern>(family);
  RegisterPattern<SoftmaxCrossEntropyLossCastPattern>(family);
}

void RegisterAttention() {
  const std::string family = "attention";
  RegisterPattern<RotaryConcatPartPattern>(family);
  RegisterPattern<RotaryEmbeddingPattern>(family);
  RegisterPattern<AttentionGQAPattern>(family);
  RegisterPattern<AttentionGQAFromFunctionPattern>(family);
  RegisterPattern<FunctionHalfRotaryEmbeddingPattern>(family);
  RegisterPattern<FunctionCosSinCachePattern>(family);
  RegisterPattern<FunctionCausalMaskPattern>(family);
  RegisterPattern<FunctionCausalMaskMulAddPattern>(family);
  RegisterPattern<FunctionAttentionPattern>(family);
  RegisterPattern<FunctionAttentionGQAPattern>(family);
}

void RegisterFusion() {
  const std::string family = "fusion";
  RegisterPattern<ConvBatchNormalizationPattern>(family);
  RegisterPattern<ConvMulPattern>(family);
  RegisterPattern<ConvAddPattern>(family);
  RegisterPattern<DivPowerOfTwoPattern>(family);
  RegisterPattern<ConcatConcatPattern>(family);
  RegisterPattern<PadPoolPattern>(family);
}

void RegisterElimination() {
  const std::string family = "elimination";
  RegisterPattern<SplitSingleOutputPattern>(family);
  RegisterPattern<ConcatSingleInputPattern>(family);
  RegisterPattern<PadZerosPattern>(family);
  RegisterPattern<FlattenSameShapePattern>(family);
  RegisterPattern<ResizeSameSizePattern>(family);
  RegisterPattern<NeutralOperandPattern>(family);
  RegisterPattern<IfConstantConditionPattern>(family);
  RegisterPattern<ArgInjectiveOpPattern>(family);
  RegisterPattern<ArgMonotoneOpPattern>(family);
  RegisterPattern<DequantizeLinearQuantizeLinearPattern>(family);
}

}  // namespace

void RegisterPatterns() {
  RegisterCanonicalization();
  RegisterCollections();
  RegisterExpand();
  RegisterReshape();
  RegisterLayout();
  RegisterAlgebra();
  RegisterMatmul();
  RegisterNormalization();
  RegisterAttention();
  onnx_transpose::RegisterTransposeOptimizer();
  RegisterFusion();
  RegisterElimination();
  // memory: the operator traits the pass reads, then the pass itself
  onnx_memory::RegisterMemoryTraits();
  RegisterPattern<core::memory::CopyEliminationPass>("memory");
  RegisterPatternDocs();
}

}  // namespace onnxopt::onnx_patterns
