#pragma once
// MatchCache: incremental matching. A candidate node on which every pattern of a round
// found nothing is not tried again until something those patterns looked at changes.
//
// What a Match looked at: while it runs, GraphGraph's queries note the names of the values
// they are asked about, and which side of the value: its definition (producer, shape,
// type, constness, initializer, being a graph output) or its readers (NextNodes, read by
// a nested graph). A node's entry keeps the union of those (name, side) keys over the
// patterns tried on it, as 32-bit hashes (a collision only makes a node be tried again).
//
// What changed: before each round the cache compares the graph with the snapshot it took
// at the previous one, by node address, and with what the driver tells it: the nodes it
// created and the values the cleanup renamed (their readers were edited in place, and
// identity removal hands an output name to a producer) and the values whose shapes
// inference refined (a reader of a folded shape). A node added, removed or edited
// makes the readers of its inputs and the definitions of its outputs dirty; an
// initializer added or removed makes its definition dirty, a graph output changed both
// sides. Keeping the sides apart matters: a value read by every layer (a mask, a shape)
// gets or loses a reader in most rounds, and most patterns only look at where their
// inputs come from. Constness (IsConstant) is derived from producers far upstream: for
// every value whose definition changed, the cache asks again whether it is constant (when
// a query established that before; a Shape or Size reading it may have become static
// too), and follows each changed answer downstream through the readers, as far as
// answers change.
// Then every entry that read a dirty name is dropped.
//
// Why no match is missed: a Match reaches other nodes only through the values it asks
// about (NodeBefore, NextNodes, Predecessors, ...), and everything it can learn about a
// value changes only through the changes above. Positions keep their relative order
// between rounds (a batch keeps the surviving nodes in order). A query that depends on
// the whole graph (GraphGraph::NodeCount, Python's `nodes`) notes so, and its node is
// tried again every round. ONNXOPT_CHECK_INCREMENTAL=1 tries the skipped nodes as well
// and fails on any match, and checks that no node the driver did not report was edited:
// the invariant test of CI runs with it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/utils/dense_index.h"
#include "onnx_core/utils/name_table.h"

namespace onnxopt::core::builder {

class GraphGraph;

using NameHash = std::uint32_t;
enum class ValueSide : std::uint32_t { kDefinition = 0, kReaders = 1 };
// The key of one side of a value.
NameHash SideKey(std::string_view name, ValueSide side);

// --- What GraphGraph's queries report (graph_graph.cc calls these) ----------------------

// A query about one side of `name` (no-op unless a Match is being observed on this thread).
void NoteRead(std::string_view name, ValueSide side);
// The same, given utils::HashString(name): GraphGraph's queries hash a name once for the
// note and the index.
void NoteReadHashed(std::uint64_t name_hash, ValueSide side);
// A query whose answer depends on the whole graph.
void NoteWholeGraphRead();
// IsConstant established `constant` for `name` (no-op unless an optimization observes
// constness on this thread).
void NoteConstness(std::string_view name, bool constant);
// The same, given utils::HashString(name).
void NoteConstnessHashed(std::string_view name, std::uint64_t name_hash, bool constant);

// The constness answers of one optimization, with the previous round's answer of each
// value whose answer was established again in this round.
class ConstnessMemory {
 public:
  void StartRound() { ++round_; }
  // `name_hash`: utils::HashString(name).
  void Record(std::string_view name, std::uint64_t name_hash, bool constant);
  // The answer known at the end of the previous round, if any.
  const bool* Previous(std::string_view name) const;

 private:
  struct Answer {
    bool now = false, before = false, had_before = false;
    std::uint32_t round = 0;
  };
  utils::NameTable<Answer> answers_;
  std::uint32_t round_ = 1;
};

// Makes this thread's queries report constness to `memory` while it lives.
class ScopedConstnessMemory {
 public:
  explicit ScopedConstnessMemory(ConstnessMemory& memory);
  ~ScopedConstnessMemory();
  ScopedConstnessMemory(const ScopedConstnessMemory&) = delete;
  ScopedConstnessMemory& operator=(const ScopedConstnessMemory&) = delete;

 private:
  ConstnessMemory* previous_;
};

// The (name, side) keys one Match call (or several) asked about.
struct ReadSet {
  std::vector<NameHash> names;
  bool whole_graph = false;
};

// Makes this thread's queries note their names in `reads` while it lives.
class ScopedReads {
 public:
  explicit ScopedReads(ReadSet& reads);
  ~ScopedReads();
  ScopedReads(const ScopedReads&) = delete;
  ScopedReads& operator=(const ScopedReads&) = delete;

 private:
  ReadSet* previous_;
};

// --- The cache ------------------------------------------------------------------------

// What the driver knows changed since the cache's last Update, besides deletions.
struct GraphChanges {
  // Nodes created or edited in place (identity removal renaming a producer's output);
  // an address may be that of a deleted node.
  std::unordered_set<const NodeProto*> nodes;
  // Values the cleanup renamed (from, to): the readers of `from` read `to` now, edited in
  // place.
  std::vector<std::pair<std::string, std::string>> renames;
  // Values whose shapes inference refined under an unchanged producer
  // (GraphBuilder::TakeRefinedValues): their definitions changed.
  std::vector<std::string> refined;

