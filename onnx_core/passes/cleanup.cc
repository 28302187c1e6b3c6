#include "onnx_core/passes/cleanup.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "onnx_core/utils/dense_index.h"
#include "onnx_core/utils/string_hash.h"
#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/ir/local_functions.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/renames.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::builder {

namespace {

using RenameMap = std::unordered_map<std::string, std::string>;
using NameSet = std::unordered_set<std::string>;

// Renames decided during one pass over one graph. A decision may target a name that a
// later decision renames again (y -> x, then x -> z when x's producer takes over the
// graph output z), so lookups follow chains. Chains end: a target is always defined
// earlier than its source, or is a graph output, which is never renamed.
class RenameChain {
 public:
  void Add(const std::string& from, const std::string& to) {
    // The map's keys do not move: order_ points at them instead of copying them.
    order_.push_back(&map_.insert_or_assign(from, to).first->first);
  }

  std::string Resolve(const std::string& name) const {
    const std::string* current = &name;
    for (auto it = map_.find(*current); it != map_.end(); it = map_.find(*current)) current = &it->second;
    return *current;
  }

  bool Empty() const { return map_.empty(); }

  void Apply(std::string& name) const {
    if (auto it = map_.find(name); it != map_.end()) name = Resolve(it->second);
  }

  // Maps each source straight to its final name, so that the map can be applied in one
  // walk (usually no target is itself renamed, and nothing changes). Ends the chain's use
  // for lookups: it returns the map itself, not a copy.
  const RenameMap& Finish() {
    for (auto& [from, to] : map_)
      if (map_.contains(to)) to = Resolve(to);
    return map_;
  }

  // After Finish.
  void Record(const GraphBuilder& builder, CleanupResult& result) const {
    const std::string path = builder.PathString();
    for (const std::string* from : order_) result.renames.push_back(ValueRename{path, *from, map_.at(*from)});
  }

