#pragma once
// The mode an operator runs in when its attributes, its outputs and the opset decide it
// together: the evaluator's kernel and the patterns that rewrite the operator must read
// the node the same way, or a pattern folds what the kernel trains.

#include <cstdint>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// Whether a BatchNormalization normalizes with the statistics of its batch (and updates
// the running ones) rather than with its mean and var inputs, at `opset` (the version of
// the default domain). From opset 14 the attribute training_mode says it (0 by default).
// Opsets 7 to 13 have no attribute: the outputs say it ("Output case #1: Y, mean, var,
// saved_mean, saved_var (training mode)"), and onnxruntime trains when the node declares
// more than one output, empty names included. Opsets 1 and 6: the attribute is_test, whose
// default 0 means training. Returns why it trains, a complete sentence for a pattern's
// NoMatch (a literal), or "" when it does not. An attribute of the wrong type is a
// ModelError.
std::string_view WhyBatchNormalizationTrains(const NodeProto& node, std::int64_t opset);
inline bool BatchNormalizationTrains(const NodeProto& node, std::int64_t opset) {
  return !WhyBatchNormalizationTrains(node, opset).empty();
}

}  // namespace onnxopt::core::ir
