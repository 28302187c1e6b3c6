// MatchCache: see match_cache.h.

#include "onnx_core/optimizer/match_cache.h"

#include <algorithm>
#include <bit>
#include <iterator>
#include <span>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::core::builder {

namespace {

std::uint64_t Mix(std::uint64_t seed, std::uint64_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

// The key of one side of a value, from the hash of its name (the low bit is the side).
NameHash KeyOf(std::uint64_t hash, ValueSide side) {
  return (static_cast<NameHash>(hash ^ (hash >> 32)) & ~NameHash{1}) | static_cast<NameHash>(side);
}

template <class Field>
std::vector<NameHash> SortedNames(const Field& elements) {
  std::vector<NameHash> names;
  names.reserve(static_cast<std::size_t>(elements.size()));
  for (const auto& element : elements) names.push_back(SideKey(element.name(), ValueSide::kDefinition));
  std::sort(names.begin(), names.end());
  return names;
}

// The names of sorted `a` that are not in sorted `b`.
std::vector<NameHash> Difference(const std::vector<NameHash>& a, const std::vector<NameHash>& b) {
  std::vector<NameHash> only;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
  return only;
}

NameHash DefinitionKey(std::string_view name) { return SideKey(name, ValueSide::kDefinition); }

// What a node is: op type, domain, input and output names (not attributes: a node whose
// attributes change is a new node, which the driver reports).
std::uint64_t Signature(const NodeProto& node) {
  std::uint64_t signature = Mix(utils::HashString(node.op_type()), utils::HashString(node.domain()));
  for (const auto* names : {&node.input(), &node.output()}) {
    signature = Mix(signature, static_cast<std::uint64_t>(names->size()));
    for (const std::string& name : *names) signature = Mix(signature, utils::HashString(name));
  }
  return signature;
}

// The nodes whose constness depends on their input's shape (HasStaticShapeValue).
bool IsShapeOp(const NodeProto& node) {
  return (node.op_type() == "Shape" || node.op_type() == "Size") && IsOnnxDomain(node.domain());
}

// What this thread's queries report to (null: nobody listens).
thread_local ReadSet* t_reads = nullptr;
thread_local ConstnessMemory* t_constness = nullptr;

}  // namespace

NameHash SideKey(std::string_view name, ValueSide side) { return KeyOf(utils::HashString(name), side); }

void NoteRead(std::string_view name, ValueSide side) {
  if (t_reads) NoteReadHashed(utils::HashString(name), side);
}

void NoteReadHashed(std::uint64_t name_hash, ValueSide side) {
  if (!t_reads) return;
  const NameHash key = KeyOf(name_hash, side);
  // Patterns often ask twice in a row about the same value.
  if (t_reads->names.empty() || t_reads->names.back() != key) t_reads->names.push_back(key);
}

void NoteWholeGraphRead() {
  if (t_reads) t_reads->whole_graph = true;
}

void NoteConstness(std::string_view name, bool constant) {
  if (t_constness) t_constness->Record(name, utils::HashString(name), constant);
}

void NoteConstnessHashed(std::string_view name, std::uint64_t name_hash, bool constant) {
  if (t_constness) t_constness->Record(name, name_hash, constant);
}

void ConstnessMemory::Record(std::string_view name, std::uint64_t name_hash, bool constant) {
  const auto [answer, added] = answers_.emplace(name, name_hash, Answer{constant, false, false, round_});
  if (added) return;
  if (answer->round != round_) {
    answer->before = answer->now;
    answer->had_before = true;
    answer->round = round_;
  }
  answer->now = constant;
}

const bool* ConstnessMemory::Previous(std::string_view name) const {
  const Answer* answer = answers_.find(name);
  if (!answer) return nullptr;
  if (answer->round != round_) return &answer->now;
  return answer->had_before ? &answer->before : nullptr;
}

ScopedConstnessMemory::ScopedConstnessMemory(ConstnessMemory& memory) : previous_(t_constness) {
  t_constness = &memory;
}
ScopedConstnessMemory::~ScopedConstnessMemory() { t_constness = previous_; }

ScopedReads::ScopedReads(ReadSet& reads) : previous_(t_reads) { t_reads = &reads; }
ScopedReads::~ScopedReads() { t_reads = previous_; }

void MatchCache::Update(const GraphGraph& graph, const GraphChanges& changes) {
  const GraphBuilder& builder = graph.Builder();
  const auto& nodes = builder.Nodes();
  const auto count = static_cast<std::size_t>(nodes.size());
  dirty_.Clear();
  constness_.StartRound();

  // Nodes: compare each with the snapshot of the same address.
  std::vector<Entry> entries(count);
  std::vector<Snapshot> snapshot(count);
  std::vector<NameHash> snapshot_names;
  snapshot_names.reserve(snapshot_names_.size());
  utils::DenseIndex<const NodeProto*> snapshot_index;
  snapshot_index.reserve(count);
  std::vector<bool> seen(snapshot_.size(), false);
  const std::unordered_set<const NodeProto*> edited = EditedByRenames(graph, changes.renames);
  // What a node is and the keys of the values it reads and writes (a changed node changes
  // the readers of its inputs and the definitions of its outputs).
  auto describe = [&](const NodeProto& node, Snapshot& now) {
    if (verify_) now.signature = Signature(node);
    now.first = static_cast<std::uint32_t>(snapshot_names.size());
    for (const auto& [names, side] : {std::pair{&node.input(), ValueSide::kReaders},
                                      std::pair{&node.output(), ValueSide::kDefinition}})
      for (const std::string& name : *names)
        if (!name.empty()) snapshot_names.push_back(SideKey(name, side));
    now.count = static_cast<std::uint32_t>(snapshot_names.size()) - now.first;
  };
  std::vector<std::size_t> changed;
  for (std::size_t i = 0; i < count; ++i) {
    const NodeProto& node = nodes.Get(static_cast<int>(i));
    snapshot_index.insert(&node);
    Snapshot& now = snapshot[i];
    const std::uint32_t before = snapshot_index_.find(&node);
    if (before != snapshot_index_.kNone) {
      seen[before] = true;
      if (!changes.nodes.contains(&node) && !edited.contains(&node)) {
        // The same node as in the previous round: keep its description and its entry.
        const Snapshot& old = snapshot_[before];
        now = Snapshot{old.signature, static_cast<std::uint32_t>(snapshot_names.size()), old.count};
        const auto old_names = NamesOf(snapshot_names_, old);
        snapshot_names.insert(snapshot_names.end(), old_names.begin(), old_names.end());
        if (verify_ && Signature(node) != old.signature)
          throw BuilderError("incremental matching: node " + node.op_type() + " '" + node.name() +
                             "' was edited in place, and the optimizer did not report it (ONNXOPT_CHECK_INCREMENTAL)");
        entries[i] = std::move(entries_[before]);
        continue;
      }
      MarkDirty(NamesOf(snapshot_names_, snapshot_[before]));
      entries[i] = std::move(entries_[before]);  // for the memory of its reads
      entries[i].Forget();
    }
    describe(node, now);
    MarkDirty(NamesOf(snapshot_names, now));
    changed.push_back(i);
  }
  for (std::size_t i = 0; i < snapshot_.size(); ++i)
    if (!seen[i]) MarkDirty(NamesOf(snapshot_names_, snapshot_[i]));
  const bool first = snapshot_.empty();

  // Initializers and graph outputs: added or removed names are dirty.
  std::vector<NameHash> initializers = SortedNames(builder.Initializers());
  std::vector<NameHash> outputs = SortedNames(builder.Outputs());
  std::vector<NameHash> added_initializers = Difference(initializers, initializers_);
  MarkDirty(added_initializers);
  MarkDirty(Difference(initializers_, initializers));
  // A graph output counts as a reader too (IsUsed): both sides.
  for (const std::vector<NameHash>& changed_outputs : {Difference(outputs, outputs_), Difference(outputs_, outputs)})
    for (NameHash key : changed_outputs) {
      dirty_.Insert(key);
      dirty_.Insert(key | static_cast<NameHash>(ValueSide::kReaders));
    }

  // Constness, from the values whose definition changed (at the first round no answer is
  // known and no entry is kept: nothing to follow).
  if (first) dirty_.Clear();
  std::vector<std::string_view> seeds;
  if (!first && !added_initializers.empty()) {
    for (const TensorProto& initializer : builder.Initializers())
      if (std::binary_search(added_initializers.begin(), added_initializers.end(),
                             SideKey(initializer.name(), ValueSide::kDefinition)))
        seeds.push_back(initializer.name());
  }
  if (first) changed.clear();
  for (const std::string& name : changes.refined) {
    dirty_.Insert(SideKey(name, ValueSide::kDefinition));
    if (!first) seeds.push_back(name);
  }
  for (std::size_t i : changed)
    for (const std::string& name : nodes.Get(static_cast<int>(i)).output())
      if (!name.empty()) seeds.push_back(name);
  FollowConstness(graph, seeds);

  // Entries that read a dirty name are dropped; the others keep their level.
  for (Entry& entry : entries) {
    entry.unclean = false;
    if (entry.clean_level != kNotClean && (entry.reads.whole_graph || ReadsDirty(entry.reads))) entry.Forget();
  }
  entries_ = std::move(entries);
  snapshot_ = std::move(snapshot);
  snapshot_names_ = std::move(snapshot_names);
  snapshot_index_ = std::move(snapshot_index);
  initializers_ = std::move(initializers);
  outputs_ = std::move(outputs);
}

void MatchCache::FollowConstness(const GraphGraph& graph, const std::vector<std::string_view>& seeds) {
  // Whether the answer about `name` changed since the previous round; false when none was
  // established (no answer depended on it).
  auto changed = [&](std::string_view name) {
    const bool* before = constness_.Previous(name);
    if (!before) return false;
    const bool was = *before;
    return graph.IsConstant(name) != was;
  };
  // The seeds (each value once: a value has one definition) and the values whose answer
  // changed: the outputs of their readers are asked about again. A Shape or Size of a
  // seed may now be static (a constant) though no answer changed.
  std::vector<std::string_view> work;
  for (std::string_view seed : seeds) {
    if (changed(seed)) {
      dirty_.Insert(DefinitionKey(seed));
      work.push_back(seed);
      continue;
    }
    for (const NodeProto* reader : graph.NextNodes(seed))
      if (IsShapeOp(*reader) && !reader->output().empty() && changed(reader->output(0))) {
        dirty_.Insert(DefinitionKey(reader->output(0)));
        work.push_back(reader->output(0));
      }
  }
  std::unordered_set<std::string_view> followed;
  while (!work.empty()) {
    const std::string_view name = work.back();
    work.pop_back();
    if (!followed.insert(name).second) continue;
    for (const NodeProto* reader : graph.NextNodes(name))
      for (const std::string& output : reader->output())
        if (!output.empty() && changed(output)) {
          dirty_.Insert(DefinitionKey(output));
          work.push_back(output);
        }
  }
}

std::unordered_set<const NodeProto*> MatchCache::EditedByRenames(
    const GraphGraph& graph, const std::vector<std::pair<std::string, std::string>>& renames) const {
  // A reader of a rename's target that read one of the renamed values before (renames may
  // chain: a -> b, b -> c).
  std::vector<NameHash> renamed;
  for (const auto& [from, to] : renames) renamed.push_back(SideKey(from, ValueSide::kReaders));
  std::sort(renamed.begin(), renamed.end());
  std::unordered_set<const NodeProto*> edited;
  std::unordered_set<std::string_view> targets;  // many values may be merged into one
  for (const auto& [from, to] : renames) {
    if (!targets.insert(to).second) continue;
    for (const NodeProto* reader : graph.NextNodes(to)) {
      const std::uint32_t before = snapshot_index_.find(reader);
      if (before == snapshot_index_.kNone) continue;  // new: compared anyway
      const auto read = NamesOf(snapshot_names_, snapshot_[before]);
      if (std::any_of(read.begin(), read.end(),
                      [&](NameHash name) { return std::binary_search(renamed.begin(), renamed.end(), name); }))
        edited.insert(reader);
    }
  }
  return edited;
}

bool MatchCache::ReadsDirty(const ReadSet& reads) const {
  if (dirty_.Count() == 0) return false;
  return std::any_of(reads.names.begin(), reads.names.end(), [&](NameHash name) { return dirty_.Contains(name); });
}

// 1 024 bits per node, a power of two between 2^16 and 2^24: a node has about four keys
// (two names, two sides), so a clean key is taken for dirty with a probability below 1/256
// (on the decoders, no Match call more than with 2^24). The bits are zeroed once per loop,
// and each nested graph has its own loops: a fixed 2^24 (2 MB) cost 8 % of the instructions
// of the default optimization of a 300-node model. Above 8 192 nodes the size is 2^24, as
// it always was.
std::size_t MatchCache::DirtyBits::BitsFor(std::size_t nodes) {
  constexpr std::size_t kMinBits = std::size_t{1} << 16, kMaxBits = std::size_t{1} << 24;
  const std::size_t wanted = std::min(nodes, kMaxBits) * 1024;
  return std::clamp(std::bit_ceil(wanted), kMinBits, kMaxBits);
}

MatchCache::DirtyBits::DirtyBits(std::size_t nodes)
    : mask_(BitsFor(nodes) - 1), bits_((mask_ + 1) / 64) {}

void MatchCache::DirtyBits::Insert(NameHash name) {
  const std::size_t slot = Slot(name);
  std::uint64_t& word = bits_[slot / 64];
  const std::uint64_t bit = std::uint64_t{1} << (slot % 64);
  if (word & bit) return;
  word |= bit;
  set_.push_back(slot);
}

void MatchCache::DirtyBits::Clear() {
  for (std::size_t slot : set_) bits_[slot / 64] = 0;
  set_.clear();
}

void MatchCache::EndRound(int threshold) {
  for (Entry& entry : entries_) {
    if (entry.unclean) {
      entry.Forget();
      continue;
    }
    entry.clean_level = std::max(entry.clean_level, threshold);
    // Several patterns read the same names: keep each once.
    std::vector<NameHash>& names = entry.reads.names;
    if (names.size() == entry.sorted_reads) continue;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    entry.sorted_reads = names.size();
  }
}

}  // namespace onnxopt::core::builder