 private:
  RenameMap map_;
  std::vector<const std::string*> order_;
};

// Applies the pass's renames to the graph and its nested graphs, and records them.
void Commit(GraphBuilder& builder, RenameChain& renames, CleanupResult& result) {
  builder.RenameUses(renames.Finish());
  renames.Record(builder, result);
}

// Commit for a pass that renamed the inputs of the graph's nodes as it walked them: what
// is left are the reads of the graphs nested in its nodes and the value_info entries (a
// walk of every input again, to find none, was one hash lookup per input and pass).
void CommitAfterRenamingInputs(GraphBuilder& builder, RenameChain& renames, CleanupResult& result) {
  const RenameMap& map = renames.Finish();
  if (!map.empty()) {
    for (NodeProto& node : builder.Nodes())
      if (HasSubgraph(node)) ir::RenameReads(node, map);
    ir::DropValueInfo(builder.Graph(), map);
  }
  renames.Record(builder, result);
}

NameSet OutputNames(const GraphBuilder& builder) {
  NameSet names;
  for (const ValueInfoProto& output : builder.Outputs()) names.insert(output.name());
  return names;
}

NameSet InputNames(const GraphBuilder& builder) {
  NameSet names;
  for (const ValueInfoProto& input : builder.Inputs()) names.insert(input.name());
  return names;
}

std::size_t RemoveNodes(GraphBuilder& builder, const NodeSet& dead) {
  if (dead.empty()) return 0;
  return KeepIf(builder.Nodes(), [&](const NodeProto& node) { return !dead.contains(&node); });
}

// Runs `pass` on the graphs nested in `builder` (innermost first), then on `builder`:
// cleaning a nested graph first may drop its reads of outer values, which the enclosing
// graph then no longer keeps alive.
using Pass = std::function<void(GraphBuilder&, CleanupScope, CleanupResult&)>;

void Recurse(GraphBuilder& builder, CleanupResult& result, const Pass& pass) {
  for (GraphBuilder* nested : builder.Subgraphs()) Recurse(*nested, result, pass);
  pass(builder, CleanupScope::kNestedGraphs, result);
}

CleanupResult RunPass(std::string name, GraphBuilder& builder, CleanupScope scope, const Pass& pass) {
  CleanupResult result;
  result.pass = std::move(name);
  if (scope == CleanupScope::kNestedGraphs)
    Recurse(builder, result, pass);
  else
    pass(builder, scope, result);
  return result;
}

// --- Identity ------------------------------------------------------------------------

constexpr const char* kRemoveIdentityNodes = "RemoveIdentityNodes";

struct Slot {
  NodeProto* node;
  int output;
};

void RemoveIdentitiesInGraph(GraphBuilder& builder, CleanupScope, CleanupResult& result) {
  // Most calls find nothing to do: a scan of op types is much cheaper than the walk below.
  const NameSet outputs = OutputNames(builder);
  NameSet identity_inputs;
  std::size_t identities = 0;
  // Producers matter only to identities that write a graph output; when none does (the
  // usual case), the walk need not look up every node's outputs.
  bool output_identities = false;
  for (const NodeProto& node : builder.Nodes()) {
    if (!IsPlainIdentity(node)) continue;
    ++identities;
    identity_inputs.insert(node.input(0));
    output_identities = output_identities || outputs.contains(node.output(0));
  }
  if (identities == 0) return;

  // Producers of the values identities read (only those can take over a graph output).
  std::unordered_map<std::string, Slot> producers;
  // Taking over moves the definition of y up to x's producer: a nested graph in between
  // may define y itself (not visible there before), which would then shadow it.
  std::optional<std::unordered_set<std::string>> nested_definitions;
  auto defined_in_nested_graph = [&](const std::string& name) {
    if (!nested_definitions) nested_definitions = ir::NestedDefinitions(builder.Graph());
    return nested_definitions->contains(name);
  };
  NodeSet dead;
  RenameChain renames;
  for (NodeProto& node : builder.Nodes()) {
    if (IsPlainIdentity(node)) {
      const std::string x = renames.Resolve(node.input(0));
      const std::string& y = node.output(0);
      if (!outputs.contains(y)) {
        renames.Add(y, x);
        dead.insert(&node);
        continue;
      }
      // y is a graph output: the producer of x can write y directly, unless x has to keep
      // its own name (graph output) or is no node output here (input, initializer, outer).
      auto producer = producers.find(x);
      if (producer != producers.end() && !outputs.contains(x) && !defined_in_nested_graph(y)) {
        Slot slot = producer->second;
        slot.node->set_output(slot.output, y);
        result.redefined_nodes.push_back(slot.node);
        producers.erase(producer);
        if (identity_inputs.contains(y)) producers.emplace(y, slot);
        renames.Add(x, y);
        dead.insert(&node);
        continue;
      }
    }
    if (!output_identities) continue;
    for (int i = 0; i < node.output_size(); ++i)
      if (identity_inputs.contains(node.output(i))) producers.emplace(node.output(i), Slot{&node, i});
  }
  result.kept_identities += identities - dead.size();
  result.removed_nodes += RemoveNodes(builder, dead);
  Commit(builder, renames, result);
}

// --- Unused nodes --------------------------------------------------------------------

constexpr const char* kRemoveUnusedNodes = "RemoveUnusedNodes";

void RemoveUnusedInGraph(GraphBuilder& builder, CleanupScope scope, CleanupResult& result) {
  // Views into the names of nodes that stay (or of `nested_reads`): valid for the pass.
  utils::DenseIndex<std::string_view> live;
  live.reserve(static_cast<std::size_t>(builder.Nodes().size()) * 2);
  for (const ValueInfoProto& output : builder.Outputs()) live.insert(output.name());
  std::deque<std::set<std::string>> nested_reads;
  NodeSet dead;
  const auto& nodes = builder.Nodes();
  for (int i = nodes.size() - 1; i >= 0; --i) {
    const NodeProto& node = nodes.Get(i);
    const bool needed = std::any_of(node.output().begin(), node.output().end(),
                                    [&](const std::string& output) { return live.contains(output); });
    if (!needed) {
      dead.insert(&node);
      continue;
    }
    for (const std::string& input : node.input())
      if (!input.empty()) live.insert(input);
    if (!HasSubgraph(node)) continue;
    for (const std::string& name : nested_reads.emplace_back(SubgraphReads(node))) live.insert(name);
  }

  // An initializer that is also a graph input is a default the caller may override:
  // part of the interface, kept even when unused.
  const NameSet inputs = InputNames(builder);
  auto needed = [&](const std::string& name) { return live.contains(name) || inputs.contains(name); };
  result.removed_initializers +=
      KeepIf(builder.Initializers(), [&](const TensorProto& init) { return needed(init.name()); });
  if (scope == CleanupScope::kNestedGraphs)
    result.removed_initializers += KeepIf(*builder.Graph().mutable_sparse_initializer(),
                                          [&](const SparseTensorProto& init) { return needed(init.values().name()); });
  // Last: `live` views the names of the nodes that stay only.
  result.removed_nodes += RemoveNodes(builder, dead);
}

// --- Duplicate nodes -----------------------------------------------------------------

}  // namespace

