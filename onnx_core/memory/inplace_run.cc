#include "onnx_core/memory/inplace_run.h"

#include <unordered_map>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/memory/copy_elimination.h"
#include "onnx_core/memory/memory_plan.h"

namespace onnxopt::core::memory {

eval::RunOptions InPlaceRunOptions(const ModelProto& model, const MemoryOptions& options) {
  builder::GraphBuilder builder{ModelProto(model)};
  builder.InferShapes();
  const MemoryGraph graph(builder.Graph(), true, options, TypeQueryOf(builder), FunctionKeys(builder.Functions()));
  eval::RunOptions run;
  for (const InPlaceWrite& write : CheckInPlaceWrites(graph, options))
    if (write.violation.empty() && !write.clobber)
      run.in_place_inputs[static_cast<int>(graph.Position(write.node))] = write.input;
  return run;
}

}  // namespace onnxopt::core::memory
