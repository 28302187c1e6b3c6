#include "onnx_core/builder/cleanup.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

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
    order_.push_back(from);
    map_[from] = to;
  }

  std::string Resolve(const std::string& name) const {
    const std::string* current = &name;
    for (auto it = map_.find(*current); it != map_.end(); it = map_.find(*current)) current = &it->second;
    return *current;
  }

  void Apply(std::string& name) const {
    if (map_.contains(name)) name = Resolve(name);
  }

  // Each source mapped straight to its final name, so the map can be applied in one walk.
  RenameMap Final() const {
    RenameMap final;
    for (const auto& [from, to] : map_) final.emplace(from, Resolve(to));
    return final;
  }

  void Record(const GraphBuilder& builder, const RenameMap& final, CleanupResult& result) const {
    for (const std::string& from : order_)
      result.renames.push_back(ValueRename{builder.PathString(), from, final.at(from)});
  }

 private:
  RenameMap map_;
  std::vector<std::string> order_;
};

// Applies the pass's renames to the graph and its nested graphs, and records them.
void Commit(GraphBuilder& builder, const RenameChain& renames, CleanupResult& result) {
  const RenameMap final = renames.Final();
  builder.RenameUses(final);
  renames.Record(builder, final, result);
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

std::size_t RemoveNodes(GraphBuilder& builder, const std::unordered_set<const NodeProto*>& dead) {
  if (dead.empty()) return 0;
  return KeepIf(builder.Nodes(), [&](const NodeProto& node) { return !dead.contains(&node); });
}

// Runs `pass` on the graphs nested in `builder` (innermost first), then on `builder`:
// cleaning a nested graph first may drop its reads of outer values, which the enclosing
// graph then no longer keeps alive.
void Recurse(GraphBuilder& builder, CleanupResult& result,
             const std::function<void(GraphBuilder&, CleanupResult&)>& pass) {
  for (GraphBuilder* nested : builder.Subgraphs()) Recurse(*nested, result, pass);
  pass(builder, result);
}

CleanupResult RunPass(std::string name, GraphBuilder& builder,
                      const std::function<void(GraphBuilder&, CleanupResult&)>& pass) {
  CleanupResult result;
  result.pass = std::move(name);
  Recurse(builder, result, pass);
  return result;
}

// --- Identity ------------------------------------------------------------------------

bool IsPlainIdentity(const NodeProto& node) {
  return node.op_type() == "Identity" && IsOnnxDomain(node.domain()) && node.input_size() == 1 &&
         node.output_size() == 1 && !node.input(0).empty() && !node.output(0).empty() &&
         node.input(0) != node.output(0);
}

struct Slot {
  NodeProto* node;
  int output;
};

void RemoveIdentitiesInGraph(GraphBuilder& builder, CleanupResult& result) {
  const NameSet outputs = OutputNames(builder);
  std::unordered_map<std::string, Slot> producers;  // outputs of the nodes seen so far
  std::unordered_set<const NodeProto*> dead;
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
      if (producer != producers.end() && !outputs.contains(x)) {
        Slot slot = producer->second;
        slot.node->set_output(slot.output, y);
        producers.erase(producer);
        producers.emplace(y, slot);
        renames.Add(x, y);
        dead.insert(&node);
        continue;
      }
    }
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty()) producers.emplace(node.output(i), Slot{&node, i});
  }
  result.removed_nodes += RemoveNodes(builder, dead);
  Commit(builder, renames, result);
}

// --- Unused nodes --------------------------------------------------------------------