// Custom domains are excluded: their operators may have side effects or randomness we
// know nothing about. Graph attributes are excluded: comparing bodies is not worth it.
bool IsMergeable(const NodeProto& node) {
  // eval::IsNondeterministicOp also counts Dropout: deterministic in inference mode only,
  // which is not always known statically, so it is never merged.
  return IsOnnxDomain(node.domain()) && !eval::IsNondeterministicOp(node.domain(), node.op_type()) &&
         node.output_size() > 0 &&
         !HasSubgraph(node);
}

namespace {

// NodeProto.overload (field 8, IR 10) is newer than the onnx 1.12 classes and survives as
// an unknown field: two calls differing only by overload are different computations.
std::string_view Overload(const NodeProto& node) {
  constexpr int kOverloadField = 8;
  const auto& unknown = node.unknown_fields();
  for (int i = 0; i < unknown.field_count(); ++i)
    if (unknown.field(i).number() == kOverloadField &&
        unknown.field(i).type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      return unknown.field(i).length_delimited();
  return {};
}

void Mix(std::size_t& hash, std::size_t value) { hash = (hash ^ value) * 0x100000001b3ULL; }

std::size_t HashOf(std::string_view text) { return static_cast<std::size_t>(utils::HashString(text)); }

// The bytes of a repeated numeric field, for hashing.
template <class T>
std::string_view BytesOf(const google::protobuf::RepeatedField<T>& field) {
  return {reinterpret_cast<const char*>(field.data()), static_cast<std::size_t>(field.size()) * sizeof(T)};
}

// Hashes the fields that usually tell attributes apart; equal attributes hash equally.
// A typed attribute hashes the field of its type (every node of a large graph is hashed
// at each cleanup); one without a type hashes them all.
std::size_t AttributeHash(const AttributeProto& attr) {
  std::size_t hash = HashOf(attr.name());
  Mix(hash, static_cast<std::size_t>(attr.type()));
  const bool all = attr.type() == AttributeProto::UNDEFINED;
  if (all || attr.type() == AttributeProto::INT) Mix(hash, static_cast<std::size_t>(attr.i()));
  if (all || attr.type() == AttributeProto::FLOAT) Mix(hash, std::hash<float>{}(attr.f()));
  if (all || attr.type() == AttributeProto::STRING) Mix(hash, HashOf(attr.s()));
  if (all || attr.type() == AttributeProto::INTS)
    for (std::int64_t value : attr.ints()) Mix(hash, static_cast<std::size_t>(value));
  if (all || attr.type() == AttributeProto::FLOATS)
    for (float value : attr.floats()) Mix(hash, std::hash<float>{}(value));
  if (all || attr.type() == AttributeProto::STRINGS)
    for (const std::string& value : attr.strings()) Mix(hash, HashOf(value));
  if ((all || attr.type() == AttributeProto::TENSOR) && attr.has_t()) {
    const TensorProto& tensor = attr.t();
    Mix(hash, static_cast<std::size_t>(tensor.data_type()));
    for (std::int64_t dim : tensor.dims()) Mix(hash, static_cast<std::size_t>(dim));
    // The data, wherever it is stored: with raw_data alone, 8 000 ConstantOfShape nodes
    // whose values sit in float_data fell in one group, compared pairwise (6.4 s).
    Mix(hash, HashOf(tensor.raw_data()));
    Mix(hash, HashOf(BytesOf(tensor.float_data())));
    Mix(hash, HashOf(BytesOf(tensor.int32_data())));
    Mix(hash, HashOf(BytesOf(tensor.int64_data())));
    Mix(hash, HashOf(BytesOf(tensor.double_data())));
    Mix(hash, HashOf(BytesOf(tensor.uint64_data())));
    for (const std::string& value : tensor.string_data()) Mix(hash, HashOf(value));
  }
  return hash;
}

}  // namespace

// Everything that determines what a node computes; names, doc strings and metadata do
// not. Attribute order does not matter.
std::size_t ComputationHash(const NodeProto& node) {
  std::size_t hash = HashOf(IsOnnxDomain(node.domain()) ? "" : node.domain());
  Mix(hash, HashOf(node.op_type()));
  Mix(hash, HashOf(Overload(node)));
  Mix(hash, static_cast<std::size_t>(node.input_size()));
  for (const std::string& input : node.input()) Mix(hash, HashOf(input));
  Mix(hash, static_cast<std::size_t>(node.output_size()));
  std::size_t attributes = 0;
  for (const AttributeProto& attr : node.attribute()) attributes += AttributeHash(attr);
  Mix(hash, attributes);
  return hash;
}

namespace {

std::vector<const AttributeProto*> SortedAttributes(const NodeProto& node) {
  std::vector<const AttributeProto*> attributes;
  for (const AttributeProto& attr : node.attribute()) attributes.push_back(&attr);
  std::sort(attributes.begin(), attributes.end(),
            [](const AttributeProto* a, const AttributeProto* b) { return a->name() < b->name(); });
  return attributes;
}

// Attributes holding only names, numbers and strings are compared field by field; the
// others (tensors, graphs, types) through their serialization.
// Floats equal as attributes: the same bits, or both NaN. Not `==`: 0.0 and -0.0 compare
// equal but are different attributes (a Constant's 1 / -0.0 is -inf, a LeakyRelu's
// alpha -0.0 gives -0.0 for negative inputs).
bool SameFloat(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b) || (std::isnan(a) && std::isnan(b));
}

bool SameAttribute(const AttributeProto& a, const AttributeProto& b) {
  auto simple = [](const AttributeProto& attr) {
    return !attr.has_t() && !attr.has_g() && !attr.has_sparse_tensor() && !attr.has_tp() && attr.tensors_size() == 0 &&
           attr.graphs_size() == 0 && attr.sparse_tensors_size() == 0 && attr.type_protos_size() == 0 &&
           attr.unknown_fields().empty();
  };
  if (!simple(a) || !simple(b)) return ir::SerializeDeterministic(a) == ir::SerializeDeterministic(b);
  return a.name() == b.name() && a.type() == b.type() && a.ref_attr_name() == b.ref_attr_name() && a.i() == b.i() &&
         SameFloat(a.f(), b.f()) && a.s() == b.s() &&
         std::equal(a.ints().begin(), a.ints().end(), b.ints().begin(), b.ints().end()) &&
         std::equal(a.floats().begin(), a.floats().end(), b.floats().begin(), b.floats().end(), SameFloat) &&
         std::equal(a.strings().begin(), a.strings().end(), b.strings().begin(), b.strings().end());
}

}  // namespace

