#pragma once
// The memory planner's report (`onnxopt memory`): the functional plan (every
// copy and every in-place-capable writer copies) against the plan after copy
// elimination (writers in place where CheckInPlaceWrites allows it), with every
// copy's verdict.

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/memory/copy_elimination.h"
#include "onnx_core/memory/memory_plan.h"

namespace onnxopt::core::builder {
class GraphBuilder;
}

namespace onnxopt::core::memory {

struct MemoryReport {
  MemoryCost before;
  MemoryCost after;
  std::int64_t copies_before = 0;  // copy nodes in the model
  CopyEliminationResult elimination;
  std::int64_t writers = 0;           // in-place-capable writes
  std::int64_t writers_in_place = 0;  // of them, safe in place after the pass
};

// Runs the pass on the builder's main graph (shapes must be inferred: sizes
// come from them) and measures both plans. The builder holds the graph after
// the pass.
MemoryReport PlanMemory(builder::GraphBuilder& graph, const MemoryOptions& options);

// Byte size of a value from shape inference: static shape and known element
// type, else nullopt.
SizeQuery SizeQueryOf(const builder::GraphBuilder& graph);

std::string ReportText(const MemoryReport& report);
std::string ReportJson(const MemoryReport& report);

}  // namespace onnxopt::core::memory
