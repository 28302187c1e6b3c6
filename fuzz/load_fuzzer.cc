// libFuzzer target: parse arbitrary bytes as a model, build a GraphBuilder and run the
// cleanup passes. A crash, a sanitizer report, an exception from the cleanup of an
// accepted model, or a cleaned model that fails the graph checks is a finding. External
// data is not resolved (no base folder), so the fuzzer never reads files.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnx_core/passes/cleanup.h"
#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace onnxopt;
  ModelProto model;
  try {
    model = core::ir::ParseModel(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-input");
  } catch (const onnxopt::Error&) {
    return 0;  // Rejecting bad input with a typed error is the expected behaviour.
  }
  // The model passed the checks: cleanup must neither throw nor produce an invalid graph
  // (an exception escaping here is reported by libFuzzer as a crash).
  core::builder::GraphBuilder builder(std::move(model));
  core::builder::RunCleanupPasses(builder);
  core::ir::CheckModel(std::move(builder).TakeModel());
  return 0;
}
