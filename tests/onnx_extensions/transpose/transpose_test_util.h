#pragma once
// Fixtures of the transpose optimizer tests: the pass is run directly on a
// GraphGraph (as the driver does), graphs are compared with the pattern tests'
// CanonicalGraph and outputs with their ExpectSameOutputs.

#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/graph_pass.h"
#include "onnx_extensions/transpose/transpose_optimizer.h"

namespace onnxopt::testing {

struct TransposeRun {
  ModelProto model;
  core::builder::PassResult result;
  std::int64_t Counter(const std::string& name) const {
    auto it = result.counters.find(name);
    return it == result.counters.end() ? 0 : it->second;
  }
};

// Infers shapes of `model` and runs the pass once on its main graph.
TransposeRun RunTransposeOptimizer(ModelProto model, const onnx_transpose::TransposeOptimizerOptions& options = {},
                                   bool infer_shapes = true);

// The pass turns `before` into exactly `after`, a second run changes nothing,
// and both graphs compute equal outputs on random inputs.
void ExpectTransposeRewrite(std::string_view before, std::string_view after,
                            const onnx_transpose::TransposeOptimizerOptions& options = {});

// The same for a rewrite that sums elements in another order: outputs equal within
// `tolerance` (relative, as the rounding pattern tests compare).
void ExpectTransposeRewriteRounding(std::string_view before, std::string_view after, double tolerance);

// The pass leaves `model` unchanged and reports `reason` among its stops.
void ExpectTransposeUnchanged(std::string_view model, std::string_view reason,
                              const onnx_transpose::TransposeOptimizerOptions& options = {});

// Number of Transpose nodes of the main graph.
int CountTransposes(const ModelProto& model);

}  // namespace onnxopt::testing