bool SameComputation(const NodeProto& a, const NodeProto& b) {
  if ((IsOnnxDomain(a.domain()) ? "" : a.domain()) != (IsOnnxDomain(b.domain()) ? "" : b.domain()) ||
      a.op_type() != b.op_type() || Overload(a) != Overload(b) || a.output_size() != b.output_size() ||
      !std::equal(a.input().begin(), a.input().end(), b.input().begin(), b.input().end()) ||
      a.attribute_size() != b.attribute_size())
    return false;
  const std::vector<const AttributeProto*> first = SortedAttributes(a), second = SortedAttributes(b);
  for (std::size_t i = 0; i < first.size(); ++i)
    if (!SameAttribute(*first[i], *second[i])) return false;
  return true;
}

namespace {

// Whether a node writes a graph output: its outputs cannot be redirected, so it is never
// merged away (it may still be the node others merge into).
bool WritesGraphOutput(const NodeProto& node, const NameSet& outputs) {
  return std::any_of(node.output().begin(), node.output().end(),
                     [&](const std::string& output) { return !output.empty() && outputs.contains(output); });
}

// Whether `kept` has every output `duplicate` has (an optional output may be left empty).
bool HasOutputsOf(const NodeProto& kept, const NodeProto& duplicate) {
  for (int i = 0; i < duplicate.output_size(); ++i)
    if (!duplicate.output(i).empty() && kept.output(i).empty()) return false;
  return true;
}

// The distinct computations met so far in a walk, grouped by ComputationHash: each group
// lists its nodes in the order they were added. Groups are chains through one vector (no
// allocation per node: the walk meets every node of a large graph at each cleanup).
class ComputationGroups {
 public:
  explicit ComputationGroups(std::size_t nodes) {
    groups_.reserve(nodes);
    members_.reserve(nodes);
  }

