#pragma once
// The edits of one push (transpose-optimizer.md section 3.4): executing a
// PushPlan, the Transpose-after-Transpose cancel/merge (4.10), and the constant
// helpers they share.

#include <optional>

#include "onnx_extensions/transpose/handlers.h"
#include "onnx_extensions/transpose/perm.h"
#include "onnx_extensions/transpose/push_graph.h"

namespace onnxopt::onnx_transpose {

// Pushes the Transpose of perm `perm` feeding `node` through it, as `plan`
// says: the plan's inputs get Transpose(·, P⁻¹) (constants permuted into new
// initializers, inverse Transposes cancelled, others composed, existing ones
// reused, else a new Transpose), the node's attributes and inputs are edited,
// and each output gets a copy carrying its old name.
void ExecutePlan(PushGraph& graph, NodeId node, const Perm& perm, const PushPlan& plan);

enum class TransposePair { kCancelled, kMerged };
// `second` (a Transpose reading the output of Transpose `first`, same rank)
// cancels with it or takes its input with the composed perm; `first` goes when
// unused.
TransposePair FoldTransposePair(PushGraph& graph, NodeId first, NodeId second);

// `tensor` transposed by `perm` (same element type; nullopt for strings or
// external data).
std::optional<TensorProto> PermuteConstant(const TensorProto& tensor, const Perm& perm);

}  // namespace onnxopt::onnx_transpose
