#pragma once
// Copy elimination (shared/docs/copy-elimination.md §7): removes a copy
// (ai.onnxopt.TensorMove, or Identity on a tensor) when reading and writing its
// source buffer directly cannot be observed. Per copy: trace the source through
// views and in-place writers, then Rules 1-5 in order (path validity, declared
// user memory, single path / fan-out with ordering constraints, read/write
// conflict, layout conflict), then apply: land the constraints by moving nodes
// (rolled back on failure), delete the copy.
//
// Local functions: each call site is analysed as an instance of the body
// (memory_graph.h). Traces go into a body at a call output and out to the call
// site at a formal input; copies inside bodies are decided per instance and
// written back into the function, or into specialized clones when call sites
// disagree (§7.6). Control-flow bodies are graphs of their own (the pass runs
// on each); captured values and formal inputs of a body stop a trace
// (`control-flow-source`).
//
// Work: an evaluation costs its trace and the uses it looks at (the siblings of every
// fanned-out value on the path, the copy's successors, the copies it makes pending
// again), and a rebuild of the analysis (after an edit an update does not cover) what
// the analysis holds. On exporters' graphs that is a few steps per copy, but one value
// read by n copies costs n steps for each of them, and a chain of n views read by n
// copies n per trace: a 1 MB model kept `onnxopt memory` busy for minutes. The pass
// counts these steps and stops, keeping the copies it has not decided, once they would
// exceed a limit linear in the graph (kWorkStepsPerUse per use of a value, at least
// kMinWorkSteps).

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "onnx_core/common/environment.h"
#include "onnx_core/memory/memory_graph.h"

namespace onnxopt::core::builder {
class GraphBuilder;
}

namespace onnxopt::core::memory {

struct CopyVerdict {
  enum class Kind { kDeleted, kElided, kKept };
  std::string copy;  // the copy's output name (as in the input graph); inside a
                     // function instance prefixed by MemoryGraph::InstanceLabel()
  Kind kind = Kind::kKept;
  int rule = 0;        // the rule that kept it (1-5); 0 for reserved / apply-failed / removed
  std::string reason;  // "" when removed
  std::string path;    // source first: "a(out:0) --> r(out:0) --> (in:0) t"
  std::vector<std::pair<std::string, std::string>> constraints;  // landed, by first output names
};
std::string VerdictText(const CopyVerdict& verdict);  // "DELETED", "ELIDED", "KEPT(3, fanout-not-direct)"

// Hooks for the rollback tests (§11 Y4, Y5), and the checks of the updated analysis.
struct CopyEliminationHooks {
  // After each copy the pass removes it updates its analysis of the graph rather than
  // building it again (MemoryGraph::UpdateAfterCopyRemoval). Checked: it also builds it
  // again and fails with an internal error on any difference. Off: it builds it again,
  // as before the updates, to compare.
  bool check_incremental = EnvironmentFlag("ONNXOPT_CHECK_INCREMENTAL", false);
  bool incremental = EnvironmentFlag("ONNXOPT_INCREMENTAL", true);
  // Called after the pending constraints landed; returning false fails the
  // deletion.
  std::function<bool()> after_constraints_landed;
  // Called between the checks and the landing; may add constraints (before,
  // after) by first output name, which then count as landed.
  std::function<std::vector<std::pair<std::string, std::string>>()> inject_constraints;
};

// The default work limit: kMinWorkSteps + kWorkStepsPerUse x (node inputs + graph
// outputs) of the graph and of the function bodies its calls instantiate. The 400-layer
// decoder (8 401 copies deleted) needs 1.4 steps per use; one value read by 2 000 copies
// (each read by one node), 2 000 (docs/memory.md). A step takes about 0.1 us.
inline constexpr std::uint64_t kMinWorkSteps = std::uint64_t{1} << 24;
inline constexpr std::uint64_t kWorkStepsPerUse = 64;

struct CopyEliminationResult {
  std::vector<CopyVerdict> verdicts;                             // one per copy, in order of the copies' final decision
  std::vector<std::pair<std::string, std::string>> constraints;  // every constraint in the graph after the pass
  std::vector<const NodeProto*> modified_nodes;                  // moved or renamed nodes (still alive)
  std::vector<std::pair<std::string, std::string>> value_renames;  // (from, to), applied already
  std::set<const NodeProto*> elided;                               // copies to execute as aliases
  // Copies inside function instances that execute as aliases but stay in the
  // written bodies (for a MemoryGraph of the model after the pass).
  InstanceEdits instance_edits;
  std::int64_t nodes_moved = 0;
  std::int64_t evaluations = 0;
  bool capped = false;  // the evaluation cap ended the pass
  std::uint64_t work_steps = 0;  // spent, of work_limit
  std::uint64_t work_limit = 0;
  bool work_limited = false;  // the work limit ended the pass: the copies left are kept
  std::size_t Count(CopyVerdict::Kind kind) const;
};

// Runs the pass on `graph` (the builder's own graph, not its nested graphs).
// `top_level`: the model's main graph. Throws onnxopt::Error for an option
// naming an unknown node.
CopyEliminationResult EliminateCopies(builder::GraphBuilder& graph, bool top_level, const MemoryOptions& options,
                                      const CopyEliminationHooks& hooks = {});

// An element-type query over the builder's shape inference (0 when unknown).
ElementTypeQuery TypeQueryOf(const builder::GraphBuilder& graph);

}  // namespace onnxopt::core::memory