  // The first member of `node`'s group that computes the same and has every output `node`
  // has, else null.
  const NodeProto* FindKeeper(std::size_t hash, const NodeProto& node) const {
    const std::uint32_t group = groups_.find(hash);
    if (group == groups_.kNone) return nullptr;
    for (std::uint32_t member = ends_[group].first; member != kEnd; member = members_[member].next) {
      const NodeProto& kept = *members_[member].node;
      if (SameComputation(node, kept) && HasOutputsOf(kept, node)) return &kept;
    }
    return nullptr;
  }

  void Add(std::size_t hash, const NodeProto& node) {
    const auto [group, added] = groups_.insert(hash);
    const auto member = static_cast<std::uint32_t>(members_.size());
    members_.push_back(Member{&node, kEnd});
    if (added)
      ends_.emplace_back(member, member);
    else
      members_[std::exchange(ends_[group].second, member)].next = member;
  }

 private:
  static constexpr std::uint32_t kEnd = UINT32_MAX;
  struct Member {
    const NodeProto* node;
    std::uint32_t next;
  };
  utils::DenseIndex<std::size_t> groups_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ends_;  // first and last member of each group
  std::vector<Member> members_;
};

// Names looked up once per input of every node, viewed where they live (the caller's list
// and the outputs of nodes the walk keeps).
using ReadNames = utils::DenseIndex<std::string_view>;

bool ReadsOneOf(const NodeProto& node, const ReadNames& names) {
  return std::any_of(node.input().begin(), node.input().end(),
                     [&](const std::string& input) { return !input.empty() && names.contains(input); });
}

// With `changed_reads`, only the nodes that read one of these names, or an output merged
// into by this walk, are compared (see RemoveDuplicateNodesReading); the others are
// walked for the renames alone.
void RemoveDuplicatesInGraph(GraphBuilder& builder, ReadNames* changed_reads, CleanupResult& result) {
  const NameSet outputs = OutputNames(builder);
  ComputationGroups seen(changed_reads ? 0 : static_cast<std::size_t>(builder.Nodes().size()));
  NodeSet dead;
  RenameChain renames;
  for (NodeProto& node : builder.Nodes()) {
    // Nodes come in topological order, so redirecting inputs as we go lets the consumers
    // of merged nodes merge in the same walk.
    if (!renames.Empty())
      for (std::string& input : *node.mutable_input()) renames.Apply(input);
    if (changed_reads && !ReadsOneOf(node, *changed_reads)) continue;
    if (!IsMergeable(node)) continue;
    // A node that merges into none stays a keeper for later ones: no two nodes that could
    // merge are left (a proof the optimizer's cleanup after a batch relies on).
    const std::size_t hash = ComputationHash(node);
    const NodeProto* kept = seen.FindKeeper(hash, node);
    if (!kept || WritesGraphOutput(node, outputs)) {
      seen.Add(hash, node);
      continue;
    }
    for (int i = 0; i < node.output_size(); ++i) {
      if (node.output(i).empty()) continue;
      renames.Add(node.output(i), kept->output(i));
      if (changed_reads) changed_reads->insert(kept->output(i));
    }
    dead.insert(&node);
  }
  result.removed_nodes += RemoveNodes(builder, dead);
  CommitAfterRenamingInputs(builder, renames, result);
}

// --- Duplicate initializers ----------------------------------------------------------

// The tensor's bytes: a view of raw_data when present (no copy), else converted from the
// typed fields into `storage`. nullopt for strings and external data.
std::optional<std::string_view> TensorBytes(const TensorProto& tensor, std::deque<std::string>& storage) {
  if (ir::HasExternalData(tensor) || tensor.data_type() == TensorProto::STRING) return std::nullopt;
  if (tensor.has_raw_data()) return std::string_view(tensor.raw_data());
  std::optional<std::string> bytes = ir::RawBytes(tensor);
  if (!bytes) return std::nullopt;
  // A deque never moves its elements, so earlier views stay valid.
  return std::string_view(storage.emplace_back(std::move(*bytes)));
}

// The distinct byte strings met so far among initializers of one layout, each with the
// first tensor that holds it. Weights of one layout usually differ within their first
// bytes: they are told apart by a fingerprint of their ends, and only tensors with the same
// fingerprint are compared in full (hashing every weight whole at each cleanup cost more
// than the rest of the pass).
class DistinctBytes {
 public:
  // The first tensor added with these bytes; null (and `tensor` is added) if none.
  const TensorProto* FindOrAdd(std::string_view bytes, const TensorProto* tensor) {
    std::vector<Entry>& same_fingerprint = by_fingerprint_[Fingerprint(bytes)];
    for (const Entry& entry : same_fingerprint)
      if (entry.bytes == bytes) return entry.tensor;
    same_fingerprint.push_back(Entry{bytes, tensor});
    return nullptr;
  }

