#include "onnx_core/memory/copy_elimination.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/memory/layout_conflict.h"
#include "onnx_core/memory/memory_plan.h"
#include "onnx_core/memory/node_order.h"
#include "onnx_core/shapes/sym_tensor.h"

namespace onnxopt::core::memory {

namespace {

using builder::GraphBuilder;
using Kind = Definition::Kind;

// One element of a trace, nearest to the copy first (§7.2).
struct PathEntry {
  std::string label;                // value name, or the boundary node's description
  bool has_anchor = false;          // false for a boundary marker
  std::string value;                // the out-anchor's value when has_anchor
  const NodeProto* node = nullptr;  // producer node (null for pseudo producers), or the call at a boundary
  int output = -1;
  const MemoryGraph* graph = nullptr;  // the graph (top level, body or function instance) of the entry
};

enum class SourceKind { kNone, kControlFlow, kFunctionCall, kNode, kConstantNode, kGraphInput, kInitializer };

struct Trace {
  std::vector<PathEntry> path;
  SourceKind source = SourceKind::kNone;
  std::string source_value;                   // the source's out-anchor value
  const MemoryGraph* source_graph = nullptr;  // the graph defining source_value
};

// The decision of the rules for one copy.
struct Decision {
  int rule = 0;
  std::string reason;  // empty: every rule passed
  std::vector<std::pair<const NodeProto*, const NodeProto*>> pending;
};

Decision Keep(int rule, std::string reason) { return {rule, std::move(reason), {}}; }

std::string FirstOutput(const NodeProto& node) {
  for (const std::string& output : node.output())
    if (!output.empty()) return output;
  return node.name();
}

bool IsReserved(const NodeProto& node, const MemoryOptions& options) {
  if (options.keep_copies.contains(node.name()) && !node.name().empty()) return true;
  for (const std::string& output : node.output())
    if (options.keep_copies.contains(output)) return true;
  if (node.domain() != kCopyDomain) return false;
  for (const AttributeProto& attr : node.attribute()) {
    if (attr.name() == "no_need_constant_folding") return true;
    if (attr.name() == "_cannot_be_deleted" && attr.i() != 0) return true;
  }
  return false;
}

std::string CallName(const NodeProto& call) {
  return "call " + (call.domain().empty() ? "" : call.domain() + ".") + call.op_type();
}

// Follows the copy's input back to the buffer's owner: through views and
// writers, into a called function's body at a call output, and out to the call
// site at a function's formal input.
Trace TraceSource(const MemoryGraph& copy_graph, const NodeProto& copy) {
  Trace trace;
  const MemoryGraph* graph = &copy_graph;
  std::string current = copy.input(0);
  std::set<std::pair<const MemoryGraph*, std::string>> visited;
  while (true) {
    if (current.empty() || !visited.insert({graph, current}).second) return trace;
    const Definition& definition = graph->DefinitionOf(current);
    switch (definition.kind) {
      case Kind::kUndefined:
        return trace;
      case Kind::kOuter:
        // A captured value of a control-flow body: the owning node is the source.
        trace.path.push_back({"(control-flow body capture " + current + ")", false, "", nullptr, -1, graph});
        trace.source = SourceKind::kControlFlow;
        return trace;
      case Kind::kGraphInput:
        if (graph->IsFunctionBody()) {
          const NodeProto& call = *graph->CallNode();
          trace.path.push_back({current, true, current, nullptr, definition.index, graph});
          trace.path.push_back({CallName(call), false, "", &call, -1, graph->Caller()});
          if (definition.index >= call.input_size()) return trace;
          current = call.input(definition.index);
          graph = graph->Caller();
          continue;
        }
        if (!graph->TopLevel()) {
          trace.path.push_back({"(control-flow body input " + current + ")", false, "", nullptr, -1, graph});
          trace.source = SourceKind::kControlFlow;
          return trace;
        }
        trace.path.push_back({current, true, current, nullptr, definition.index, graph});
        trace.source = graph->IsInitializer(current) ? SourceKind::kInitializer : SourceKind::kGraphInput;
        trace.source_value = current;
        trace.source_graph = graph;
        return trace;
      case Kind::kInitializer:
        trace.path.push_back({current, true, current, nullptr, -1, graph});
        trace.source = SourceKind::kInitializer;
        trace.source_value = current;
        trace.source_graph = graph;
        return trace;
      case Kind::kNode:
        break;
    }
    const NodeProto& node = *definition.node;
    trace.path.push_back({current, true, current, &node, definition.index, graph});
    trace.source_value = current;
    trace.source_graph = graph;
    if (MemoryGraph::IsControlFlow(node)) {
      trace.source = SourceKind::kControlFlow;
      return trace;
    }
    if (graph->IsFunctionCall(node)) {
      const MemoryGraph* instance = graph->Instance(node);
      if (instance == nullptr || definition.index >= instance->Graph().output_size()) {
        trace.source = SourceKind::kFunctionCall;  // an opaque call (beyond the instance limits)
        return trace;
      }
      current = instance->Graph().output(definition.index).name();
      graph = instance;
      continue;
    }
    if (std::optional<int> input = graph->AliasedInput(node, definition.index)) {
      if (*input >= node.input_size()) return {};
      current = node.input(*input);
      continue;
    }
    trace.source =
        ir::IsOnnxDomain(node.domain()) && node.op_type() == "Constant" ? SourceKind::kConstantNode : SourceKind::kNode;
    return trace;
  }
}

// The path from the source to the copy. A long one shows its ends: a chain of n views
// read by n copies would otherwise fill the report with n^2 names.
std::string PathText(const Trace& trace, const NodeProto& copy) {
  constexpr std::size_t kShownAtEachEnd = 8;
  const std::size_t length = trace.path.size();
  std::string text;
  for (std::size_t from_source = 0; from_source < length; ++from_source) {
    if (length > 2 * kShownAtEachEnd && from_source == kShownAtEachEnd) {
      text += "(" + std::to_string(length - 2 * kShownAtEachEnd) + " more) --> ";
      from_source = length - kShownAtEachEnd - 1;
      continue;
    }
    const PathEntry& entry = trace.path[length - 1 - from_source];
    text += entry.has_anchor ? entry.label + "(out:" + std::to_string(std::max(entry.output, 0)) + ")" : entry.label;
    text += " --> ";
  }
  return text + "(in:0) " + FirstOutput(copy);
}

// The steps of evaluating `copy` (copy_elimination.h): its trace, the uses Rules 1, 3
// and 4 look at (Rule 3 compares each sibling with each successor), the values Rule 5
// gathers, and the copies a deletion makes pending again. A step is about what a sibling
// costs (0.1 us); a hop of the trace, followed, written into the path and looked at again
// by Rule 3, costs about ten (1.2 us a hop, 0.4 us a sibling with its successor, measured
// on bench/make_memory_scale.py's viewchain_8000 and fanout_8000).
constexpr std::uint64_t kStepsPerTraceHop = 8;
// A rebuild of the analysis, per use it holds: 2 to 5 us a use (a chain of calls of local
// functions, each call instantiating their bodies).
constexpr std::uint64_t kStepsPerRebuiltUse = 32;

std::uint64_t EvaluationSteps(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) {
  const std::uint64_t successors = graph.Consumers(copy.output(0)).size();
  std::uint64_t siblings = graph.Consumers(copy.input(0)).size();
  for (const PathEntry& entry : trace.path)
    if (entry.has_anchor) siblings += entry.graph->Consumers(entry.value).size();
  std::uint64_t symbol_values = 0;
  for (const std::string* value : {&copy.input(0), &copy.output(0)})
    if (const int symbol = graph.SymbolOf(*value); symbol >= 0) symbol_values += graph.ValuesOf(symbol).size();
  return 1 + kStepsPerTraceHop * trace.path.size() + successors + siblings * (1 + successors) + symbol_values;
}

// The uses of values (node inputs, graph outputs) in `graph` and the function instances
// below it: what the default work limit is proportional to.
std::uint64_t UsesIn(const MemoryGraph& graph) {
  std::uint64_t uses = static_cast<std::uint64_t>(graph.Graph().output_size());
  for (const NodeProto* node : graph.Nodes()) uses += static_cast<std::uint64_t>(node->input_size());
  for (const MemoryGraph* instance : graph.Instances()) uses += UsesIn(*instance);
  return uses;
}

// A copy of the graph or of a function instance, with its rank in the inline
// visit order (§7.1): positions from the top-level call down to the copy.
struct Candidate {
  std::string id;
  const MemoryGraph* graph = nullptr;
  const NodeProto* node = nullptr;
  std::vector<std::size_t> rank;
};

// The copies still to decide, by id (which survives rebuilds of the analysis), and which
// candidates of the current analysis they are, in visit order. Taking the next one costs
// log n, where testing every candidate cost n per evaluation (the 400-layer decoder's
// 8 401 copies: 70 million lookups).
class PendingCopies {
 public:
  // The candidates of a new analysis.
  void SetCandidates(std::vector<Candidate> candidates) {
    candidates_.clear();
    queue_.clear();
    for (Candidate& candidate : candidates) Insert(std::move(candidate));
  }
  // The candidates of a function instance built again (InstanceKey `key`), replacing those
  // of the instance it replaces and of the instances below that one.
  void ReplaceInstance(const std::string& key, std::vector<Candidate> candidates) {
    for (const std::string& prefix : {key + "#", key + "/"})
      for (auto it = candidates_.lower_bound(prefix); it != candidates_.end() && it->first.starts_with(prefix);) {
        queue_.erase({it->second.rank, it->first});
        it = candidates_.erase(it);
      }
    for (Candidate& candidate : candidates) Insert(std::move(candidate));
  }
  // Copies decided already stay candidates: a deletion makes its neighbours pending again.
  const std::map<std::string, Candidate>& Candidates() const { return candidates_; }
  void Add(const std::string& id) {
    if (!ids_.insert(id).second) return;  // pending already, and queued if a candidate
    if (auto it = candidates_.find(id); it != candidates_.end()) queue_.insert({it->second.rank, id});
  }
  bool Contains(const std::string& id) const { return ids_.contains(id); }
  bool Empty() const { return ids_.empty(); }
  std::size_t Size() const { return ids_.size(); }
  // The pending candidates, by rank.
  std::vector<const Candidate*> Queue() const {
    std::vector<const Candidate*> queue;
    for (const auto& [rank, id] : queue_) queue.push_back(&candidates_.at(id));
    return queue;
  }
  // Removes the next pending candidate in the visit order (the last in rank order when
  // `last_first`) and returns it; null when no pending copy is a candidate.
  const Candidate* Take(bool last_first) {
    if (queue_.empty()) return nullptr;
    const auto next = last_first ? std::prev(queue_.end()) : queue_.begin();
    const Candidate* candidate = &candidates_.at(next->second);
    queue_.erase(next);
    ids_.erase(candidate->id);
    return candidate;
  }

