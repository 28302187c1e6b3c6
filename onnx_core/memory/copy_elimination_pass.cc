#include "onnx_core/memory/copy_elimination_pass.h"

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/memory/copy_elimination.h"
#include "onnx_core/optimizer/graph_graph.h"

namespace onnxopt::core::memory {

void CopyEliminationPass::Run(builder::GraphGraph& graph, builder::PassResult& result) const {
  builder::GraphBuilder& builder = graph.Builder();
  MemoryOptions options;
  // A batch records the graph's nodes, not edits of function bodies: traces go
  // through calls, copies inside bodies stay.
  options.copies_in_functions = false;
  CopyEliminationResult eliminated = EliminateCopies(builder, builder.IsRoot(), options);
  result.modified_nodes = std::move(eliminated.modified_nodes);
  result.value_renames = std::move(eliminated.value_renames);
  result.counters["copies"] += static_cast<std::int64_t>(eliminated.verdicts.size());
  result.counters["deleted"] += static_cast<std::int64_t>(eliminated.Count(CopyVerdict::Kind::kDeleted));
  result.counters["elided"] += static_cast<std::int64_t>(eliminated.Count(CopyVerdict::Kind::kElided));
  result.counters["kept"] += static_cast<std::int64_t>(eliminated.Count(CopyVerdict::Kind::kKept));
  result.counters["constraints"] += static_cast<std::int64_t>(eliminated.constraints.size());
  result.counters["nodes_moved"] += eliminated.nodes_moved;
  if (eliminated.work_limited) ++result.counters["work_limited"];
}

}  // namespace onnxopt::core::memory
