#include "onnx_core/memory/copy_elimination.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_set>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/memory/layout_conflict.h"
#include "onnx_core/memory/memory_plan.h"
#include "onnx_core/memory/node_order.h"

namespace onnxopt::core::memory {

namespace {

using builder::GraphBuilder;
using Kind = Definition::Kind;

// One element of a trace, nearest to the copy first (§7.2).
struct PathEntry {
  std::string label;                // value name, or the boundary node's description
  bool has_anchor = false;          // false for a boundary marker
  std::string value;                // the out-anchor's value when has_anchor
  const NodeProto* node = nullptr;  // producer node (null for pseudo producers)
  int output = -1;
};

enum class SourceKind { kNone, kControlFlow, kFunctionCall, kNode, kConstantNode, kGraphInput, kInitializer };

struct Trace {
  std::vector<PathEntry> path;
  SourceKind source = SourceKind::kNone;
  std::string source_value;  // the source's out-anchor value
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

Trace TraceSource(const MemoryGraph& graph, const NodeProto& copy) {
  Trace trace;
  std::string current = copy.input(0);
  std::unordered_set<std::string> visited;
  while (true) {
    if (current.empty() || !visited.insert(current).second) return trace;
    const Definition& definition = graph.DefinitionOf(current);
    switch (definition.kind) {
      case Kind::kUndefined:
        return trace;
      case Kind::kOuter:
        // A captured value of a control-flow body: the owning node is the source.
        trace.path.push_back({"(control-flow body capture " + current + ")", false, "", nullptr, -1});
        trace.source = SourceKind::kControlFlow;
        return trace;
      case Kind::kGraphInput:
        if (!graph.TopLevel()) {
          trace.path.push_back({"(control-flow body input " + current + ")", false, "", nullptr, -1});
          trace.source = SourceKind::kControlFlow;
          return trace;
        }
        trace.path.push_back({current, true, current, nullptr, definition.index});
        trace.source = graph.IsInitializer(current) ? SourceKind::kInitializer : SourceKind::kGraphInput;
        trace.source_value = current;
        return trace;
      case Kind::kInitializer:
        trace.path.push_back({current, true, current, nullptr, -1});
        trace.source = SourceKind::kInitializer;
        trace.source_value = current;
        return trace;
      case Kind::kNode:
        break;
    }
    const NodeProto& node = *definition.node;
    trace.path.push_back({current, true, current, &node, definition.index});
    trace.source_value = current;
    if (MemoryGraph::IsControlFlow(node)) {
      trace.source = SourceKind::kControlFlow;
      return trace;
    }
    if (graph.IsFunctionCall(node)) {
      trace.source = SourceKind::kFunctionCall;
      return trace;
    }
    if (std::optional<int> input = graph.AliasedInput(node, definition.index)) {
      if (*input >= node.input_size()) return {};
      current = node.input(*input);
      continue;
    }
    trace.source =
        ir::IsOnnxDomain(node.domain()) && node.op_type() == "Constant" ? SourceKind::kConstantNode : SourceKind::kNode;
    return trace;
  }
}

std::string PathText(const Trace& trace, const NodeProto& copy) {
  std::string text;
  for (auto it = trace.path.rbegin(); it != trace.path.rend(); ++it) {
    text += it->has_anchor ? it->label + "(out:" + std::to_string(std::max(it->output, 0)) + ")" : it->label;
    text += " --> ";
  }
  return text + "(in:0) " + FirstOutput(copy);
}

class CopyEliminator {
 public:
  CopyEliminator(GraphBuilder& builder, bool top_level, const MemoryOptions& options, const CopyEliminationHooks& hooks)
      : builder_(builder),
        top_level_(top_level),
        options_(options),
        hooks_(hooks),
        type_of_(TypeQueryOf(builder)),
        functions_(FunctionKeys(builder.Functions())),
        order_(builder) {}

  CopyEliminationResult Run();

