#include "onnx_core/optimizer/batch_cleanup.h"

#include <algorithm>
#include <functional>


namespace onnxopt::core::builder {

namespace {

// Nodes by the values they read (views into the nodes' names).
using ReaderMap = std::unordered_map<std::string_view, std::vector<const NodeProto*>>;

void AddReads(const NodeProto& node, ReaderMap& readers) {
  for (const std::string& input : node.input()) {
    if (input.empty()) continue;
    std::vector<const NodeProto*>& list = readers[input];
    if (list.empty() || list.back() != &node) list.push_back(&node);
  }
}

const std::vector<const NodeProto*>* Find(const ReaderMap& readers, std::string_view value) {
  auto it = readers.find(value);
  return it == readers.end() ? nullptr : &it->second;
}

// Finds twins: nodes computing the same as a given one, among the nodes whose first input
// is the same value. The candidates of each value are collected once; when a value has
// many (a value read by every layer), they are also grouped by ComputationHash, so that
// questions about it cost one pass over its readers rather than one each.
class TwinFinder {
 public:
  // `readers(value, add)` calls add(node) for every node that may read `value` first (the
  // finder keeps those that do); `content(node)` is what a node computes (after renames).
  using Add = std::function<void(const NodeProto*)>;
  TwinFinder(std::function<void(std::string_view, const Add&)> readers,
             std::function<const NodeProto&(const NodeProto*)> content)
      : readers_(std::move(readers)), content_(std::move(content)) {}

  // Whether a node other than `node` computes the same (true when `node` has no first input
  // to look by).
  bool HasTwin(const NodeProto* node) {
    const NodeProto& content = content_(node);
    if (content.input_size() == 0 || content.input(0).empty()) return true;
    Candidates& candidates = CandidatesOf(content.input(0));
    auto same = [&](const NodeProto* other) {
      return other != node && other->op_type() == content.op_type() && SameComputation(content, content_(other));
    };
    if (candidates.nodes.size() <= kScanned) return std::any_of(candidates.nodes.begin(), candidates.nodes.end(), same);
    if (candidates.by_hash.empty())
      for (const NodeProto* other : candidates.nodes) candidates.by_hash.emplace(ComputationHash(content_(other)), other);
    auto [begin, end] = candidates.by_hash.equal_range(ComputationHash(content));
    return std::any_of(begin, end, [&](const auto& entry) { return same(entry.second); });
  }

 private:
  static constexpr std::size_t kScanned = 16;
  struct Candidates {
    std::vector<const NodeProto*> nodes;
    std::unordered_multimap<std::size_t, const NodeProto*> by_hash;
  };
  Candidates& CandidatesOf(const std::string& first) {
    const auto [it, added] = candidates_.try_emplace(first);
    Candidates& candidates = it->second;  // clang before 16 cannot capture a structured binding
    if (added)
      readers_(first, [&](const NodeProto* reader) {
        const NodeProto& content = content_(reader);
        if (content.input_size() > 0 && content.input(0) == first) candidates.nodes.push_back(reader);
      });
    return candidates;
  }

