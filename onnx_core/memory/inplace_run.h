#pragma once
// The evaluator's in-place execution of a model: the plan (which writers may put their
// output into their data input's buffer) comes from CheckInPlaceWrites on the main graph.

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/memory/memory_graph.h"

namespace onnxopt::core::memory {

// Infers shapes on a copy of `model` and lists the main-graph writers that run in place
// safely (clobbers are not executed in place: no built-in kernel clobbers).
eval::RunOptions InPlaceRunOptions(const ModelProto& model, const MemoryOptions& options);

}  // namespace onnxopt::core::memory
