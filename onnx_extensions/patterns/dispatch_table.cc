// The only file that lists every built-in pattern, by family. Each family's block is
// kept apart so that families grow without touching each other's lines.

#include "onnx_extensions/patterns/dispatch_table.h"

#include "onnx_core/optimizer/pattern_registry.h"

// canonicalization
#include "onnx_extensions/patterns/canonicalization/cast_cast_pattern.h"

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
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"
#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"
#include "onnx_extensions/patterns/collections/gather_shape_pattern.h"
#include "onnx_extensions/patterns/collections/sequence_construct_at_pattern.h"
#include "onnx_extensions/patterns/collections/split_to_sequence_sequence_at_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"
#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"
#include "onnx_extensions/patterns/collections/gather_shape_pattern.h"
#include "onnx_extensions/patterns/collections/sequence_construct_at_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"
#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"
#include "onnx_extensions/patterns/collections/gather_shape_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"
#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"
#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"
#include "onnx_extensions/patterns/collections/concat_empty_pattern.h"

// expand

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::RegisterPattern;

void RegisterCanonicalization() {
  const std::string family = "canonicalization";
  RegisterPattern<CastCastPattern>(family);
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
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<GatherGatherPattern>(family);
  RegisterPattern<GathersSplitPattern>(family);
  RegisterPattern<GatherShapePattern>(family);
  RegisterPattern<SequenceConstructAtPattern>(family);
  RegisterPattern<SplitToSequenceSequenceAtPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<GatherGatherPattern>(family);
  RegisterPattern<GathersSplitPattern>(family);
  RegisterPattern<GatherShapePattern>(family);
  RegisterPattern<SequenceConstructAtPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<GatherGatherPattern>(family);
  RegisterPattern<GathersSplitPattern>(family);
  RegisterPattern<GatherShapePattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<GatherGatherPattern>(family);
  RegisterPattern<GathersSplitPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<GatherGatherPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<GatherConcatPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatTwiceUnaryPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
  RegisterPattern<ConcatGatherPattern>(family);
  RegisterPattern<ConcatEmptyPattern>(family);
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
