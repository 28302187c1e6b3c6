#pragma once
// The in-place plan of one graph and its cost (§2.1, §2.3).
//
// Which in-place writes are safe (the ResolveConflicts condition, checked as
// VerifyPlan's buffer-version rule): a writer or clobberer may use its input's
// buffer only when that buffer version is not immutable (initializer,
// Constant), not caller memory without a declaration, not captured from an
// enclosing graph, not a graph output, and every other reader of that version
// runs before the write. A write that is not safe runs out of place (the
// resolver's reserved copy).
//
// The cost: bytes copied (copy nodes that still copy, plus writers running out
// of place) and peak live bytes over the node order (graph inputs and
// initializers reported apart).

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/memory/memory_graph.h"

namespace onnxopt::core::memory {

struct InPlaceWrite {
  const NodeProto* node = nullptr;
  int input = 0;
  bool clobber = false;   // ScopeWriteable rather than Writeable
  std::string violation;  // empty: safe to run in place
  // The other nodes reading the buffer version the write overwrites (when the
  // write is safe, all scheduled before it: the orderings that keep it safe).
  std::vector<const NodeProto*> readers;
};

// Every declared write and clobber of `graph`, with the reason it may not run
// in place.
std::vector<InPlaceWrite> CheckInPlaceWrites(const MemoryGraph& graph, const MemoryOptions& options);

// The writers among `writes` that must run out of place.
std::set<const NodeProto*> UnsafeWriters(const std::vector<InPlaceWrite>& writes);

// The copy nodes of `graph` and of the function instances it calls (nested
// ones included), each with its graph.
std::vector<std::pair<const MemoryGraph*, const NodeProto*>> CopiesOf(const MemoryGraph& graph);

// Byte size of a value; nullopt when unknown.
using SizeQuery = std::function<std::optional<std::int64_t>(std::string_view value)>;

struct MemoryCost {
  std::int64_t copies = 0;  // copy nodes that copy, plus writers out of place
  std::int64_t bytes_copied = 0;
  std::int64_t peak_bytes = 0;  // intermediate buffers (graph inputs and initializers apart)
  std::int64_t input_bytes = 0;
  std::int64_t initializer_bytes = 0;
  std::int64_t unknown_sizes = 0;  // buffers whose size is unknown (counted as 0)
};

// The cost of the plan in which every copy of `graph` and of its function
// instances copies (except the elided ones it was built with; `size_of` answers
// for `graph`'s values, a body value has the size of the call's value bound to
// it, or of the value it views) and the writers of `out_of_place` copy their written
// input (`writes` as CheckInPlaceWrites found them; `graph` built with the same
// `out_of_place`).
MemoryCost PlanCost(const MemoryGraph& graph, const std::vector<InPlaceWrite>& writes,
                    const std::set<const NodeProto*>& out_of_place, const SizeQuery& size_of);

}  // namespace onnxopt::core::memory