 private:
  struct Entry {
    std::string_view bytes;
    const TensorProto* tensor;
  };
  static std::size_t Fingerprint(std::string_view bytes) {
    constexpr std::size_t kEnd = 64;
    if (bytes.size() <= 2 * kEnd) return std::hash<std::string_view>{}(bytes);
    std::size_t hash = std::hash<std::string_view>{}(bytes.substr(0, kEnd));
    Mix(hash, std::hash<std::string_view>{}(bytes.substr(bytes.size() - kEnd)));
    Mix(hash, bytes.size());
    return hash;
  }
  std::unordered_map<std::size_t, std::vector<Entry>> by_fingerprint_;
};

// Initializers that could be equal: same element type and dims.
std::string LayoutKey(const TensorProto& tensor) {
  std::string key = std::to_string(tensor.data_type());
  for (std::int64_t dim : tensor.dims()) key += "," + std::to_string(dim);
  return key;
}

// Merges equal initializers into the first of them. With `recent`, only groups that hold
// one of these are compared (the others are known to be distinct): bytes are read only
// for groups of the same element type and dims, which spares hashing the weights again.
void RemoveDuplicateInitializersInGraph(GraphBuilder& builder, CleanupResult& result,
                                        const std::unordered_set<const TensorProto*>* recent) {
  const NameSet inputs = InputNames(builder);
  const NameSet outputs = OutputNames(builder);
  std::unordered_map<std::string, std::size_t> group_of;
  std::vector<std::vector<const TensorProto*>> groups;  // in order of first appearance
  std::vector<bool> touched;
  for (const TensorProto& tensor : builder.Initializers()) {
    // An initializer that is a graph input may be overridden: it is no constant.
    if (inputs.contains(tensor.name())) continue;
    if (ir::HasExternalData(tensor) || tensor.data_type() == TensorProto::STRING) continue;
    auto [it, inserted] = group_of.try_emplace(LayoutKey(tensor), groups.size());
    if (inserted) {
      groups.emplace_back();
      touched.push_back(recent == nullptr);
    }
    groups[it->second].push_back(&tensor);
    if (recent && recent->contains(&tensor)) touched[it->second] = true;
  }
  std::deque<std::string> converted;
  std::unordered_set<const TensorProto*> dead;
  RenameChain renames;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].size() < 2 || !touched[g]) continue;
    DistinctBytes distinct;
    for (const TensorProto* tensor : groups[g]) {
      const std::optional<std::string_view> bytes = TensorBytes(*tensor, converted);
      if (!bytes) continue;
      const TensorProto* same = distinct.FindOrAdd(*bytes, tensor);
      if (!same || outputs.contains(tensor->name())) continue;
      renames.Add(tensor->name(), same->name());
      dead.insert(tensor);
    }
  }
  if (!dead.empty())
    result.removed_initializers +=
        KeepIf(builder.Initializers(), [&](const TensorProto& tensor) { return !dead.contains(&tensor); });
  Commit(builder, renames, result);
}

