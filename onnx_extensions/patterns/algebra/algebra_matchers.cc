#include "onnx_extensions/patterns/algebra/algebra_matchers.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::algebra {

using core::builder::DerivedNodeName;

namespace {

// An ONNX operator that gives the same outputs for the same inputs, and so do the nodes of
// its graph attributes. Dropout counts as random: its training mode is not always known.
bool IsDeterministicOnnxNode(const NodeProto& node) {
  if (!core::ir::IsOnnxDomain(node.domain()) || core::eval::IsNondeterministicOp(node.domain(), node.op_type()))
    return false;
  bool deterministic = true;
  core::ir::ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& graph) {
    for (const NodeProto& inner : graph.node()) deterministic = deterministic && IsDeterministicOnnxNode(inner);
  });
  return deterministic;
}

bool SameInput(const std::string& a, const std::string& b, const Aliases* aliases) {
  if (a == b) return true;
  if (!aliases) return false;
  const auto alias = aliases->find(a);
  return alias != aliases->end() && alias->second == b;
}

bool SameInputs(const NodeProto& first, const NodeProto& second, const Aliases* aliases) {
  if (first.input_size() != second.input_size()) return false;
  bool same = true;
  for (int i = 0; i < first.input_size() && same; ++i) same = SameInput(first.input(i), second.input(i), aliases);
  if (same || aliases) return same;
  // Add and Mul commute exactly, in floats too.
  const bool commutes = first.op_type() == "Add" || first.op_type() == "Mul";
  return commutes && first.input_size() == 2 && first.input(0) == second.input(1) &&
         first.input(1) == second.input(0);
}

// A node's attributes sorted by name, each serialized and prefixed by its size: two
// nodes' keys are equal exactly when their attributes are, compared by name, then by
// their serialized bytes (graphs and tensors too; stricter than value equality for floats:
// -0 and 0 differ, which only costs a merge).
std::string AttributesKey(const NodeProto& node) {
  std::vector<const AttributeProto*> attributes;
  for (const AttributeProto& attr : node.attribute()) attributes.push_back(&attr);
  std::sort(attributes.begin(), attributes.end(),
            [](const AttributeProto* a, const AttributeProto* b) { return a->name() < b->name(); });
  std::string key;
  for (const AttributeProto* attr : attributes) {
    const std::string bytes = core::ir::SerializeDeterministic(*attr);
    key += std::to_string(bytes.size()) + ":" + bytes;
  }
  return key;
}

bool SameAttributes(const NodeProto& first, const NodeProto& second) {
  return first.attribute_size() == second.attribute_size() && AttributesKey(first) == AttributesKey(second);
}

}  // namespace

std::string_view WhyNotDuplicates(const NodeProto& first, const NodeProto& second, const Aliases* aliases) {
  if (first.op_type() != second.op_type() ||
      core::ir::IsOnnxDomain(first.domain()) != core::ir::IsOnnxDomain(second.domain()))
    return "the nodes are not the same operator";
  if (!SameInputs(first, second, aliases)) return "the nodes read different inputs";
  if (!IsDeterministicOnnxNode(first) || !IsDeterministicOnnxNode(second))
    return "the nodes are not deterministic ONNX operators";
  if (first.output_size() != second.output_size()) return "the nodes have different numbers of outputs";
  for (int i = 0; i < first.output_size(); ++i)
    if (first.output(i).empty() && !second.output(i).empty())
      return "the second node produces an optional output the first one does not";
  if (!SameAttributes(first, second)) return "the nodes have different attributes";
  return {};
}