  void Clear() {
    nodes.clear();
    renames.clear();
    refined.clear();
  }
};

// One match/apply loop's cache. While it lives, this thread's constness answers are
// recorded for it.
class MatchCache {
 public:
  static constexpr int kNotClean = INT32_MIN;

  // With `verify`, each Update also compares every node the driver did not report with
  // its snapshot and throws BuilderError if one was edited (ONNXOPT_CHECK_INCREMENTAL).
  // `nodes`: the graph's size when the loop starts, which sizes the dirty-name bits.
  MatchCache(bool verify, std::size_t nodes) : verify_(verify), dirty_(nodes) {}
  MatchCache(const MatchCache&) = delete;
  MatchCache& operator=(const MatchCache&) = delete;

  // Compares the graph with the previous round's snapshot and drops the entries of nodes
  // that changed or read a dirty name (see above). The graph's index must be up to date.
  void Update(const GraphGraph& graph, const GraphChanges& changes);

  // Whether every pattern of priority <= `priority` found nothing at the node at
  // `position` (in the graph as of the last Update) and nothing it read changed since.
  bool Clean(std::size_t position, int priority) const { return entries_[position].clean_level >= priority; }
  // Where a Match at that node notes its reads. The patterns tried at a node note a few
  // dozen names together: room for them is made once instead of growing by doubling.
  ReadSet& Reads(std::size_t position) {
    ReadSet& reads = entries_[position].reads;
    if (reads.names.capacity() == 0) reads.names.reserve(kReadsReserved);
    return reads;
  }
  // Something matched at the node, or it was not tried: it is tried again next round.
  void Unclean(std::size_t position) { entries_[position].unclean = true; }
  // Ends a round in which the patterns of priority <= `threshold` were tried (or skipped
  // as clean) on every node that was not marked Unclean.
  void EndRound(int threshold);

 private:
  static constexpr std::size_t kReadsReserved = 32;
  struct Entry {
    int clean_level = kNotClean;
    bool unclean = false;
    ReadSet reads;
    // How many names of `reads` EndRound sorted and made unique: a node no pattern tried
    // since keeps them so, and is not sorted again.
    std::size_t sorted_reads = 0;
    // Back to a new entry's state, keeping the memory of the reads for the next round.
    void Forget() {
      clean_level = kNotClean;
      unclean = false;
      reads.names.clear();
      reads.whole_graph = false;
      sorted_reads = 0;
    }
  };
  // A node as the previous round saw it: what it is (only when verifying), and the keys of
  // the values it reads and writes ([first, first + count) of the snapshot's names).
  struct Snapshot {
    std::uint64_t signature = 0;
    std::uint32_t first = 0, count = 0;
  };

  // The dirty names as bits of a hash (a false positive only makes a node be tried again).
  class DirtyBits {
   public:
    // Sized for a graph of `nodes` nodes (see BitsFor).
    explicit DirtyBits(std::size_t nodes);
    void Insert(NameHash name);
    bool Contains(NameHash name) const { return (bits_[Slot(name) / 64] >> (Slot(name) % 64)) & 1; }
    void Clear();
    std::size_t Count() const { return set_.size(); }

   private:
    static std::size_t BitsFor(std::size_t nodes);
    std::size_t Slot(NameHash name) const { return name & mask_; }
    std::size_t mask_;
    std::vector<std::uint64_t> bits_;
    std::vector<std::size_t> set_;  // the slots set, to clear them
  };

  template <class Names>
  void MarkDirty(const Names& names) {
    for (NameHash name : names) dirty_.Insert(name);
  }
  void FollowConstness(const GraphGraph& graph, const std::vector<std::string_view>& seeds);
  bool ReadsDirty(const ReadSet& reads) const;
  // The nodes the cleanup's renames edited in place (their snapshot read a renamed value).
  std::unordered_set<const NodeProto*> EditedByRenames(
      const GraphGraph& graph, const std::vector<std::pair<std::string, std::string>>& renames) const;
  static std::span<const NameHash> NamesOf(const std::vector<NameHash>& names, const Snapshot& node) {
    return {names.data() + node.first, node.count};
  }

  const bool verify_;
  ConstnessMemory constness_;
  ScopedConstnessMemory observe_constness_{constness_};
  std::vector<Entry> entries_;  // by node position
  std::vector<Snapshot> snapshot_;
  std::vector<NameHash> snapshot_names_;
  utils::DenseIndex<const NodeProto*> snapshot_index_;
  std::vector<NameHash> initializers_, outputs_;  // sorted
  DirtyBits dirty_;
};

}  // namespace onnxopt::core::builder