void RemoveUnusedInGraph(GraphBuilder& builder, CleanupResult& result) {
  NameSet live = OutputNames(builder);
  std::unordered_set<const NodeProto*> dead;
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
    for (const std::string& name : SubgraphReads(node)) live.insert(name);
  }
  result.removed_nodes += RemoveNodes(builder, dead);

  // An initializer that is also a graph input is a default the caller may override:
  // part of the interface, kept even when unused.
  const NameSet inputs = InputNames(builder);
  auto needed = [&](const std::string& name) { return live.contains(name) || inputs.contains(name); };
  result.removed_initializers +=
      KeepIf(builder.Initializers(), [&](const TensorProto& init) { return needed(init.name()); });
  result.removed_initializers += KeepIf(*builder.Graph().mutable_sparse_initializer(),
                                        [&](const SparseTensorProto& init) { return needed(init.values().name()); });
}

// --- Duplicate nodes -----------------------------------------------------------------

// Operators whose outputs may differ between two evaluations with the same inputs.
// Dropout is deterministic in inference mode only; whether training_mode is false is not
// always known statically, so it is never merged.
bool IsNondeterministic(std::string_view op_type) {
  static const std::unordered_set<std::string_view> kOps = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  return kOps.contains(op_type);
}

// Custom domains are excluded: their operators may have side effects or randomness we
// know nothing about. Graph attributes are excluded: comparing bodies is not worth it.
bool IsMergeable(const NodeProto& node) {
  return IsOnnxDomain(node.domain()) && !IsNondeterministic(node.op_type()) && node.output_size() > 0 &&
         !HasSubgraph(node);
}

void AppendField(std::string& key, std::string_view field) {
  key += std::to_string(field.size());
  key += ':';
  key += field;
}

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

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

// Everything that determines what a node computes; names, doc strings and metadata do not.
std::string ComputationKey(const NodeProto& node) {
  std::string key;
  AppendField(key, IsOnnxDomain(node.domain()) ? "" : node.domain());
  AppendField(key, node.op_type());
  AppendField(key, Overload(node));
  AppendField(key, std::to_string(node.input_size()));
  for (const std::string& input : node.input()) AppendField(key, input);
  AppendField(key, std::to_string(node.output_size()));
  std::vector<const AttributeProto*> attributes;
  for (const AttributeProto& attr : node.attribute()) attributes.push_back(&attr);
  std::sort(attributes.begin(), attributes.end(),
            [](const AttributeProto* a, const AttributeProto* b) { return a->name() < b->name(); });
  for (const AttributeProto* attr : attributes) AppendField(key, DeterministicBytes(*attr));
  return key;
}

// Whether every output of `duplicate` can be redirected to the same output of `kept`.
bool CanMerge(const NodeProto& duplicate, const NodeProto& kept, const NameSet& outputs) {
  for (int i = 0; i < duplicate.output_size(); ++i) {
    const std::string& output = duplicate.output(i);
    if (output.empty()) continue;
    if (outputs.contains(output) || kept.output(i).empty()) return false;
  }
  return true;
}

void RemoveDuplicatesInGraph(GraphBuilder& builder, CleanupResult& result) {
  const NameSet outputs = OutputNames(builder);
  // Keys can hold large constant attributes: only their hashes are stored.
  std::unordered_map<std::size_t, std::vector<const NodeProto*>> seen;
  std::unordered_set<const NodeProto*> dead;
  RenameChain renames;
  for (NodeProto& node : builder.Nodes()) {
    // Nodes come in topological order, so redirecting inputs as we go lets the consumers
    // of merged nodes merge in the same walk.
    for (std::string& input : *node.mutable_input()) renames.Apply(input);
    if (!IsMergeable(node)) continue;
    const std::string key = ComputationKey(node);
    std::vector<const NodeProto*>& bucket = seen[std::hash<std::string>{}(key)];
    auto same = std::find_if(bucket.begin(), bucket.end(),
                             [&](const NodeProto* other) { return ComputationKey(*other) == key; });
    if (same == bucket.end()) {
      bucket.push_back(&node);
      continue;
    }
    if (!CanMerge(node, **same, outputs)) continue;
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty()) renames.Add(node.output(i), (*same)->output(i));
    dead.insert(&node);
  }
  result.removed_nodes += RemoveNodes(builder, dead);
  Commit(builder, renames, result);
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