namespace {

// The inputs of `node` in the order that makes two duplicates' lists equal: as written,
// or sorted for a two-input Add or Mul, which commute (as SameInputs accepts).
std::vector<std::string_view> CanonicalInputs(const NodeProto& node) {
  std::vector<std::string_view> inputs(node.input().begin(), node.input().end());
  if ((node.op_type() == "Add" || node.op_type() == "Mul") && inputs.size() == 2) std::sort(inputs.begin(), inputs.end());
  return inputs;
}

// What two duplicates with the same inputs share, as bytes: whether the node is
// deterministic, its number of outputs and its attributes (equal keys: SameAttributes).
std::string DuplicateKey(const NodeProto& node) {
  return (IsDeterministicOnnxNode(node) ? "d" : "n") + std::to_string(node.output_size()) + ":" + AttributesKey(node);
}

// The first pair (a, b), a < b in `group` order, of duplicates among readers of one op
// type. Up to a few readers, every pair is compared; beyond, only readers with the same
// inputs can be duplicates (WhyNotDuplicates compares inputs before anything else), so
// the readers are sorted by their inputs and compared within runs of equal inputs: a
// value read by the same operator in each of 400 layers costs a sort, not 80 000
// comparisons, and the pair found is the same. A long run (a condition read by each of
// 300 If nodes) is split the same way by DuplicateKey: comparing all its pairs would
// serialize their attributes, nested graphs included, quadratically many times.
std::optional<NodePair> FirstDuplicatePair(const std::vector<const NodeProto*>& group) {
  constexpr std::size_t kCompareAllUpTo = 8;
  if (group.size() <= kCompareAllUpTo) {
    for (std::size_t a = 0; a < group.size(); ++a)
      for (std::size_t b = a + 1; b < group.size(); ++b)
        if (WhyNotDuplicates(*group[a], *group[b]).empty()) return NodePair{group[a], group[b]};
    return std::nullopt;
  }
  std::vector<std::vector<std::string_view>> inputs;
  inputs.reserve(group.size());
  for (const NodeProto* node : group) inputs.push_back(CanonicalInputs(*node));
  std::vector<std::size_t> order(group.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Stable: within a run of equal inputs (and keys), readers stay in group order.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return inputs[x] < inputs[y]; });
  std::optional<std::pair<std::size_t, std::size_t>> best;
  // Compares the readers of order[first, last), in group order; keeps the pair whose first
  // reader comes first in the group.
  auto compare_within = [&](std::size_t first, std::size_t last) {
    for (std::size_t x = first; x < last; ++x) {
      if (best && order[x] >= best->first) return;
      for (std::size_t y = x + 1; y < last; ++y)
        if (WhyNotDuplicates(*group[order[x]], *group[order[y]]).empty()) {
          best = std::pair{order[x], order[y]};
          return;
        }
    }
  };
  std::vector<std::string> keys(group.size());
  for (std::size_t run = 0, end = 0; run < order.size(); run = end) {
    end = run + 1;
    while (end < order.size() && inputs[order[end]] == inputs[order[run]]) ++end;
    if (end - run <= kCompareAllUpTo) {
      compare_within(run, end);
      continue;
    }
    for (std::size_t x = run; x < end; ++x) keys[order[x]] = DuplicateKey(*group[order[x]]);
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(run);
    const auto last = order.begin() + static_cast<std::ptrdiff_t>(end);
    std::stable_sort(first, last, [&](std::size_t x, std::size_t y) { return keys[x] < keys[y]; });
    for (std::size_t part = run, part_end = run; part < end; part = part_end) {
      part_end = part + 1;
      while (part_end < end && keys[order[part_end]] == keys[order[part]]) ++part_end;
      if (keys[order[part]][0] == 'd') compare_within(part, part_end);
    }
  }
  if (!best) return std::nullopt;
  return NodePair{group[best->first], group[best->second]};
}

}  // namespace

DuplicateGroups FindDuplicateGroups(const std::vector<const NodeProto*>& readers) {
  DuplicateGroups found;
  std::vector<bool> grouped(readers.size(), false);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    if (grouped[i] || readers[i]->op_type() == "Identity") continue;
    std::vector<const NodeProto*> same_op;
    for (std::size_t j = i; j < readers.size(); ++j)
      if (!grouped[j] && readers[j]->op_type() == readers[i]->op_type()) {
        grouped[j] = true;
        same_op.push_back(readers[j]);
      }
    if (same_op.size() < 2) continue;
    // The reason reported when no pair is found: the first comparison that failed.
    if (found.why.empty()) found.why = WhyNotDuplicates(*same_op[0], *same_op[1]);
    const std::optional<NodePair> pair = FirstDuplicatePair(same_op);
    if (!pair) continue;
    DuplicateGroup& group = found.groups.emplace_back(DuplicateGroup{pair->first, {}});
    // No reader before `kept` duplicates it: that pair would have come first.
    const auto kept = std::find(same_op.begin(), same_op.end(), pair->first);
    for (auto other = kept + 1; other != same_op.end(); ++other)
      if (*other == pair->second || WhyNotDuplicates(*pair->first, **other).empty()) group.duplicates.push_back(*other);
  }
  if (found.groups.empty() && found.why.empty()) found.why = "no two readers of a value have the same op type";
  return found;
}

namespace {

// Whether a copy of `node` may be placed at `position`: every value it reads, explicitly
// or from a graph attribute, is defined outside the graph's nodes, by a node before
// `position`, or in `defined` (outputs the replacement defines before it).
bool CanMoveTo(const core::builder::GraphGraph& graph, const NodeProto& node, std::size_t position,
               const core::builder::StringSet& defined) {
  auto available = [&](const std::string& value) {
    if (value.empty() || defined.contains(value)) return true;
    const NodeProto* producer = graph.NodeBefore(value);
    return !producer || graph.Position(*producer) < position;
  };
  if (!std::all_of(node.input().begin(), node.input().end(), available)) return false;
  if (!core::ir::HasSubgraph(node)) return true;
  const std::set<std::string> reads = core::ir::SubgraphReads(node);
  return std::all_of(reads.begin(), reads.end(), available);
}

}  // namespace

