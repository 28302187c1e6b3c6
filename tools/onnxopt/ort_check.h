#pragma once
// `optimize --check N --check-with onnxruntime`: the same comparison as --check, made by
// onnxruntime (the npm package onnxruntime-node, run by Node.js) instead of our evaluator,
// so that a rewrite is also judged by an independent implementation of the operators.
//
// The work is done by the harness tests/ort/compare_models.js (same seeded inputs and
// tolerance rules as --check and `onnxopt verify`), which the build copies to
// build/ort/ and `cmake --install` to share/onnxopt/ort/. onnxruntime-node is not bundled:
// Node.js finds it from the harness's folder upwards (the repository's node_modules for a
// build inside the checkout) or through NODE_PATH.

#include <string>

#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/verify/model_comparison.h"

namespace onnxopt::cli {

// The harness: $ONNXOPT_ORT_HARNESS, else ort/compare_models.js next to the executable,
// else ../share/onnxopt/ort/compare_models.js from it. Empty when none exists.
std::string FindOrtHarness();

// Runs `original` (written to a temporary folder first: the file on disk may have been
// replaced by the output, or specialised by input shape settings) and the model saved at
// `saved` in onnxruntime on `runs` seeded input sets, then on the empty-dimension sets of
// `empty` (its dims, each 0 in turn, seed 0: model_comparison.h); a set with which
// onnxruntime cannot run the original is skipped. Returns kOk when every output
// matches, kMismatch when one differs (or the saved model fails to run where the original
// runs), and throws IoError when the check cannot be made (no node, no harness,
// onnxruntime-node missing, a model onnxruntime cannot run on the random sets), with the
// harness's own message. Only the harness's report of what differs is printed, not its
// line per matching output.
int CheckWithOnnxruntime(const ModelProto& original, const std::string& saved, int runs,
                         const core::verify::EmptyDimensionRounds& empty,
                         const core::eval::ToleranceOptions& tolerances, bool quiet);

}  // namespace onnxopt::cli
