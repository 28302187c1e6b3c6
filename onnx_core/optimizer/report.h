#pragma once
// OptimizationReport: what GraphGraph::Optimize did and where the time went.
//
// Opt-in (pass a pointer to Optimize). Times are wall-clock nanoseconds. Root phase times
// exclude the work done in nested graphs, which subgraph_optimization_time_ns counts
// once, so TotalTimeNs() never counts anything twice. Counters (iterations, matches,
// rewrites) aggregate the whole graph hierarchy.

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string_view>
#include <string>
#include <tuple>
#include <vector>

#include "onnx_core/ir/input_shapes.h"

namespace onnxopt::core::builder {

struct PatternStats {
  std::string name;
  int priority = 0;
  std::size_t match_calls = 0;    // candidates tried
  std::size_t matched = 0;        // successful matches
  std::size_t applied = 0;        // matches applied (not skipped as overlapping/protected)
  std::size_t refused = 0;        // matches whose replacement the driver refused (refused_rewrites)
  std::int64_t match_time_ns = 0; // all Match calls
  std::int64_t apply_time_ns = 0; // all Apply calls
  std::size_t removed_nodes = 0;  // matched nodes removed by applied matches
  std::size_t added_nodes = 0;    // replacement nodes added
};

struct CleanupStats {
  std::string name;  // RemoveIdentityNodes, ..., FoldConstants
  std::size_t runs = 0;  // effective runs (records)
  std::size_t removed_nodes = 0;
  std::size_t removed_initializers = 0;
  std::size_t renames = 0;
  std::size_t removed_functions = 0;  // local functions (RemoveUnusedFunctions)
};

// A graph pass (graph_pass.h) over every graph it ran on.
struct PassStats {
  std::string name;
  std::string stage;          // OptimizationStageName
  std::size_t runs = 0;       // graphs it ran on
  std::size_t changed = 0;    // runs that changed the graph (one record each)
  std::int64_t time_ns = 0;   // in GraphPass::Run
  std::size_t removed_nodes = 0;  // changed nodes count as removed and added
  std::size_t added_nodes = 0;
  std::map<std::string, std::int64_t> counters;  // PassResult::counters, summed
};

// One NoMatch site: how often a pattern rejected a candidate at this line for this reason.
struct NoMatchStats {
  std::string pattern;
  std::string file;
  unsigned line = 0;
  std::string reason;
  std::size_t count = 0;
};

struct SubgraphStats {
  std::string path;  // GraphBuilder::PathString()
  std::int64_t time_ns = 0;   // wall clock of its optimization, nested graphs included
  std::size_t iterations = 0;
  std::size_t rewrites = 0;   // records, cleanup included
};

// Nodes each phase visited, summed over the whole optimization: a phase that walks the
// whole graph counts every node of it, so these show how far each phase stays from
// "nodes x iterations" (what incremental work saves, and what is still whole-graph).
struct PhaseNodes {
  std::size_t indexing = 0;          // index builds; incremental matching comparing the graph with its snapshot
  std::size_t matching = 0;          // Match calls (a node skipped by incremental matching is not visited)
  std::size_t rewriting = 0;         // rebuilds of the node field, one visit per node before the batch
  std::size_t shape_inference = 0;   // nodes whose shapes were inferred
  std::size_t constant_folding = 0;  // nodes examined for folding
  std::size_t cleanup = 0;           // each cleanup pass run counts the nodes of the graph it ran on
  std::size_t graph_passes = 0;      // each graph pass run counts the nodes of the graph it ran on

  std::size_t Total() const {
    return indexing + matching + rewriting + shape_inference + constant_folding + cleanup + graph_passes;
  }
  void Add(const PhaseNodes& other);
};

struct OptimizationReport {
  std::int64_t matching_time_ns = 0;
  std::int64_t rewriting_time_ns = 0;  // Apply, validation, rebuilding the node field
  std::int64_t cleanup_time_ns = 0;
  std::int64_t constant_folding_time_ns = 0;
  std::int64_t shape_inference_time_ns = 0;  // of added nodes
  std::int64_t indexing_time_ns = 0;
  std::int64_t subgraph_optimization_time_ns = 0;
  std::int64_t passes_time_ns = 0;  // GraphPass::Run
  PhaseNodes nodes_visited;  // a counter: nested graphs included

  std::size_t iterations = 0;
  int max_iter = 0;  // the main graph's bound
  bool reached_max_iter = false;  // some graph stopped at its bound, not at convergence
  std::size_t nodes_before = 0;   // main graph
  std::size_t nodes_after = 0;
  std::size_t rewrites = 0;  // records

  std::vector<PatternStats> patterns;       // in driver order
  std::vector<PassStats> passes;            // in first-run order
  std::vector<CleanupStats> cleanup;        // in first-run order
  std::vector<NoMatchStats> no_matches;     // when collected, most frequent first
  std::vector<SubgraphStats> subgraphs;     // in optimization order (innermost first)
  // All-constant nodes that folding left alone: "name (OpType): reason" (too large, no
  // kernel, external data...), each node once, in the order folding met them.
  std::vector<std::string> not_folded;
  // Matches the driver did not apply because a replacement node breaks its operator's
  // signature at the model's opset (a defect of the pattern): "Pattern: node: rule; found
  // ...", each distinct refusal once, in the order they happened.
  std::vector<std::string> refused_rewrites;

  std::int64_t TotalTimeNs() const;
  std::string ToString() const;  // for people
  // For tools; documented in docs/optimizer.md. `input_shapes`: the settings the model was
  // specialised with before optimizing (they belong to the caller, not to the optimizer).
  std::string ToJson(const ir::InputShapeSettings& input_shapes = {}) const;

  // Used by the driver.
  PatternStats& Pattern(const std::string& name, int priority);
  CleanupStats& Cleanup(const std::string& name);
  PassStats& Pass(const std::string& name, std::string_view stage);
  void AddNoMatch(const std::string& pattern, const char* file, unsigned line, std::string_view reason);
  // Adds the counters of a nested graph's report (not its phase times).
  void MergeCounters(const OptimizationReport& nested);
  void SortNoMatches();
  void AddNotFolded(const std::vector<std::string>& skipped);
  void AddRefused(const std::string& refusal);

 private:
  std::map<std::tuple<std::string, std::string, unsigned, std::string>, std::size_t> no_match_counts_;
  std::set<std::string> not_folded_seen_, refused_seen_;
};

}  // namespace onnxopt::core::builder