MergePlan::MergePlan(const core::builder::GraphGraph& graph, std::vector<DuplicateGroup> groups) : graph_(graph) {
  std::sort(groups.begin(), groups.end(), [&](const DuplicateGroup& a, const DuplicateGroup& b) {
    return graph.Position(*a.kept) < graph.Position(*b.kept);
  });
  if (!groups.empty()) position_ = graph.Position(*groups.front().kept);
  for (DuplicateGroup& group : groups) Add(std::move(group));
}

namespace {

// Whether Identity may repeat `value` at the model's opset: Identity takes sequences from
// opset 14 and optionals from 16 (values of unknown kind pass: nothing can tell).
bool IdentityTakes(const core::builder::GraphGraph& graph, const std::string& value) {
  const core::shapes::SymTensor* known = graph.KnownValue(value);
  if (!known) return true;
  switch (known->kind) {
    case core::shapes::SymTensor::Kind::kSequence: return core::builder::OnnxOpset(graph) >= 14;
    case core::shapes::SymTensor::Kind::kOptional: return core::builder::OnnxOpset(graph) >= 16;
    default: return true;
  }
}

}  // namespace

bool MergePlan::Add(DuplicateGroup group) {
  // A duplicate becomes Identity nodes, which must take its outputs.
  std::erase_if(group.duplicates, [&](const NodeProto* duplicate) {
    return !std::all_of(duplicate->output().begin(), duplicate->output().end(), [&](const std::string& output) {
      return output.empty() || IdentityTakes(graph_, output);
    });
  });
  if (group.duplicates.empty() || !CanMoveTo(graph_, *group.kept, position_, defined_)) return false;
  for (int i = 0; i < group.kept->output_size(); ++i) defined_.insert(group.kept->output(i));
  for (const NodeProto* duplicate : group.duplicates)
    for (int i = 0; i < duplicate->output_size(); ++i) {
      const std::string& kept = group.kept->output(i);
      const std::string& output = duplicate->output(i);
      if (output.empty()) continue;
      defined_.insert(output);
      aliases_[kept] = output;
      aliases_[output] = kept;
    }
  groups_.push_back(std::move(group));
  return true;
}

bool MergePlan::Paired(const NodeProto& node) const {
  return std::any_of(node.output().begin(), node.output().end(),
                     [&](const std::string& output) { return defined_.contains(output); });
}

std::vector<const NodeProto*> MergePlan::Nodes() const {
  std::vector<const NodeProto*> nodes;
  for (const DuplicateGroup& group : groups_) {
    if (!nodes.empty()) nodes.push_back(nullptr);
    nodes.push_back(group.kept);
    nodes.insert(nodes.end(), group.duplicates.begin(), group.duplicates.end());
  }
  return nodes;
}

utils::RepeatedProtoField<NodeProto> MergeGroups(core::builder::GraphGraph& graph, std::string_view pattern,
                                                 const std::vector<const NodeProto*>& nodes) {
  utils::RepeatedProtoField<NodeProto> replacement;
  for (auto first = nodes.begin(); first != nodes.end();) {
    const auto last = std::find(first, nodes.end(), nullptr);
    if (last - first < 2 || (last != nodes.end() && last + 1 == nodes.end()))
      throw BuilderError(std::string(pattern) + "::Apply expects groups of two nodes or more separated by a gap");
    KeepAndAlias(replacement, graph, pattern, **first, {first + 1, last});
    first = last == nodes.end() ? last : last + 1;
  }
  if (replacement.empty()) throw BuilderError(std::string(pattern) + "::Apply expects groups of two nodes or more");
  return replacement;
}

void KeepAndAlias(utils::RepeatedProtoField<NodeProto>& replacement, core::builder::GraphGraph& graph,
                  std::string_view pattern, const NodeProto& kept, const std::vector<const NodeProto*>& duplicates) {
  NodeProto& copy = *replacement.Add() = kept;
  copy.set_name(DerivedNodeName(graph, pattern, kept));
  for (const NodeProto* duplicate : duplicates)
    for (int i = 0; i < duplicate->output_size(); ++i) {
      if (duplicate->output(i).empty()) continue;
      *replacement.Add() = core::builder::IdentityNode(graph, pattern, *duplicate, kept.output(i), duplicate->output(i));
    }
}

}  // namespace onnxopt::onnx_patterns::algebra