struct InitializerContent {
  const TensorProto* tensor;
  std::string_view bytes;

  bool operator==(const InitializerContent& other) const {
    return tensor->data_type() == other.tensor->data_type() &&
           std::equal(tensor->dims().begin(), tensor->dims().end(), other.tensor->dims().begin(),
                      other.tensor->dims().end()) &&
           bytes == other.bytes;
  }

  std::size_t Hash() const {
    std::size_t hash = std::hash<std::string_view>{}(bytes);
    auto mix = [&](std::int64_t value) { hash = hash * 1000003u ^ std::hash<std::int64_t>{}(value); };
    mix(tensor->data_type());
    for (std::int64_t dim : tensor->dims()) mix(dim);
    return hash;
  }
};

void RemoveDuplicateInitializersInGraph(GraphBuilder& builder, CleanupResult& result) {
  const NameSet inputs = InputNames(builder);
  const NameSet outputs = OutputNames(builder);
  std::deque<std::string> converted;
  std::unordered_map<std::size_t, std::vector<InitializerContent>> seen;
  std::unordered_set<const TensorProto*> dead;
  RenameChain renames;
  for (const TensorProto& tensor : builder.Initializers()) {
    // An initializer that is a graph input may be overridden: it is no constant.
    if (inputs.contains(tensor.name())) continue;
    const std::optional<std::string_view> bytes = TensorBytes(tensor, converted);
    if (!bytes) continue;
    const InitializerContent content{&tensor, *bytes};
    std::vector<InitializerContent>& bucket = seen[content.Hash()];
    auto same = std::find(bucket.begin(), bucket.end(), content);
    if (same == bucket.end()) {
      bucket.push_back(content);
      continue;
    }
    if (outputs.contains(tensor.name())) continue;
    renames.Add(tensor.name(), same->tensor->name());
    dead.insert(&tensor);
  }
  if (!dead.empty())
    result.removed_initializers +=
        KeepIf(builder.Initializers(), [&](const TensorProto& tensor) { return !dead.contains(&tensor); });
  Commit(builder, renames, result);
}

}  // namespace

std::string CleanupResult::ToString() const {
  return pass + ": removed " + std::to_string(removed_nodes) + " nodes, " + std::to_string(removed_initializers) +
         " initializers, " + std::to_string(renames.size()) + " renames";
}

CleanupResult RemoveIdentityNodes(GraphBuilder& builder) {
  return RunPass("RemoveIdentityNodes", builder, RemoveIdentitiesInGraph);
}

CleanupResult RemoveUnusedNodes(GraphBuilder& builder) {
  return RunPass("RemoveUnusedNodes", builder, RemoveUnusedInGraph);
}

CleanupResult RemoveDuplicateNodes(GraphBuilder& builder) {
  return RunPass("RemoveDuplicateNodes", builder, RemoveDuplicatesInGraph);
}

CleanupResult RemoveDuplicateInitializers(GraphBuilder& builder) {
  return RunPass("RemoveDuplicateInitializers", builder, RemoveDuplicateInitializersInGraph);
}

std::vector<CleanupResult> RunCleanupPasses(GraphBuilder& builder) {
  using Pass = CleanupResult (*)(GraphBuilder&);
  constexpr Pass kPasses[] = {RemoveIdentityNodes, RemoveUnusedNodes, RemoveDuplicateNodes,
                              RemoveDuplicateInitializers};
  std::vector<CleanupResult> results;
  // Each effective round removes at least one node or initializer, so this ends.
  for (bool changed = true; changed;) {
    changed = false;
    for (Pass pass : kPasses) {
      CleanupResult result = pass(builder);
      if (!result.Changed() && result.renames.empty()) continue;
      changed = changed || result.Changed();
      results.push_back(std::move(result));
    }
  }
  return results;
}

}  // namespace onnxopt::core::builder