  std::function<void(std::string_view, const Add&)> readers_;
  std::function<const NodeProto&(const NodeProto*)> content_;
  std::unordered_map<std::string, Candidates> candidates_;
};

}  // namespace

bool DuplicatesAfterBatch(const IndexBeforeBatch& index, const std::vector<const NodeProto*>& removed_nodes,
                          const NodeSet& removed, const std::vector<const NodeProto*>& added_nodes) {
  // Twins read the same first input: the added nodes by theirs.
  ReaderMap added_readers;
  for (const NodeProto* node : added_nodes)
    if (node->input_size() > 0 && !node->input(0).empty()) added_readers[node->input(0)].push_back(node);
  // The survivors (the graph after the batch); an added node computing the same as a
  // removed one is its replacement, not a duplicate.
  TwinFinder survivors(
      [&](std::string_view value, const TwinFinder::Add& add) {
        for (const NodeProto* reader : index.Readers(value))
          if (!removed.contains(reader)) add(reader);
      },
      [](const NodeProto* node) -> const NodeProto& { return *node; });
  for (const NodeProto* node : removed_nodes)
    if (IsMergeable(*node) && survivors.HasTwin(node)) return true;
  TwinFinder after_batch(
      [&](std::string_view value, const TwinFinder::Add& add) {
        for (const NodeProto* reader : index.Readers(value))
          if (!removed.contains(reader)) add(reader);
        if (const auto* list = Find(added_readers, value))
          for (const NodeProto* reader : *list) add(reader);
      },
      [](const NodeProto* node) -> const NodeProto& { return *node; });
  for (const NodeProto* node : added_nodes)
    if (!IsPlainIdentity(*node) && IsMergeable(*node) && after_batch.HasTwin(node)) return true;
  return false;
}

std::optional<BatchCleanupPlan> PlanCleanupAfterBatch(const IndexBeforeBatch& index, const BatchFootprint& batch,
                                                      bool identities_known) {
  // What a nested graph reads is indexed per value, not per node: a node holding one that
  // goes or comes changes reads the index cannot follow.
  for (const auto& node : batch.removed_content)
    if (HasSubgraph(*node)) return std::nullopt;
  for (const NodeProto* node : batch.added)
    if (HasSubgraph(*node)) return std::nullopt;
  BatchCleanupPlan plan;
  auto removed = [&](const NodeProto* node) { return batch.removed.contains(node); };

  // --- The identity pass: the added plain Identity nodes go, their readers read their inputs.
  NodeSet identities;
  std::unordered_map<std::string, std::string> renamed;  // Identity output -> the value read instead
  for (const NodeProto* node : batch.added) {
    if (!IsPlainIdentity(*node)) continue;
    if (!identities_known) return std::nullopt;
    const std::string& output = node->output(0);
    // A graph output is taken over by the producer (RemoveIdentityNodes); a nested graph
    // reading the value would need renaming inside.
    const auto* holders = index.NestedReaders(output);
    if (index.IsGraphOutput(output) ||
        (holders && std::any_of(holders->begin(), holders->end(), [&](const NodeProto* n) { return !removed(n); })))
      return std::nullopt;
    auto chained = renamed.find(node->input(0));  // an earlier Identity's output
    renamed[output] = chained != renamed.end() ? chained->second : node->input(0);
    plan.identities.push_back(node);
    identities.insert(node);
  }
  // Readers among the added nodes (the identities among them are gone after their pass).
  ReaderMap added_readers;
  for (const NodeProto* node : batch.added) AddReads(*node, added_readers);
  // The readers the identity pass renames (`moved`), also by the value they read then.
  NodeSet moved;
  std::vector<const NodeProto*> moved_in_order;
  ReaderMap moved_readers;
  for (const auto& rename : renamed) {
    const std::string& output = rename.first;
    const std::string& input = rename.second;
    std::vector<NodeProto*>& readers = plan.identity_readers[output];
    auto add = [&](const NodeProto* reader) {
      if (removed(reader) || identities.contains(reader)) return;
      readers.push_back(const_cast<NodeProto*>(reader));  // a node of the graph
      if (moved.insert(reader).second) moved_in_order.push_back(reader);
      moved_readers[input].push_back(reader);
    };
    for (const NodeProto* reader : index.Readers(output)) add(reader);
    if (const auto* list = Find(added_readers, output))
      for (const NodeProto* reader : *list) add(reader);
  }
  plan.nodes_visited += plan.identities.size() + moved_in_order.size();
  plan.moved = moved_in_order;

  // --- The unused-node pass. Liveness is the same with or without the identities (an
  // Identity is live exactly when the readers it hands over are): the search keeps them as
  // nodes, and they are left out of the result.
  NodeSet unused;
  std::vector<const NodeProto*> unused_in_order;
  auto gone = [&](const NodeProto* node) { return removed(node) || unused.contains(node); };
  // Whether a live node, nested graph or graph output reads `value`. Nodes only ever become
  // gone, so each list is scanned once over all questions: a cursor per value keeps the
  // first reader not known gone.
  struct Cursor {
    std::size_t added = 0, indexed = 0;
  };
  std::unordered_map<std::string_view, Cursor> cursors;
  auto read = [&](std::string_view value) {
    if (index.IsGraphOutput(value)) return true;
    Cursor& cursor = cursors[value];
    auto live_from = [&](const std::vector<const NodeProto*>* readers, std::size_t& next) {
      if (!readers) return false;
      while (next < readers->size() && gone((*readers)[next])) ++next;
      return next < readers->size();
    };
    if (live_from(Find(added_readers, value), cursor.added) || live_from(&index.Readers(value), cursor.indexed))
      return true;
    const auto* holders = index.NestedReaders(value);
    return holders && std::any_of(holders->begin(), holders->end(), [&](const NodeProto* n) { return !gone(n); });
  };
  // The added node writing a value, looked up only when a value loses its last reader.
  std::optional<std::unordered_map<std::string_view, const NodeProto*>> added_producers;
  auto added_producer = [&](std::string_view value) -> const NodeProto* {
    if (!added_producers) {
      added_producers.emplace();
      for (const NodeProto* node : batch.added)
        for (const std::string& output : node->output())
          if (!output.empty()) added_producers->emplace(output, node);
    }
    auto it = added_producers->find(value);
    return it == added_producers->end() ? nullptr : it->second;
  };
  std::unordered_set<std::string_view> added_initializers;
  for (const TensorProto* initializer : batch.added_initializers) added_initializers.insert(initializer->name());

  // Values that may have lost their last reader (what the removed and folded nodes read,
  // then what each node found unused reads) or be new and unread (added initializers, the
  // folded nodes' outputs among them). The added nodes are checked first.
  std::vector<std::string_view> pending(added_initializers.begin(), added_initializers.end());
  for (const auto& node : batch.removed_content) pending.insert(pending.end(), node->input().begin(), node->input().end());
  for (std::size_t i = 0; i < batch.folded_inputs.size(); ++i) pending.push_back(batch.folded_inputs[i]);
  bool nested = false;
  auto drop_if_unread = [&](const NodeProto& node) {
    ++plan.nodes_visited;
    if (unused.contains(&node) || std::any_of(node.output().begin(), node.output().end(), [&](const std::string& output) {
          return !output.empty() && read(output);
        }))
      return;
    if (HasSubgraph(node)) {
      nested = true;
      return;
    }
    unused.insert(&node);
    unused_in_order.push_back(&node);
    pending.insert(pending.end(), node.input().begin(), node.input().end());
  };
  for (const NodeProto* node : batch.added) drop_if_unread(*node);
  while (!pending.empty() && !nested) {
    const std::string_view value = pending.back();
    pending.pop_back();
    if (value.empty() || read(value)) continue;
    if (const NodeProto* producer = added_producer(value)) {
      drop_if_unread(*producer);
    } else if (const NodeProto* producer = index.Producer(value); producer && !removed(producer)) {
      drop_if_unread(*producer);
    } else if (added_initializers.contains(value) || index.IsPlainInitializer(value)) {
      plan.unused_initializers.emplace(value);
    }
  }
  if (nested) return std::nullopt;
  for (const NodeProto* node : unused_in_order)
    if (!identities.contains(node)) plan.unused_nodes.insert(node);

  // --- The duplicate pass, after both: a survivor renamed by the identity pass may now
  // compute the same as another reader of its new input; a node found unused may have
  // been the one its duplicates could not merge into. Content after the identity pass:
  // a moved reader is copied with its inputs renamed (only those compared).
  plan.duplicate_nodes = batch.duplicate_nodes;
  if (plan.duplicate_nodes || (moved_in_order.empty() && unused_in_order.empty())) return plan;
  std::unordered_map<const NodeProto*, NodeProto> renamed_content;
  auto content_after = [&](const NodeProto* node) -> const NodeProto& {
    if (!moved.contains(node)) return *node;
    auto [content, added] = renamed_content.try_emplace(node, *node);
    if (added)
      for (std::string& name : *content->second.mutable_input())
        if (auto it = renamed.find(name); it != renamed.end()) name = it->second;
    return content->second;
  };
  TwinFinder after_cleanup(
      [&](std::string_view value, const TwinFinder::Add& add) {
        auto add_if_there = [&](const NodeProto* node) {
          if (!gone(node) && !identities.contains(node)) add(node);
        };
        for (const NodeProto* reader : index.Readers(value)) add_if_there(reader);
        for (const ReaderMap* readers : {&added_readers, &moved_readers})
          if (const auto* list = Find(*readers, value))
            for (const NodeProto* reader : *list) add_if_there(reader);
      },
      content_after);
  plan.duplicate_nodes =
      std::any_of(moved_in_order.begin(), moved_in_order.end(),
                  [&](const NodeProto* reader) {
                    return !gone(reader) && IsMergeable(*reader) && after_cleanup.HasTwin(reader);
                  }) ||
      std::any_of(unused_in_order.begin(), unused_in_order.end(), [&](const NodeProto* node) {
        return !identities.contains(node) && IsMergeable(*node) && after_cleanup.HasTwin(node);
      });
  return plan;
}

bool DuplicatesAfterMerge(const IndexBeforeBatch& index, const BatchFootprint& batch, const BatchCleanupPlan& plan,
                          const std::vector<ValueRename>& renames) {
  NodeSet identities;
  for (const NodeProto* node : plan.identities) identities.insert(node);
  // Deleted since the index was built (the index still lists them).
  auto gone = [&](const NodeProto* node) {
    return batch.removed.contains(node) || plan.unused_nodes.contains(node) || identities.contains(node);
  };
  // What the added and the renamed nodes read now (views into their names as they are).
  ReaderMap changed_readers;
  NodeSet seen;
  for (const std::vector<const NodeProto*>* nodes : {&batch.added, &plan.moved})
    for (const NodeProto* node : *nodes)
      if (!gone(node) && seen.insert(node).second) AddReads(*node, changed_readers);
  std::unordered_set<std::string_view> compared;
  for (const ValueRename& rename : renames) {
    const std::string& to = rename.to;
    if (!compared.insert(to).second) continue;
    // The nodes reading `to` now, grouped by what they compute.
    std::unordered_multimap<std::size_t, const NodeProto*> readers;
    NodeSet added;
    auto add = [&](const NodeProto* node) {
      if (gone(node) || !IsMergeable(*node) || !added.insert(node).second) return;
      if (std::find(node->input().begin(), node->input().end(), to) == node->input().end()) return;
      readers.emplace(ComputationHash(*node), node);
    };
    for (const NodeProto* node : index.Readers(to)) add(node);
    for (const ValueRename& merged : renames)
      if (merged.to == to)
        for (const NodeProto* node : index.Readers(merged.from)) add(node);
    if (const auto* list = Find(changed_readers, to))
      for (const NodeProto* node : *list) add(node);
    for (auto it = readers.begin(); it != readers.end();) {
      auto [begin, end] = readers.equal_range(it->first);
      for (auto a = begin; a != end; ++a)
        for (auto b = std::next(a); b != end; ++b)
          if (SameComputation(*a->second, *b->second)) return true;
      it = end;
    }
  }
  return false;
}

}  // namespace onnxopt::core::builder