// --- Unused local functions ------------------------------------------------------------

// Appends the functions that `nodes` and the graphs nested in them call.
void CollectCalls(const google::protobuf::RepeatedPtrField<NodeProto>& nodes, const ir::LocalFunctions& functions,
                  std::vector<const FunctionProto*>& calls) {
  for (const NodeProto& node : nodes) {
    if (const FunctionProto* callee = functions.Find(node)) calls.push_back(callee);
    ir::ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& graph) {
      CollectCalls(graph.node(), functions, calls);
    });
  }
}

}  // namespace

std::string CleanupResult::ToString() const {
  std::string text = pass + ": removed " + std::to_string(removed_nodes) + " nodes, " +
                     std::to_string(removed_initializers) + " initializers, " + std::to_string(renames.size()) +
                     " renames";
  if (!removed_functions.empty()) text += ", " + std::to_string(removed_functions.size()) + " local functions";
  return text;
}

CleanupResult RemoveUnusedFunctions(GraphBuilder& builder) {
  CleanupResult result;
  result.pass = "RemoveUnusedFunctions";
  if (!builder.IsRoot())
    throw BuilderError("RemoveUnusedFunctions: the builder of '" + builder.PathString() +
                       "' is nested; local functions belong to the model: call it on the root builder");
  const auto& functions = builder.Functions();
  if (functions.empty()) return result;
  const ir::LocalFunctions index(functions);
  std::unordered_map<const FunctionProto*, std::size_t> position;
  for (int i = 0; i < functions.size(); ++i) position.emplace(&functions.Get(i), static_cast<std::size_t>(i));
  std::vector<bool> called(position.size(), false);
  std::vector<const FunctionProto*> pending;
  CollectCalls(builder.Nodes(), index, pending);
  while (!pending.empty()) {
    const FunctionProto* function = pending.back();
    pending.pop_back();
    const std::size_t at = position.at(function);
    if (called[at]) continue;
    called[at] = true;
    CollectCalls(function->node(), index, pending);
  }
  for (std::size_t i = 0; i < called.size(); ++i)
    if (!called[i]) result.removed_functions.push_back(i);
  builder.RemoveFunctions(result.removed_functions, result.pass);
  return result;
}

bool IsPlainIdentity(const NodeProto& node) {
  return node.op_type() == "Identity" && IsOnnxDomain(node.domain()) && node.input_size() == 1 &&
         node.output_size() == 1 && !node.input(0).empty() && !node.output(0).empty() &&
         node.input(0) != node.output(0);
}

CleanupResult RemoveIdentityNodes(GraphBuilder& builder, CleanupScope scope) {
  return RunPass(kRemoveIdentityNodes, builder, scope, RemoveIdentitiesInGraph);
}

CleanupResult RemoveIdentityNodesAmong(GraphBuilder& builder, const std::vector<const NodeProto*>& identities,
                                       const std::function<const std::vector<NodeProto*>&(const std::string&)>& readers_of) {
  CleanupResult result;
  result.pass = kRemoveIdentityNodes;
  if (identities.empty()) return result;
  const NameSet outputs = OutputNames(builder);
  // As RemoveIdentitiesInGraph decides when no Identity writes a graph output.
  NodeSet dead;
  RenameChain renames;
  for (const NodeProto* node : identities) {
    if (!IsPlainIdentity(*node) || outputs.contains(node->output(0)))
      throw BuilderError("RemoveIdentityNodesAmong: " + node->op_type() + " '" + node->name() +
                         "' is no plain Identity or writes a graph output");
    renames.Add(node->output(0), renames.Resolve(node->input(0)));
    dead.insert(node);
  }
  const RenameMap& map = renames.Finish();
  for (const auto& [from, to] : map)
    for (NodeProto* reader : readers_of(from)) {
      if (dead.contains(reader)) continue;
      for (std::string& input : *reader->mutable_input())
        if (input == from) input = to;
    }
  ir::DropValueInfo(builder.Graph(), map);
  result.removed_nodes = RemoveNodes(builder, dead);
  renames.Record(builder, result);
  return result;
}

