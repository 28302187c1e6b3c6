#include "onnx_core/memory/inplace_run.h"

#include <unordered_map>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/memory/copy_elimination.h"
#include "onnx_core/memory/memory_plan.h"

namespace onnxopt::core::memory {

eval::RunOptions InPlaceRunOptions(const ModelProto& model, const MemoryOptions& options) {
  builder::GraphBuilder builder{ModelProto(model)};
  builder.InferShapes();
  const MemoryGraph graph(builder.Graph(), true, options, TypeQueryOf(builder), builder.Functions());
  eval::RunOptions run;
  // The evaluator puts a node's output 0 into the input's buffer: only a write
  // that output 0 aliases (GroupQueryAttention's caches are outputs 1 and 2).
  for (const InPlaceWrite& write : CheckInPlaceWrites(graph, options))
    if (write.violation.empty() && !write.clobber && graph.AliasedInput(*write.node, 0) == write.input)
      run.in_place_inputs[static_cast<int>(graph.Position(write.node))] = write.input;
  return run;
}

}  // namespace onnxopt::core::memory
