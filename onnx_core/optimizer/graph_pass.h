#pragma once
// Graph passes and optimization stages.
//
// A pattern rewrites a few nodes around one candidate; some rewrites need the whole graph
// at once (the transpose optimizer pushes a Transpose through a chain of operators, copy
// elimination traces aliases across the graph). Those are GraphPasses: they edit the
// GraphBuilder in place, and the driver records what changed as one LocalRewriting batch,
// so --record and Replay reproduce them exactly like the patterns' batches.
//
// A GraphPass is a PatternOptimization (Match never matches, Apply throws): it is
// registered, selected (by name or family), listed and reported like a pattern, and a
// record points to it by name.
//
// Stages. Every pattern and pass belongs to a stage; GraphGraph::Optimize runs them in
// stage order, and within a stage first the passes (in registry order), then the match/
// apply loop over the stage's patterns (by priority):
//
//   kBeforeShapeInference  on the graph as loaded: no shapes are known (GraphGraph shape
//                          queries answer "unknown"), nothing is folded
//   kMain                  after shape inference, the first folding and cleanup; every
//                          built-in pattern; the transpose optimizer
//   kAfterPatterns         after the kMain loop converged (user rules that must see the
//                          built-in patterns' result)
//   kFinal                 last: passes that must see the final graph (copy elimination)
//
// After a pass that changed the graph, the cleanup passes run. A stage runs once: a
// later stage's rewrites do not wake an earlier stage's patterns. Within a stage, a pass
// may ask to run again after the loop (RunAgainAfterAdding).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::core::builder {

class GraphGraph;

// What a GraphPass tells the driver besides the edits it made to the builder.
struct PassResult {
  // Nodes the pass changed in place (inputs, outputs or attributes) or moved to another
  // position; they are recorded as removed and added again. Nodes the pass appended or
  // inserted, and nodes it erased, need not be listed: the driver finds them by address.
  // Surviving nodes that are not listed must keep their relative order.
  std::vector<const NodeProto*> modified_nodes;
  // Renames of values, applied by Replay after the batch to every use in this graph and
  // in graphs nested in it (the pass has applied them already).
  std::vector<std::pair<std::string, std::string>> value_renames;
  // What the pass counted ("pushes", "cancelled", ...): summed in the report's PassStats.
  std::map<std::string, std::int64_t> counters;
};

class GraphPass : public PatternOptimization {
 public:
  GraphPass() : PatternOptimization(0) {}

  // Rewrites `graph` (GraphGraph::Builder() is the graph; GraphGraph's queries are fresh
  // when Run starts and stale once the pass edits the builder: a pass keeps its own
  // bookkeeping). New values come from GraphBuilder::UniqueName; new initializers from
  // GraphGraph::MakeInitializer or GraphBuilder; local functions from GetOrAddFunction.
  // A pass must leave a valid graph (values defined before use, graph outputs kept), and
  // keeps the patterns' invariant: a value name never gets another content or shape (a
  // value whose content changes gets a new name). Shapes of added and modified nodes are
  // inferred by the driver afterwards.
  virtual void Run(GraphGraph& graph, PassResult& result) const = 0;

  // Whether the driver also runs the pass on nested graphs (each its own batch).
  virtual bool RunsOnSubgraphs() const { return true; }
  // Op types (ONNX domain) whose nodes, added by the patterns of the pass's stage, may give
  // the pass more to do (a pattern moves a Transpose past a Relu, and the transpose
  // optimizer can now push it through a Concat): after the stage's loop added such a node,
  // the pass runs again, and the loop again if the pass changed something (see
  // kStageRounds in optimize.cc). Empty: the pass runs once per stage.
  virtual std::set<std::string> RunAgainAfterAdding() const { return {}; }
  // Whether PassResult::modified_nodes lists every surviving node the pass changed in place
  // or moved. The driver then trusts the list; otherwise it serializes every node before
  // Run and every kept one after it to find the edits (a copy of the graph per run).
  // ONNXOPT_CHECK_INCREMENTAL compares anyway and fails on a node changed but not listed.
  virtual bool ListsEveryModifiedNode() const { return false; }

  MatchResult Match(GraphGraph& graph, const NodeProto& candidate) const final;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const final;
};

}  // namespace onnxopt::core::builder