CleanupResult RemoveUnusedNodes(GraphBuilder& builder, CleanupScope scope) {
  return RunPass(kRemoveUnusedNodes, builder, scope, RemoveUnusedInGraph);
}

CleanupResult RemoveUnusedElements(GraphBuilder& builder, const std::function<bool(const NodeProto&)>& unused_node,
                                   const std::function<bool(const TensorProto&)>& unused_initializer) {
  CleanupResult result;
  result.pass = kRemoveUnusedNodes;
  // Initializers first, as RemoveUnusedInGraph: a caller may identify them by views into
  // names of the nodes it removes.
  result.removed_initializers =
      KeepIf(builder.Initializers(), [&](const TensorProto& init) { return !unused_initializer(init); });
  result.removed_nodes = KeepIf(builder.Nodes(), [&](const NodeProto& node) { return !unused_node(node); });
  return result;
}

constexpr const char* kRemoveDuplicateNodes = "RemoveDuplicateNodes";

CleanupResult RemoveDuplicateNodes(GraphBuilder& builder, CleanupScope scope) {
  return RunPass(kRemoveDuplicateNodes, builder, scope, [](GraphBuilder& graph, CleanupScope, CleanupResult& result) {
    RemoveDuplicatesInGraph(graph, nullptr, result);
  });
}

CleanupResult RemoveDuplicateNodesReading(GraphBuilder& builder, const std::vector<std::string>& redirected) {
  CleanupResult result;
  result.pass = kRemoveDuplicateNodes;
  if (redirected.empty()) return result;
  // Two nodes that compute the same now and did not before differ only in inputs that were
  // redirected: both read one of `redirected`, or an output this walk merges into (whose
  // readers it redirects). So do their duplicates and keepers, which read the same.
  ReadNames changed_reads;
  changed_reads.reserve(redirected.size());
  for (const std::string& name : redirected) changed_reads.insert(name);
  RemoveDuplicatesInGraph(builder, &changed_reads, result);
  return result;
}

CleanupResult RemoveDuplicateInitializers(GraphBuilder& builder, CleanupScope scope) {
  return RunPass("RemoveDuplicateInitializers", builder, scope,
                 [](GraphBuilder& graph, CleanupScope, CleanupResult& result) {
                   RemoveDuplicateInitializersInGraph(graph, result, nullptr);
                 });
}

CleanupResult RemoveDuplicateInitializers(GraphBuilder& builder, const std::vector<const TensorProto*>& recent) {
  CleanupResult result;
  result.pass = "RemoveDuplicateInitializers";
  const std::unordered_set<const TensorProto*> recent_set(recent.begin(), recent.end());
  RemoveDuplicateInitializersInGraph(builder, result, &recent_set);
  return result;
}

std::vector<CleanupResult> RunCleanupPasses(GraphBuilder& builder) {
  using PassFunction = CleanupResult (*)(GraphBuilder&, CleanupScope);
  constexpr PassFunction kPasses[] = {RemoveIdentityNodes, RemoveUnusedNodes, RemoveDuplicateNodes,
                              RemoveDuplicateInitializers};
  std::vector<CleanupResult> results;
  // Each effective round removes at least one node or initializer, so this ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (PassFunction pass : kPasses) {
      CleanupResult result = pass(builder, CleanupScope::kNestedGraphs);
      if (!result.Changed() && result.renames.empty()) continue;
      changed = changed || result.Changed();
      results.push_back(std::move(result));
    }
  }
  if (builder.IsRoot())
    if (CleanupResult result = RemoveUnusedFunctions(builder); result.Changed()) results.push_back(std::move(result));
  return results;
}

}  // namespace onnxopt::core::builder