 private:
  MemoryGraph Analyse() const {
    return MemoryGraph(builder_.Graph(), top_level_, options_, type_of_, functions_, result_.elided);
  }
  const NodeProto* ResolveNode(const std::string& reference) const;
  Decision Decide(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const;
  Decision CheckRule1(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const;
  Decision CheckRule2(const MemoryGraph& graph, const Trace& trace) const;
  Decision CheckRule3(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const;
  Decision CheckMultiReference(const MemoryGraph& graph, const NodeProto& copy, const std::string& value) const;
  Decision CheckRule4(const MemoryGraph& graph, const NodeProto& copy) const;
  Decision CheckRule5(const MemoryGraph& graph, const NodeProto& copy) const;
  // Lands the constraints and removes the copy; false (everything restored) on
  // failure.
  bool Apply(const MemoryGraph& graph, const NodeProto& copy, const Decision& decision, CopyVerdict& verdict);
  // The copies to evaluate again once `copy` is gone (computed while it still
  // exists).
  static std::set<const NodeProto*> Neighbours(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace);

  GraphBuilder& builder_;
  bool top_level_;
  const MemoryOptions& options_;
  const CopyEliminationHooks& hooks_;
  ElementTypeQuery type_of_;
  std::set<std::string> functions_;
  NodeOrder order_;
  std::set<const NodeProto*> pending_;
  // The copies' output names when the pass started: a deletion by renaming may give a
  // surviving copy another output name.
  std::map<const NodeProto*, std::string> original_name_;
  std::map<std::string, CopyVerdict> verdicts_;  // by original output name
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

Decision CopyEliminator::CheckRule2(const MemoryGraph& graph, const Trace& trace) const {
  if (trace.source != SourceKind::kGraphInput && !graph.IsOverridableInput(trace.source_value)) return {};
  const int index = graph.DefinitionOf(trace.source_value).index;
  const bool paired = std::any_of(options_.output_reuse_input.begin(), options_.output_reuse_input.end(),
                                  [&](const auto& pair) { return pair.first == index; });
  if (paired || options_.input_reuse.contains(index)) return {};
  return Keep(2, "user-input-not-declared");
}

Decision CopyEliminator::CheckRule3(const MemoryGraph& graph, const NodeProto& copy, const Trace& trace) const {
  Decision decision;
  for (const PathEntry& entry : trace.path) {
    if (!entry.has_anchor) continue;
    if (entry.node != nullptr) {
      if (std::optional<int> input = graph.AliasedInput(*entry.node, entry.output)) {
        for (int k = 0; k < entry.node->output_size(); ++k) {
          if (k == entry.output || entry.node->output(k).empty()) continue;
          if (graph.AliasedInput(*entry.node, k) == input && graph.IsConnected(entry.node->output(k)))
            return Keep(3, "alias-fanout");
        }
      }
    }
    if (graph.Consumers(entry.value).size() <= 1) continue;
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
      if (order_.WouldCycle(graph, sibling.node, successor.node)) return Keep(3, "ordering-cycle");
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
  if (Decision d = CheckRule2(graph, trace); !d.reason.empty()) return d;
  Decision decision = CheckRule3(graph, copy, trace);
  if (!decision.reason.empty()) return decision;
  if (Decision d = CheckRule4(graph, copy); !d.reason.empty()) return d;
  if (Decision d = CheckRule5(graph, copy); !d.reason.empty()) return d;
  return decision;
}

bool CopyEliminator::Apply(const MemoryGraph& graph, const NodeProto& copy, const Decision& decision,
                           CopyVerdict& verdict) {
  const NodeOrder::Snapshot snapshot = order_.Save();
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
    order_.Restore(snapshot);
    verdict.constraints.clear();
    return false;
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
  if (!out_is_output) {
    builder_.RenameUses(out, in);
    result_.value_renames.emplace_back(out, in);
    verdict.kind = CopyVerdict::Kind::kDeleted;
  } else if (in_definition.kind == Kind::kNode && !builder_.IsGraphOutput(in) && !builder_.IsGraphInput(in) &&
             builder_.Initializer(in) == nullptr) {
    auto* producer = const_cast<NodeProto*>(in_definition.node);
    producer->set_output(in_definition.index, out);
    modified_.insert(producer);
    builder_.RenameUses(in, out);
    result_.value_renames.emplace_back(in, out);
    verdict.kind = CopyVerdict::Kind::kDeleted;
  } else {
    result_.elided.insert(&copy);
    verdict.kind = CopyVerdict::Kind::kElided;
    return true;
  }
  modified_.erase(&copy);
  order_.Erase(&copy);
  return true;
}

std::set<const NodeProto*> CopyEliminator::Neighbours(const MemoryGraph& graph, const NodeProto& copy,
                                                      const Trace& trace) {
  // Former siblings and successors that are copies, and the copy at the source.
  std::set<const NodeProto*> copies;
  for (const std::string* value : {&copy.input(0), &copy.output(0)})
    for (const Slot& slot : graph.Consumers(*value))
      if (!slot.IsGraphOutput() && slot.node != &copy && graph.IsCopy(*slot.node)) copies.insert(slot.node);
  for (const PathEntry& entry : trace.path)
    if (entry.node != nullptr && entry.node != &copy && graph.IsCopy(*entry.node)) copies.insert(entry.node);
  return copies;
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
  {
    const MemoryGraph graph = Analyse();
    for (const NodeProto* node : graph.Nodes())
      if (graph.IsCopy(*node)) {
        pending_.insert(node);
        original_name_[node] = node->output(0);
      }
    // The node order of the input already keeps some in-place writes safe
    // (every reader of the overwritten buffer runs before the writer), possibly
    // thanks to constraints an earlier run landed: those orderings are
    // constraints of this run too.
    for (const InPlaceWrite& write : CheckInPlaceWrites(graph, options_))
      if (write.violation.empty())
        for (const NodeProto* reader : write.readers) order_.AddOrdered(reader, write.node);
  }
  const std::int64_t cap = 8 * static_cast<std::int64_t>(pending_.size()) + 16;
  while (!pending_.empty()) {
    if (result_.evaluations >= cap) {
      result_.capped = true;
      break;
    }
    ++result_.evaluations;
    const MemoryGraph graph = Analyse();
    auto by_position = [&](const NodeProto* a, const NodeProto* b) { return graph.Position(a) < graph.Position(b); };
    const NodeProto* copy = options_.visit_order == MemoryOptions::VisitOrder::kReverse
                                ? *std::max_element(pending_.begin(), pending_.end(), by_position)
                                : *std::min_element(pending_.begin(), pending_.end(), by_position);
    pending_.erase(copy);
    CopyVerdict verdict;
    const auto original = original_name_.find(copy);
    verdict.copy = original != original_name_.end() ? original->second : copy->output(0);
    if (!verdicts_.contains(verdict.copy)) decision_order_.push_back(verdict.copy);
    if (IsReserved(*copy, options_)) {
      verdict.reason = "reserved";
      verdicts_[verdict.copy] = std::move(verdict);
      continue;
    }
    const Trace trace = TraceSource(graph, *copy);
    verdict.path = PathText(trace, *copy);
    const Decision decision = Decide(graph, *copy, trace);
    const std::set<const NodeProto*> neighbours = Neighbours(graph, *copy, trace);
    if (!decision.reason.empty()) {
      verdict.rule = decision.rule;
      verdict.reason = decision.reason;
    } else if (!Apply(graph, *copy, decision, verdict)) {
      verdict.reason = "apply-failed";
    } else {
      pending_.insert(neighbours.begin(), neighbours.end());
    }
    verdicts_[verdict.copy] = std::move(verdict);
  }
  for (const std::string& name : decision_order_) result_.verdicts.push_back(verdicts_.at(name));
  for (const NodeProto* node : order_.Moved()) modified_.insert(node);
  result_.nodes_moved = static_cast<std::int64_t>(order_.Moved().size());
  result_.modified_nodes.assign(modified_.begin(), modified_.end());
  result_.constraints = order_.ConstraintNames();
  return std::move(result_);
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

ElementTypeQuery TypeQueryOf(const GraphBuilder& graph) {
  return [&graph](std::string_view value) { return graph.GetType(value); };
}

CopyEliminationResult EliminateCopies(GraphBuilder& graph, bool top_level, const MemoryOptions& options,
                                      const CopyEliminationHooks& hooks) {
  return CopyEliminator(graph, top_level, options, hooks).Run();
}

}  // namespace onnxopt::core::memory