 private:
  void Insert(Candidate candidate) {
    if (ids_.contains(candidate.id)) queue_.insert({candidate.rank, candidate.id});
    std::string id = candidate.id;
    candidates_.insert_or_assign(std::move(id), std::move(candidate));
  }

  std::unordered_set<std::string> ids_;  // the pending ones
  std::map<std::string, Candidate> candidates_;                        // by id
  std::set<std::pair<std::vector<std::size_t>, std::string>> queue_;  // (rank, id) of the pending ones
};

class CopyEliminator {
 public:
  CopyEliminator(GraphBuilder& builder, bool top_level, const MemoryOptions& options, const CopyEliminationHooks& hooks)
      : builder_(builder),
        top_level_(top_level),
        options_(options),
        hooks_(hooks),
        type_of_(TypeQueryOf(builder)),
        order_(builder) {}

  CopyEliminationResult Run();

 private:
  // Builds the analysis of the graph as it is now into `analysis`, in place: instances
  // point to their caller, so a MemoryGraph does not move.
  void Analyse(std::optional<MemoryGraph>& analysis) const {
    analysis.reset();
    analysis.emplace(builder_.Graph(), top_level_, options_, type_of_, builder_.Functions(), result_.elided,
                     std::set<const NodeProto*>{}, &edits_);
  }
  // Identifies a copy across rebuilds of the analysis.
  static std::string CopyId(const MemoryGraph& graph, const NodeProto& copy);
  void Collect(const MemoryGraph& graph, std::vector<std::size_t> rank, std::vector<Candidate>& candidates) const;
  // Records the deletion of a copy inside a function instance as an edit of
  // that instance (§7.6 steps 1-3).
  void ApplyInInstance(const MemoryGraph& graph, const NodeProto& copy, const Decision& decision,
                       CopyVerdict& verdict);
  // Writes the instances' edits into the functions (§7.6: one body, or
  // specialized clones).
  void WriteBackFunctions();
  void MarkElided(const MemoryGraph& instance, std::vector<BodyEdit>& edits);
  const NodeProto* ResolveNode(const std::string& reference) const;
  Decision Decide(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const;
  Decision CheckRule1(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const;
  Decision CheckRule2(const Trace& trace) const;
  Decision CheckRule3(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const;
  Decision CheckMultiReference(const MemoryGraph& graph, const NodeProto& copy, const std::string& value) const;
  Decision CheckRule4(const MemoryGraph& graph, const NodeProto& copy) const;
  Decision CheckRule5(const MemoryGraph& graph, const NodeProto& copy) const;
  // Lands the constraints and removes the copy (or elides it); nullopt (everything
  // restored) on failure.
  std::optional<MemoryGraph::CopyRemoval> Apply(const MemoryGraph& graph, const NodeProto& copy,
                                                const Decision& decision, CopyVerdict& verdict);
  // After `copy` (gone unless elided) was removed as `removal`: updates the analysis (the
  // candidates keep their ranks: an update keeps the positions of the nodes that stay), or
  // drops it when an update cannot (rebuilt when next needed).
  void Update(std::optional<MemoryGraph>& analysis, const NodeProto* copy, const std::string& in,
              const std::string& out, MemoryGraph::CopyRemoval removal);
  // After ApplyInInstance recorded an edit of `instance`: builds that instance again and
  // replaces its candidates, or drops the analysis when that cannot be done.
  void UpdateInstance(std::optional<MemoryGraph>& analysis, const MemoryGraph& instance);
  // The candidates of `rebuilt`, an instance built again, replace those of the instance it
  // replaces.
  void ReplaceCandidates(const MemoryGraph& rebuilt);
  // ONNXOPT_CHECK_INCREMENTAL: the updated analysis and candidates equal a rebuild's;
  // `what` names the edit in the error.
  void CheckUpdate(const MemoryGraph& analysis, const std::string& what) const;
  // The copies to evaluate again once `copy` is gone (computed while it still
  // exists), possibly more than once.
  static std::vector<std::string> Neighbours(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace);

  GraphBuilder& builder_;
  bool top_level_;
  const MemoryOptions& options_;
  const CopyEliminationHooks& hooks_;
  ElementTypeQuery type_of_;
  NodeOrder order_;
  PendingCopies pending_;
  // The copies' output names when the pass started (prefixed by the instance's
  // label inside a function): a deletion by renaming may give a surviving copy
  // another output name.
  std::map<std::string, std::string> original_name_;
  InstanceEdits edits_;
  std::map<std::string, CopyVerdict> verdicts_;  // by original output name
  std::map<std::string, std::string> verdict_id_;  // original output name -> CopyId
  std::vector<std::string> decision_order_;
  std::set<const NodeProto*> modified_;
  CopyEliminationResult result_;
};

const NodeProto* CopyEliminator::ResolveNode(const std::string& reference) const {
  for (const NodeProto& node : builder_.Nodes()) {
    if (!node.name().empty() && node.name() == reference) return &node;
    for (const std::string& output : node.output())
      if (output == reference) return &node;
  }
  return nullptr;
}

Decision CopyEliminator::CheckRule1(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const {
  switch (trace.source) {
    case SourceKind::kNone:
      return Keep(1, "no-source");
    case SourceKind::kControlFlow:
      return Keep(1, "control-flow-source");
    case SourceKind::kFunctionCall:
      return Keep(1, "function-call-source");
    default:
      break;
  }
  const bool special = trace.source == SourceKind::kInitializer || trace.source == SourceKind::kConstantNode;
  if (!special) return {};
  const std::vector<Slot>& successors = graph.Consumers(copy.output(0));
  for (const Slot& slot : successors) {
    if (slot.IsGraphOutput()) return Keep(1, "special-successor-is-output");
    if (slot.IsCapture() || graph.IsWrapper(*slot.node)) return Keep(1, "special-successor-is-wrapper");
    if (graph.AliasOf(*slot.node, slot.index)) return Keep(1, "special-successor-aliases");
  }
  for (const Slot& slot : successors)
    if (graph.Writable(slot)) return Keep(1, "special-successor-writes");
  return {};
}

Decision CopyEliminator::CheckRule2(const Trace& trace) const {
  const MemoryGraph* source = trace.source_graph;
  if (source == nullptr || source->IsFunctionBody()) return {};
  if (trace.source != SourceKind::kGraphInput && !source->IsOverridableInput(trace.source_value)) return {};
  const int index = source->DefinitionOf(trace.source_value).index;
  const bool paired = std::any_of(options_.output_reuse_input.begin(), options_.output_reuse_input.end(),
                                  [&](const auto& pair) { return pair.first == index; });
  if (paired || options_.input_reuse.contains(index)) return {};
  return Keep(2, "user-input-not-declared");
}

Decision CopyEliminator::CheckRule3(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const {
  Decision decision;
  for (const PathEntry& entry : trace.path) {
    if (!entry.has_anchor) continue;
    const MemoryGraph& owner = *entry.graph;
    if (entry.node != nullptr) {
      if (std::optional<int> input = owner.AliasedInput(*entry.node, entry.output)) {
        for (int k = 0; k < entry.node->output_size(); ++k) {
          if (k == entry.output || entry.node->output(k).empty()) continue;
          if (owner.AliasedInput(*entry.node, k) == input && owner.IsConnected(entry.node->output(k)))
            return Keep(3, "alias-fanout");
        }
      }
    }
    if (owner.Consumers(entry.value).size() <= 1) continue;
    // Only the basic form "A -> siblings, A -> copy" is supported: a fan-out in
    // another graph (a function body, the caller) is not direct.
    if (&owner != &graph) return Keep(3, "fanout-not-direct");
    Decision check = CheckMultiReference(graph, copy, entry.value);
    if (!check.reason.empty()) return check;
    decision.pending.insert(decision.pending.end(), check.pending.begin(), check.pending.end());
  }
  return decision;
}

Decision CopyEliminator::CheckMultiReference(const MemoryGraph& graph, const NodeProto& copy,
                                             const std::string& value) const {
  if (copy.input(0) != value) return Keep(3, "fanout-not-direct");
  Decision decision;
  const Slot copy_slot{&copy, 0};
  const std::vector<Slot>& successors = graph.Consumers(copy.output(0));
  for (const Slot& sibling : graph.Consumers(value)) {
    if (sibling == copy_slot) continue;
    if (sibling.IsGraphOutput() || sibling.IsCapture() || graph.IsWrapper(*sibling.node))
      return Keep(3, "sibling-unsupported");
    if (graph.AliasOf(*sibling.node, sibling.index)) return Keep(3, "sibling-aliases");
    const bool sibling_writes = graph.Writable(sibling);
    for (const Slot& successor : successors) {
      if (sibling_writes) {  // Case A: an ordering successor -> sibling must
                             // already exist
        if (successor.IsGraphOutput()) return Keep(3, "no-ordering-possible");
        if (!successor.IsCapture() && graph.AliasOf(*successor.node, successor.index))
          return Keep(3, "successor-aliases");
        if (graph.Writable(successor)) return Keep(3, "both-write");
        if (!order_.HasConstraint(successor.node, sibling.node)) return Keep(3, "sibling-writes-no-ordering");
        continue;
      }
      if (!graph.Writable(successor)) continue;  // Case C: two readers, nothing to order
      // Case B: the reading sibling must run before the writing successor.
      if (graph.IsFunctionBody()) {
        // A body is shared by its call sites: the pass does not move its nodes,
        // the order must already hold (a body is topologically sorted, so no
        // cycle then).
        if (sibling.node == successor.node) return Keep(3, "ordering-cycle");
        if (graph.Position(sibling.node) > graph.Position(successor.node)) return Keep(3, "function-body-order");
      } else if (order_.WouldCycle(graph, sibling.node, successor.node)) {
        return Keep(3, "ordering-cycle");
      }
      const std::pair pair{sibling.node, successor.node};
      if (std::find(decision.pending.begin(), decision.pending.end(), pair) == decision.pending.end())
        decision.pending.push_back(pair);
    }
  }
  return decision;
}

Decision CopyEliminator::CheckRule4(const MemoryGraph& graph, const NodeProto& copy) const {
  const OutputRW producer = graph.OutputType(copy.input(0));
  for (const Slot& successor : graph.Consumers(copy.output(0)))
    if (RWConflict(producer, graph.InputType(successor))) return Keep(4, "rw-conflict");
  return {};
}

Decision CopyEliminator::CheckRule5(const MemoryGraph& graph, const NodeProto& copy) const {
  const int in_symbol = graph.SymbolOf(copy.input(0));
  const int out_symbol = graph.SymbolOf(copy.output(0));
  if (in_symbol < 0 || out_symbol < 0) return Keep(5, "symbol-missing");
  if (in_symbol == out_symbol) return {};
  std::vector<std::string> values = graph.ValuesOf(in_symbol);
  const std::vector<std::string>& more = graph.ValuesOf(out_symbol);
  values.insert(values.end(), more.begin(), more.end());
  if (LayoutConflict(graph, values)) return Keep(5, "layout-conflict");
  return {};
}

Decision CopyEliminator::Decide(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const {
  if (Decision d = CheckRule1(graph, copy, trace); !d.reason.empty()) return d;
  if (Decision d = CheckRule2(trace); !d.reason.empty()) return d;
  Decision decision = CheckRule3(graph, copy, trace);
  if (!decision.reason.empty()) return decision;
  if (Decision d = CheckRule4(graph, copy); !d.reason.empty()) return d;
  if (Decision d = CheckRule5(graph, copy); !d.reason.empty()) return d;
  return decision;
}

std::optional<MemoryGraph::CopyRemoval> CopyEliminator::Apply(const MemoryGraph& graph, const NodeProto& copy,
                                                               const Decision& decision, CopyVerdict& verdict) {
  // The order to restore should landing fail (a copy of the node list: only when there is
  // something to land).
  std::optional<NodeOrder::Snapshot> snapshot;
  if (!decision.pending.empty() || hooks_.inject_constraints || hooks_.after_constraints_landed)
    snapshot = order_.Save();
  bool landed = true;
  if (hooks_.inject_constraints)
    for (const auto& [before, after] : hooks_.inject_constraints()) {
      const NodeProto* a = ResolveNode(before);
      const NodeProto* b = ResolveNode(after);
      landed = landed && a != nullptr && b != nullptr && order_.Land(graph, a, b);
    }
  for (const auto& [before, after] : decision.pending) {
    if (!landed) break;
    if (!order_.HasConstraint(before, after))
      verdict.constraints.emplace_back(FirstOutput(*before), FirstOutput(*after));
    landed = order_.Land(graph, before, after);
  }
  if (landed && hooks_.after_constraints_landed) landed = hooks_.after_constraints_landed();
  if (!landed) {
    order_.Restore(*snapshot);
    verdict.constraints.clear();
    return std::nullopt;
  }
  // Keep every ordering that passed through the copy (§7.4): its predecessors
  // before its successors. The producer's data edge to the consumers covers the
  // plain case.
  const std::string in = copy.input(0);
  const std::string out = copy.output(0);
  std::vector<const NodeProto*> predecessors = order_.ConstraintPredecessors(&copy);
  if (const Definition& definition = graph.DefinitionOf(in); definition.kind == Kind::kNode)
    predecessors.push_back(definition.node);
  const std::vector<const NodeProto*> readers = graph.DataSuccessors(copy);
  std::vector<const NodeProto*> successors = order_.ConstraintSuccessors(&copy);
  successors.insert(successors.end(), readers.begin(), readers.end());
  order_.Forget(&copy);
  for (const NodeProto* before : predecessors)
    for (const NodeProto* after : successors) {
      const bool will_read_in = std::find(readers.begin(), readers.end(), after) != readers.end();
      const bool reads_directly =
          std::any_of(before->output().begin(), before->output().end(), [&](const std::string& v) {
            if (v.empty()) return false;
            if (v == in && will_read_in) return true;
            return std::find(after->input().begin(), after->input().end(), v) != after->input().end();
          });
      if (before != after && !reads_directly) order_.AddOrdered(before, after);
    }
  const bool out_is_output = builder_.IsGraphOutput(out);
  const Definition& in_definition = graph.DefinitionOf(in);
  MemoryGraph::CopyRemoval removal = MemoryGraph::CopyRemoval::kRenameUses;
  if (!out_is_output) {
    builder_.RenameUses(out, in, readers);  // the copy's readers
    result_.value_renames.emplace_back(out, in);
  } else if (in_definition.kind == Kind::kNode && !builder_.IsGraphOutput(in) && !builder_.IsGraphInput(in) &&
             builder_.Initializer(in) == nullptr) {
    auto* producer = const_cast<NodeProto*>(in_definition.node);
    producer->set_output(in_definition.index, out);
    modified_.insert(producer);
    builder_.RenameUses(in, out, graph.Readers(in));
    result_.value_renames.emplace_back(in, out);
    removal = MemoryGraph::CopyRemoval::kRenameProducer;
  } else {
    result_.elided.insert(&copy);
    verdict.kind = CopyVerdict::Kind::kElided;
    return MemoryGraph::CopyRemoval::kElide;
  }
  verdict.kind = CopyVerdict::Kind::kDeleted;
  modified_.erase(&copy);
  order_.Erase(&copy, graph.IndexOf(&copy));
  return removal;
}

void CopyEliminator::Update(std::optional<MemoryGraph>& analysis, const NodeProto* copy, const std::string& in,
                            const std::string& out, MemoryGraph::CopyRemoval removal) {
  std::vector<const MemoryGraph*> rebuilt;
  if (!hooks_.incremental || !analysis->UpdateAfterCopyRemoval(copy, in, out, removal, &rebuilt)) {
    analysis.reset();
    return;
  }
  for (const MemoryGraph* instance : rebuilt) ReplaceCandidates(*instance);
  if (hooks_.check_incremental) CheckUpdate(*analysis, "copy " + Quote(out));
}

void CopyEliminator::UpdateInstance(std::optional<MemoryGraph>& analysis, const MemoryGraph& instance) {
  const std::string key = instance.InstanceKey();
  const MemoryGraph* rebuilt = hooks_.incremental ? analysis->RebuildInstance(instance) : nullptr;
  if (rebuilt == nullptr) {
    analysis.reset();
    return;
  }
  ReplaceCandidates(*rebuilt);
  if (hooks_.check_incremental) CheckUpdate(*analysis, "an edit of function instance " + Quote(key));
}

void CopyEliminator::ReplaceCandidates(const MemoryGraph& rebuilt) {
  // The instance's rank: the positions of the calls from the top level down to it.
  std::vector<std::size_t> rank;
  for (const MemoryGraph* graph = &rebuilt; graph->IsFunctionBody(); graph = graph->Caller())
    rank.insert(rank.begin(), graph->Caller()->Position(graph->CallNode()));
  std::vector<Candidate> candidates;
  if (options_.copies_in_functions) Collect(rebuilt, rank, candidates);  // else instances hold none
  pending_.ReplaceInstance(rebuilt.InstanceKey(), std::move(candidates));
}

void CopyEliminator::CheckUpdate(const MemoryGraph& analysis, const std::string& what) const {
  std::optional<MemoryGraph> rebuilt;
  Analyse(rebuilt);
  std::string difference = analysis.DifferenceFrom(*rebuilt);
  if (difference.empty()) {
    // The candidates still to decide, in the order the ranks give them.
    std::vector<Candidate> fresh;
    Collect(*rebuilt, {}, fresh);
    std::erase_if(fresh, [&](const Candidate& candidate) { return !pending_.Contains(candidate.id); });
    std::stable_sort(fresh.begin(), fresh.end(), [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
    const std::vector<const Candidate*> ours = pending_.Queue();
    if (!std::equal(ours.begin(), ours.end(), fresh.begin(), fresh.end(), [](const Candidate* a, const Candidate& b) {
          // Instances own copies of their bodies: their nodes are not a rebuild's.
          return a->id == b.id && (a->graph->IsFunctionBody() || a->node == b.node);
        }))
      difference = "the copies still to decide";
  }
  if (!difference.empty())
    throw Error("the memory analysis updated after " + what + " differs from one built again: " + difference +
                " (ONNXOPT_CHECK_INCREMENTAL)");
}

std::vector<std::string> CopyEliminator::Neighbours(const MemoryGraph& graph, const NodeProto& copy,
                                                    const Trace& trace) {
  // Former siblings and successors that are copies, and the copy at the source. Not
  // deduplicated: making a copy pending twice costs a lookup (a set of the ids cost more
  // than the rest of the evaluation when one value has thousands of copies).
  std::vector<std::string> copies;
  for (const std::string* value : {&copy.input(0), &copy.output(0)})
    for (const Slot& slot : graph.Consumers(*value))
      if (!slot.IsGraphOutput() && slot.node != &copy && graph.IsCopy(*slot.node))
        copies.push_back(CopyId(graph, *slot.node));
  for (const PathEntry& entry : trace.path)
    if (entry.has_anchor && entry.node != nullptr && entry.node != &copy && entry.graph->IsCopy(*entry.node))
      copies.push_back(CopyId(*entry.graph, *entry.node));
  return copies;
}

std::string CopyEliminator::CopyId(const MemoryGraph& graph, const NodeProto& copy) {
  if (graph.IsFunctionBody()) return graph.InstanceKey() + "#" + std::to_string(graph.OriginalPosition(&copy));
  return "@" + std::to_string(reinterpret_cast<std::uintptr_t>(&copy));
}

void CopyEliminator::Collect(const MemoryGraph& graph, std::vector<std::size_t> rank,
                             std::vector<Candidate>& candidates) const {
  rank.push_back(0);
  for (const NodeProto* node : graph.Nodes()) {
    rank.back() = graph.Position(node);
    if (graph.IsCopy(*node)) candidates.push_back({CopyId(graph, *node), &graph, node, rank});
    if (!options_.copies_in_functions) continue;
    if (const MemoryGraph* instance = graph.Instance(*node)) Collect(*instance, rank, candidates);
  }
}

void CopyEliminator::ApplyInInstance(const MemoryGraph& graph, const NodeProto& copy, const Decision& decision,
                                     CopyVerdict& verdict) {
  // The orderings Rule 3 asked for already hold in the body (checked there).
  for (const auto& [before, after] : decision.pending)
    verdict.constraints.emplace_back(FirstOutput(*before), FirstOutput(*after));
  const std::string& in = copy.input(0);
  const std::string& out = copy.output(0);
  BodyEdit edit{graph.OriginalPosition(&copy), BodyEdit::Kind::kElide};
  verdict.kind = CopyVerdict::Kind::kDeleted;
  if (!graph.IsGraphOutput(out)) {
    edit.kind = BodyEdit::Kind::kRenameUses;
  } else if (graph.DefinitionOf(in).kind == Kind::kNode && !graph.IsGraphOutput(in)) {
    edit.kind = BodyEdit::Kind::kRenameProducer;
  } else {
    verdict.kind = CopyVerdict::Kind::kElided;  // a formal input or another output: the body keeps the names
  }
  edits_[graph.InstanceKey()].push_back(edit);
}

CopyEliminationResult CopyEliminator::Run() {
  for (const auto& [before, after] : options_.ordering) {
    const NodeProto* a = ResolveNode(before);
    const NodeProto* b = ResolveNode(after);
    if (a == nullptr || b == nullptr) {
      if (top_level_) throw Error("--order '" + before + ":" + after + "': no node '" + (a ? after : before) + "'");
      continue;  // a reference to another graph
    }
    order_.AddOrdered(a, b);
  }
  // The analysis and its candidates. A copy kept changes nothing; a copy removed from the
  // graph itself is followed by an update (Update); only the other changes (the functions'
  // edits, moved nodes, what an update does not cover) have it built again. Rebuilding
  // for each of k copies of an n-node graph took k x n (2 000 copies kept in 22 000 nodes:
  // 51 s; the 64-layer decoder's 1 345 copies deleted: 33 s).
  std::optional<MemoryGraph> analysis;
  auto analyse = [&] {
    Analyse(analysis);
    std::vector<Candidate> candidates;
    Collect(*analysis, {}, candidates);
    pending_.SetCandidates(std::move(candidates));
  };
  analyse();  // also the first evaluation's: the orderings below are not part of it
  for (const auto& [id, candidate] : pending_.Candidates()) {
    pending_.Add(id);
    const std::string& label = candidate.graph->InstanceLabel();
    original_name_[candidate.id] = (label.empty() ? "" : label + "/") + candidate.node->output(0);
  }
  // The node order of the input already keeps some in-place writes safe
  // (every reader of the overwritten buffer runs before the writer), possibly
  // thanks to constraints an earlier run landed: those orderings are
  // constraints of this run too.
  for (const InPlaceWrite& write : CheckInPlaceWrites(*analysis, options_))
    if (write.violation.empty())
      for (const NodeProto* reader : write.readers) order_.AddOrdered(reader, write.node);
  const std::int64_t cap = 8 * static_cast<std::int64_t>(pending_.Size()) + 16;
  result_.work_limit = options_.work_limit.value_or(kMinWorkSteps + kWorkStepsPerUse * UsesIn(*analysis));
  while (!pending_.Empty()) {
    if (result_.evaluations >= cap) {
      result_.capped = true;
      break;
    }
    ++result_.evaluations;
    if (!analysis) {
      analyse();
      // Without updates (ONNXOPT_INCREMENTAL=0, to compare plans), every removal rebuilds:
      // the comparison's cost, not the pass's.
      const std::uint64_t steps = hooks_.incremental ? kStepsPerRebuiltUse * UsesIn(*analysis) : 0;
      if (steps > result_.work_limit - result_.work_steps) {
        result_.work_limited = true;
        break;
      }
      result_.work_steps += steps;
    }
    const Candidate* next = pending_.Take(options_.visit_order == MemoryOptions::VisitOrder::kReverse);
    if (next == nullptr) break;  // the pending copies are gone (not candidates any more)
    const Candidate& chosen = *next;
    const MemoryGraph& copy_graph = *chosen.graph;
    const NodeProto* copy = chosen.node;
    CopyVerdict verdict;
    const auto original = original_name_.find(chosen.id);
    verdict.copy = original != original_name_.end() ? original->second : copy->output(0);
    if (!verdicts_.contains(verdict.copy)) decision_order_.push_back(verdict.copy);
    verdict_id_[verdict.copy] = chosen.id;
    if (IsReserved(*copy, options_)) {
      verdict.reason = "reserved";
      verdicts_[verdict.copy] = std::move(verdict);
      continue;
    }
    const Trace trace = TraceSource(copy_graph, *copy);
    verdict.path = PathText(trace, *copy);
    const std::uint64_t steps = EvaluationSteps(copy_graph, *copy, trace);
    if (steps > result_.work_limit - result_.work_steps) {
      result_.work_limited = true;
      verdict.reason = "work-limit";
      verdicts_[verdict.copy] = std::move(verdict);
      break;
    }
    result_.work_steps += steps;
    const Decision decision = Decide(copy_graph, *copy, trace);
    if (!decision.reason.empty()) {
      verdict.rule = decision.rule;
      verdict.reason = decision.reason;
      verdicts_[verdict.copy] = std::move(verdict);
      continue;  // kept: nothing changed
    }
    const std::vector<std::string> neighbours = Neighbours(copy_graph, *copy, trace);
    if (copy_graph.IsFunctionBody()) {
      ApplyInInstance(copy_graph, *copy, decision, verdict);
      for (const std::string& id : neighbours) pending_.Add(id);
      UpdateInstance(analysis, copy_graph);
    } else {
      const std::string in = copy->input(0);
      const std::string out = copy->output(0);
      const std::uint64_t reorderings = order_.Reorderings();
      const std::optional<MemoryGraph::CopyRemoval> removal = Apply(copy_graph, *copy, decision, verdict);
      if (!removal) {
        verdict.reason = "apply-failed";
        analysis.reset();
      } else {
        for (const std::string& id : neighbours) pending_.Add(id);
        if (order_.Reorderings() != reorderings)
          analysis.reset();  // landed constraints moved nodes
        else
          Update(analysis, copy, in, out, *removal);
      }
    }
    verdicts_[verdict.copy] = std::move(verdict);
  }
  WriteBackFunctions();
  for (const std::string& name : decision_order_) result_.verdicts.push_back(verdicts_.at(name));
  for (const NodeProto* node : order_.Moved()) modified_.insert(node);
  result_.nodes_moved = static_cast<std::int64_t>(order_.Moved().size());
  result_.modified_nodes.assign(modified_.begin(), modified_.end());
  result_.constraints = order_.ConstraintNames();
  return std::move(result_);
}

void CopyEliminator::MarkElided(const MemoryGraph& instance, std::vector<BodyEdit>& edits) {
  for (BodyEdit& edit : edits) {
    if (edit.kind == BodyEdit::Kind::kElide) continue;
    edit.kind = BodyEdit::Kind::kElide;
    const std::string id = instance.InstanceKey() + "#" + std::to_string(edit.node);
    for (auto& [name, verdict] : verdicts_)
      if (verdict_id_[name] == id) verdict.kind = CopyVerdict::Kind::kElided;
  }
}

void CopyEliminator::WriteBackFunctions() {
  if (edits_.empty()) return;
  std::optional<MemoryGraph> analysis;
  Analyse(analysis);
  const MemoryGraph& graph = *analysis;
  // Every instance in inline order, grouped by function, then by its edits.
  std::vector<const MemoryGraph*> instances = graph.Instances();
  for (std::size_t i = 0; i < instances.size(); ++i) {
    std::vector<const MemoryGraph*> nested = instances[i]->Instances();
    instances.insert(instances.begin() + static_cast<std::ptrdiff_t>(i) + 1, nested.begin(), nested.end());
  }
  struct Group {
    std::vector<BodyEdit> edits;  // sorted: one body whatever the order the copies were decided in
    std::vector<const MemoryGraph*> members;
  };
  std::vector<const FunctionProto*> functions;
  std::map<const FunctionProto*, std::vector<Group>> groups;
  for (const MemoryGraph* instance : instances) {
    std::vector<BodyEdit> edits;
    if (auto it = edits_.find(instance->InstanceKey()); it != edits_.end()) edits = it->second;
    std::sort(edits.begin(), edits.end());
    auto [entry, inserted] = groups.try_emplace(instance->Function());
    if (inserted) functions.push_back(instance->Function());
    auto group = std::find_if(entry->second.begin(), entry->second.end(),
                              [&](const Group& g) { return g.edits == edits; });
    if (group == entry->second.end()) group = entry->second.insert(entry->second.end(), Group{edits, {}});
    group->members.push_back(instance);
  }
  InstanceEdits plan_only;  // edits the model does not show: the plan executes them (ELIDED copies)
  auto keep_elided = [&](const MemoryGraph& instance, const std::vector<BodyEdit>& edits,
                         const std::vector<int>& positions) {
    for (const BodyEdit& edit : edits) {
      if (edit.kind != BodyEdit::Kind::kElide) continue;
      auto at = std::find(positions.begin(), positions.end(), edit.node);
      if (at != positions.end())
        plan_only[instance.InstanceKey()].push_back({static_cast<int>(at - positions.begin()), edit.kind});
    }
  };
  for (const FunctionProto* function : functions) {
    std::vector<Group>& function_groups = groups.at(function);
    auto changes = [](const Group& group) {
      return std::any_of(group.edits.begin(), group.edits.end(),
                         [](const BodyEdit& edit) { return edit.kind != BodyEdit::Kind::kElide; });
    };
    if (std::none_of(function_groups.begin(), function_groups.end(), changes)) {
      for (const Group& group : function_groups)
        for (const MemoryGraph* member : group.members) plan_only[member->InstanceKey()] = group.edits;
      continue;
    }
    // Re-pointing a call is possible where the call is a node of this graph;
    // a call inside another function's body would need that body specialized too.
    const bool several = function_groups.size() > 1;
    bool can_specialize = options_.specialize_functions;
    for (const Group& group : function_groups)
      for (const MemoryGraph* member : group.members)
        if (several && changes(group) && member->Caller()->IsFunctionBody()) can_specialize = false;
    if (several && !can_specialize) {
      for (Group& group : function_groups)
        for (const MemoryGraph* member : group.members) {
          std::vector<BodyEdit> edits = group.edits;
          MarkElided(*member, edits);
          plan_only[member->InstanceKey()] = edits;
        }
      continue;
    }
    // The unchanged group keeps the function; without one, the group of the
    // first call site rewrites it. Every other group gets a clone.
    auto in_place = std::find_if(function_groups.begin(), function_groups.end(),
                                 [&](const Group& group) { return !changes(group); });
    if (in_place == function_groups.end()) in_place = function_groups.begin();
    const FunctionProto original = *function;
    int clones = 0;
    for (auto group = function_groups.begin(); group != function_groups.end(); ++group) {
      FunctionProto body = original;
      const std::vector<int> positions = ApplyBodyEdits(*body.mutable_node(), body.output(), group->edits);
      for (const MemoryGraph* member : group->members) keep_elided(*member, group->edits, positions);
      if (group == in_place) continue;
      body.set_name(original.name() + "__onnxopt_m" + std::to_string(++clones));
      const std::string name = body.name();
      builder_.GetOrAddFunction(std::move(body));
      for (const MemoryGraph* member : group->members) {
        auto* call = const_cast<NodeProto*>(member->CallNode());
        call->set_op_type(name);
        modified_.insert(call);
      }
    }
    if (changes(*in_place)) {
      // The builder owns its model's functions (mutable); it hands them out
      // read-only so that patterns add functions through GetOrAddFunction.
      auto* target = const_cast<FunctionProto*>(builder_.FindFunction(original.domain(), original.name()));
      if (target == nullptr) throw Error("internal error: local function " + original.name() + " disappeared");
      ApplyBodyEdits(*target->mutable_node(), target->output(), in_place->edits);
    }
  }
  result_.instance_edits = std::move(plan_only);
}

}  // namespace

std::string VerdictText(const CopyVerdict& verdict) {
  switch (verdict.kind) {
    case CopyVerdict::Kind::kDeleted:
      return "DELETED";
    case CopyVerdict::Kind::kElided:
      return "ELIDED";
    case CopyVerdict::Kind::kKept:
      break;
  }
  if (verdict.rule == 0) return "KEPT(" + verdict.reason + ")";
  return "KEPT(" + std::to_string(verdict.rule) + ", " + verdict.reason + ")";
}

std::size_t CopyEliminationResult::Count(CopyVerdict::Kind kind) const {
  return static_cast<std::size_t>(
      std::count_if(verdicts.begin(), verdicts.end(), [&](const CopyVerdict& v) { return v.kind == kind; }));
}

namespace {

// The dims of `value`: the inferred ones, where inference leaves a dim unknown
// the one the model declares (graph output or value_info: a KV cache's present
// length is declared, not inferred). Empty when the rank is unknown.
std::vector<shapes::SymDim> KnownDims(const GraphBuilder& graph, std::string_view value) {
  const shapes::SymTensor* inferred = graph.GetShape(value);
  if (inferred == nullptr || inferred->kind != shapes::SymTensor::Kind::kTensor || !inferred->shape.HasRank())
    return {};
  std::vector<shapes::SymDim> dims = inferred->shape.Dims();
  const ValueInfoProto* declared = nullptr;
  for (const auto* list : {&graph.Graph().output(), &graph.Graph().value_info()})
    for (const ValueInfoProto& info : *list)
      if (info.name() == value) declared = &info;
  if (declared == nullptr || !declared->type().tensor_type().has_shape()) return dims;
  const auto& shape = declared->type().tensor_type().shape();
  if (shape.dim_size() != static_cast<int>(dims.size())) return dims;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto& dim = shape.dim(static_cast<int>(i));
    if (!dims[i].IsUnknown()) continue;
    if (dim.has_dim_value()) dims[i] = shapes::SymDim(dim.dim_value());
    if (dim.has_dim_param() && !dim.dim_param().empty()) dims[i] = shapes::SymDim::Symbol(dim.dim_param());
  }
  return dims;
}

}  // namespace

ElementTypeQuery TypeQueryOf(const GraphBuilder& graph) {
  return ElementTypeQuery([&graph](std::string_view value) { return graph.GetType(value); },
                          [&graph](std::string_view a, std::string_view b) {
                            const std::vector<shapes::SymDim> first = KnownDims(graph, a);
                            if (first.empty() || first != KnownDims(graph, b)) return false;
                            return std::all_of(first.begin(), first.end(),
                                               [](const shapes::SymDim& dim) { return dim.IsKnown(); });
                          });
}

CopyEliminationResult EliminateCopies(GraphBuilder& graph, bool top_level, const MemoryOptions& options,
                                      const CopyEliminationHooks& hooks) {
  return CopyEliminator(graph, top_level, options, hooks).Run();
}

}  // namespace onnxopt::core::memory
