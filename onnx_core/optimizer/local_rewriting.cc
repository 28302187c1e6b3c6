#include "onnx_core/optimizer/local_rewriting.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_core/ir/graph_queries.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/optimizer/rewrite_batches.h"

namespace onnxopt::core::builder {

namespace {

std::string PathString(const std::vector<SubgraphKey>& path) {
  std::string text;
  for (const SubgraphKey& key : path) text += (text.empty() ? "" : "/") + key.ToString();
  return text;
}

std::string Positions(const std::vector<std::size_t>& positions) {
  std::string text = "[";
  for (std::size_t i = 0; i < positions.size(); ++i) text += (i ? ", " : "") + std::to_string(positions[i]);
  return text + "]";
}

// The new order of a field: which old elements go, where the added ones land. Planned
// for both fields before either changes, so that an error leaves the graph as it was.
template <class T>
struct FieldPlan {
  std::vector<bool> is_removed;
  std::vector<T*> result;  // added elements in place, null slots for the survivors
};

template <class T>
FieldPlan<T> Plan(const utils::RepeatedProtoField<T>& field, const std::vector<std::size_t>& removed,
                  const std::vector<std::pair<std::size_t, T*>>& added, const char* what, const std::string& label) {
  const auto size = static_cast<std::size_t>(field.size());
  FieldPlan<T> plan;
  plan.is_removed.assign(size, false);
  for (std::size_t position : removed) {
    if (position >= size)
      throw BuilderError(label + ": removes the " + what + " at position " + std::to_string(position) +
                         " but the graph has " + std::to_string(size));
    if (plan.is_removed[position])
      throw BuilderError(label + ": removes the " + what + " at position " + std::to_string(position) + " twice");
    plan.is_removed[position] = true;
  }
  const std::size_t new_size = size - removed.size() + added.size();
  plan.result.assign(new_size, nullptr);
  for (const auto& [position, element] : added) {
    if (position >= new_size)
      throw BuilderError(label + ": adds a " + what + " at position " + std::to_string(position) + " but the graph has " +
                         std::to_string(new_size) + " after the batch");
    if (plan.result[position])
      throw BuilderError(label + ": adds two " + what + "s at position " + std::to_string(position));
    plan.result[position] = element;
  }
  return plan;
}

// Moves the surviving elements into the free slots, in order, and refills the field.
template <class T>
void Commit(utils::RepeatedProtoField<T>& field, FieldPlan<T>& plan) {
  const auto size = static_cast<std::size_t>(field.size());
  std::vector<T*> old(size);
  field.ExtractSubrange(0, static_cast<int>(size), old.data());
  std::size_t next = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (plan.is_removed[i]) {
      delete old[i];
      continue;
    }
    while (plan.result[next]) ++next;
    plan.result[next++] = old[i];
  }
  field.Reserve(static_cast<int>(plan.result.size()));
  for (T* element : plan.result) field.AddAllocated(element);
}

// The graphs that batches apply to, by path. Listing the nested graphs of each graph on
// the path for every batch (GraphBuilder::Subgraphs() indexes every name of the graph)
// made a replay over thousands of branches quadratic: each graph's nested graphs are
// listed once, and again only after a batch edited that graph or one around it.
class GraphsByPath {
 public:
  explicit GraphsByPath(GraphBuilder& root) : root_(root) {}

  GraphBuilder& Find(const std::vector<SubgraphKey>& path, const std::string& label) {
    if (path.empty()) return root_;
    if (auto it = found_.find(path); it != found_.end()) return *it->second;
    const std::vector<SubgraphKey> parent_path(path.begin(), path.end() - 1);
    GraphBuilder& parent = Find(parent_path, label);
    if (!listed_.insert(parent_path).second)  // listed already: the graph is not there
      throw BuilderError(label + ": no nested graph " + Quote(path.back().ToString()) + " in graph " +
                         Quote(parent.PathString()));
    for (GraphBuilder* nested : parent.Subgraphs()) found_.emplace(nested->Path(), nested);
    return Find(path, label);
  }

  // A batch edited the graph at `path`: the graphs nested in it may have gone.
  void Edited(const std::vector<SubgraphKey>& path) {
    auto under = [&](const std::vector<SubgraphKey>& key) {
      return key.size() >= path.size() && std::equal(path.begin(), path.end(), key.begin());
    };
    for (auto it = listed_.lower_bound(path); it != listed_.end() && under(*it);) it = listed_.erase(it);
    for (auto it = found_.upper_bound(path); it != found_.end() && under(it->first);) it = found_.erase(it);
  }

 private:
  GraphBuilder& root_;
  std::map<std::vector<SubgraphKey>, GraphBuilder*> found_;  // every graph listed so far
  std::set<std::vector<SubgraphKey>> listed_;                // graphs whose nested graphs are in found_
};

}  // namespace

BatchEdit::~BatchEdit() {
  for (auto& entry : added_nodes) delete entry.second;
  for (auto& entry : added_initializers) delete entry.second;
}

void ApplyBatch(GraphBuilder& builder, BatchEdit& edit) {
  FieldPlan<NodeProto> nodes = Plan(builder.Nodes(), edit.removed_nodes, edit.added_nodes, "node", edit.label);
  FieldPlan<TensorProto> initializers =
      Plan(builder.Initializers(), edit.removed_initializers, edit.added_initializers, "initializer", edit.label);
  // The plans own the added elements from here on.
  for (auto& entry : edit.added_nodes) entry.second = nullptr;
  for (auto& entry : edit.added_initializers) entry.second = nullptr;
  if (!edit.removed_nodes.empty() || !edit.added_nodes.empty()) Commit(builder.Nodes(), nodes);
  if (!edit.removed_initializers.empty() || !edit.added_initializers.empty()) Commit(builder.Initializers(), initializers);
}

std::string LocalRewriting::Name() const { return pattern ? pattern->Name() : "(unknown)"; }

std::string LocalRewriting::ToString() const {
  std::string text = Name() + " (batch " + std::to_string(iteration);
  if (!graph_path.empty()) text += ", graph " + PathString(graph_path);
  text += "): removes nodes " + Positions(matched_nodes) + ", adds " + std::to_string(added_nodes.size()) +
          " nodes at " + Positions(added_nodes_positions);
  if (!removed_initializers.empty()) text += ", removes initializers " + Positions(removed_initializers);
  if (!added_initializers.empty())
    text += ", adds " + std::to_string(added_initializers.size()) + " initializers at " +
            Positions(added_initializer_positions);
  if (!value_renames.empty()) text += ", " + std::to_string(value_renames.size()) + " renames";
  if (!removed_functions.empty()) text += ", removes local functions " + Positions(removed_functions);
  for (const FunctionProto& function : added_functions)
    text += ", adds local function " + Quote(function.domain() + "." + function.name());
  return text;
}

namespace {

// A tensor's name, type and shape without its data.
TensorProto TensorHeader(const TensorProto& tensor) {
  TensorProto header;
  header.set_name(tensor.name());
  header.set_data_type(tensor.data_type());
  *header.mutable_dims() = tensor.dims();
  return header;
}

// One batch: consecutive records with the same iteration and graph path.
struct Batch {
  std::size_t begin, end;  // record indices
  GraphBuilder* graph;
  std::string label;  // "Replay: batch 3 (record 7, 'CastCastPattern')"
  bool changes_functions = false;  // adds or removes local functions
};

// How a replay treats each batch: `before` sees the graph before the batch is applied,
// `after` after; added initializers are copied whole or as headers only (a skeleton).
struct BatchHooks {
  std::function<void(const Batch&)> before = [](const Batch&) {};
  std::function<void(const Batch&)> after = [](const Batch&) {};
  bool copy_initializer_data = true;
};

// The batch's changes to the model's local functions: removals (positions before the
// batch), then additions in record order, as Optimize made them. A function a record adds
// is new to the model: Optimize records only the first addition of a (domain, name).
void ReplayFunctions(const Batch& batch, const std::vector<LocalRewriting>& rewrites,
                     const std::vector<std::size_t>& removed) {
  GraphBuilder& graph = *batch.graph;
  graph.RemoveFunctions(removed, batch.label);
  for (std::size_t r = batch.begin; r < batch.end; ++r)
    for (const FunctionProto& function : rewrites[r].added_functions) {
      if (graph.FindFunction(function.domain(), function.name()))
        throw BuilderError(batch.label + ": record " + std::to_string(r) + " adds local function " +
                           Quote(function.domain() + "." + function.name()) + ", which the model already has");
      try {
        graph.GetOrAddFunction(function);
      } catch (const BuilderError& error) {
        throw BuilderError(batch.label + ": record " + std::to_string(r) + ": " + error.what());
      }
    }
}

void ReplayBatches(GraphBuilder& builder, const std::vector<LocalRewriting>& rewrites, const BatchHooks& hooks) {
  GraphsByPath graphs(builder);
  for (std::size_t begin = 0; begin < rewrites.size();) {
    const LocalRewriting& first = rewrites[begin];
    const std::size_t end = BatchEnd(rewrites, begin);
    BatchEdit edit;
    // The name comes from a rewrite file: quoted, so that no byte of it hides the message.
    edit.label = "Replay: batch " + std::to_string(first.iteration) + " (record " + std::to_string(begin) + ", " +
                 Quote(first.Name()) + ")";
    Batch batch{begin, end, &graphs.Find(first.graph_path, edit.label), edit.label};
    for (std::size_t r = begin; r < end; ++r)
      batch.changes_functions = batch.changes_functions || !rewrites[r].added_functions.empty() ||
                                !rewrites[r].removed_functions.empty();
    hooks.before(batch);
    std::unordered_map<std::string, std::string> renames;
    std::vector<std::size_t> removed_functions;
    for (std::size_t r = begin; r < end; ++r) {
      const LocalRewriting& record = rewrites[r];
      if (record.added_nodes_positions.size() != static_cast<std::size_t>(record.added_nodes.size()) ||
          record.added_initializer_positions.size() != static_cast<std::size_t>(record.added_initializers.size()))
        throw BuilderError("Replay: record " + std::to_string(r) + " (" + Quote(record.Name()) +
                           ") has a different number of added elements and positions");
      edit.removed_nodes.insert(edit.removed_nodes.end(), record.matched_nodes.begin(), record.matched_nodes.end());
      edit.removed_initializers.insert(edit.removed_initializers.end(), record.removed_initializers.begin(),
                                       record.removed_initializers.end());
      for (int i = 0; i < record.added_nodes.size(); ++i)
        edit.added_nodes.emplace_back(record.added_nodes_positions[i], new NodeProto(record.added_nodes.Get(i)));
      for (int i = 0; i < record.added_initializers.size(); ++i) {
        const TensorProto& tensor = record.added_initializers.Get(i);
        edit.added_initializers.emplace_back(record.added_initializer_positions[i],
                                             new TensorProto(hooks.copy_initializer_data ? tensor : TensorHeader(tensor)));
      }
      for (const auto& [from, to] : record.value_renames) renames.insert_or_assign(from, to);
      removed_functions.insert(removed_functions.end(), record.removed_functions.begin(),
                               record.removed_functions.end());
    }
    ApplyBatch(*batch.graph, edit);
    graphs.Edited(first.graph_path);
    if (!renames.empty()) batch.graph->RenameUses(renames);
    if (batch.changes_functions) ReplayFunctions(batch, rewrites, removed_functions);
    hooks.after(batch);
    begin = end;
  }
}

// Checks that the nodes a batch removes are those its records describe.
void CheckRemovedNodes(const Batch& batch, const std::vector<LocalRewriting>& rewrites) {
  const utils::RepeatedProtoField<NodeProto>& nodes = batch.graph->Nodes();
  for (std::size_t r = batch.begin; r < batch.end; ++r) {
    const LocalRewriting& record = rewrites[r];
    if (record.matched_node_signatures.empty()) continue;
    if (record.matched_node_signatures.size() != record.matched_nodes.size())
      throw BuilderError(batch.label + ": record " + std::to_string(r) + " describes " +
                         std::to_string(record.matched_node_signatures.size()) + " removed nodes but removes " +
                         std::to_string(record.matched_nodes.size()));
    for (std::size_t i = 0; i < record.matched_nodes.size(); ++i) {
      const std::size_t position = record.matched_nodes[i];
      if (position >= static_cast<std::size_t>(nodes.size())) continue;  // ApplyBatch reports it
      const NodeSignature found = NodeSignature::Of(nodes.Get(static_cast<int>(position)));
      if (found != record.matched_node_signatures[i])
        throw BuilderError(batch.label + ": record " + std::to_string(r) + " removes the node at position " +
                           std::to_string(position) + ", recorded as " + record.matched_node_signatures[i].ToString() +
                           ", but the graph has " + found.ToString() + " there");
    }
  }
}

// The first tensor `record` adds (initializers, nodes, functions) whose data is in an
// external file, or null.
const TensorProto* FindExternalTensor(const LocalRewriting& record) {
  for (const TensorProto& tensor : record.added_initializers)
    if (ir::HasExternalData(tensor)) return &tensor;
  for (const NodeProto& node : record.added_nodes)
    if (const TensorProto* found = ir::FindExternalTensor(node)) return found;
  for (const FunctionProto& function : record.added_functions)
    for (const NodeProto& node : function.node())
      if (const TensorProto* found = ir::FindExternalTensor(node)) return found;
  return nullptr;
}

// Optimize rewrites a model whose external data was loaded, so no tensor a record adds
// refers to a file. A record that adds one was made by hand or is hostile: replaying it
// would write a model that points at a file of the record's choosing.
void CheckNoExternalData(const Batch& batch, const std::vector<LocalRewriting>& rewrites) {
  for (std::size_t r = batch.begin; r < batch.end; ++r) {
    const TensorProto* external = FindExternalTensor(rewrites[r]);
    if (!external) continue;
    std::string location;
    for (const onnx::StringStringEntryProto& entry : external->external_data())
      if (entry.key() == "location") location = entry.value();
    throw BuilderError(batch.label + ": record " + std::to_string(r) + " adds tensor " + Quote(external->name()) +
                       " with its data in external file " + Quote(location) +
                       ": a rewrite record holds the data of the tensors it adds (the file was edited)");
  }
}

// The checks of loading, on the model a root builder holds after a batch. A batch in the
// main graph, or one that changes the local functions, has the whole model checked: the
// graph is moved into a model beside copies of the opset imports and functions, and back.
// A batch in a nested graph has that graph checked where it sits (NestedGraphChecker):
// checking the whole model after each batch of each branch was quadratic in the branches.
class BatchChecker {
 public:
  explicit BatchChecker(GraphBuilder& root) : root_(root), model_(WithFunctionsOf(root)), nested_(model_) {}

  void Check(const Batch& batch) {
    std::optional<std::string> problem;
    try {
      *model_.mutable_opset_import() = root_.OpsetImports();
      if (batch.changes_functions) {
        *model_.mutable_functions() = root_.Functions();
        nested_.Clear();
      }
      if (batch.changes_functions || !CheckNested(*batch.graph)) CheckWhole();
    } catch (const ModelError& error) {
      problem = error.what();
    }
    if (problem) throw BuilderError(batch.label + ": after the batch, the model is invalid: " + *problem);
  }

 private:
  void CheckWhole() {
    nested_.Clear();
    // The root's graph, lent to model_ while it is checked.
    struct Lent {
      GraphProto& to;
      GraphProto& from;
      Lent(GraphProto& to, GraphProto& from) : to(to), from(from) { to.Swap(&from); }
      ~Lent() { to.Swap(&from); }
    } lent(*model_.mutable_graph(), root_.Graph());
    ir::CheckModel(model_);
  }

  // Checks `graph`, a nested graph the batch changed, against the graphs around it. False
  // for the main graph, or when the graphs around it cannot be followed down to it.
  bool CheckNested(GraphBuilder& graph) {
    if (graph.IsRoot()) return false;
    nested_.Forget(&graph.Graph());
    std::vector<ir::NestedGraphChecker::Level> around;
    for (const GraphBuilder* inner = &graph; inner->Parent(); inner = inner->Parent())
      around.push_back({&inner->Parent()->Graph(), inner->Path().back().node_output});
    std::reverse(around.begin(), around.end());
    return nested_.Check(around, graph.Graph());
  }

  static ModelProto WithFunctionsOf(const GraphBuilder& root) {
    ModelProto model;
    *model.mutable_functions() = root.Functions();
    return model;
  }

  GraphBuilder& root_;
  ModelProto model_;  // the opset imports and functions of the model; the graph while checked
  ir::NestedGraphChecker nested_;
};

}  // namespace

NodeSignature NodeSignature::Of(const NodeProto& node) {
  return {node.op_type(), node.domain(), {node.output().begin(), node.output().end()}};
}

std::string NodeSignature::ToString() const {
  std::string text = (ir::IsOnnxDomain(domain) ? "" : domain + ".") + op_type + " (outputs ";
  for (std::size_t i = 0; i < outputs.size(); ++i) text += (i ? ", " : "") + Quote(outputs[i]);
  return text + (outputs.empty() ? "none)" : ")");
}

void Replay(GraphBuilder& builder, const std::vector<LocalRewriting>& rewrites) {
  std::optional<BatchChecker> checker;
  if (builder.IsRoot()) checker.emplace(builder);
  BatchHooks hooks;
  hooks.before = [&](const Batch& batch) {
    CheckRemovedNodes(batch, rewrites);
    CheckNoExternalData(batch, rewrites);
  };
  hooks.after = [&](const Batch& batch) {
    if (checker) checker->Check(batch);
  };
  ReplayBatches(builder, rewrites, hooks);
  // As Optimize does: rewrites may introduce operators of a domain not imported yet.
  if (builder.IsRoot()) builder.ImportUsedDomains();
}

ModelProto ReplaySkeleton(const ModelProto& model) {
  ModelProto skeleton;
  *skeleton.mutable_opset_import() = model.opset_import();
  *skeleton.mutable_functions() = model.functions();
  const GraphProto& graph = model.graph();
  GraphProto& copy = *skeleton.mutable_graph();
  copy.set_name(graph.name());
  *copy.mutable_node() = graph.node();
  *copy.mutable_input() = graph.input();
  *copy.mutable_output() = graph.output();
  for (const TensorProto& tensor : graph.initializer()) *copy.add_initializer() = TensorHeader(tensor);
  *copy.mutable_sparse_initializer() = graph.sparse_initializer();
  return skeleton;
}

void DescribeRemovedNodes(ModelProto skeleton, std::vector<LocalRewriting>& rewrites) {
  GraphBuilder builder(std::move(skeleton));
  BatchHooks hooks;
  hooks.copy_initializer_data = false;
  hooks.before = [&](const Batch& batch) {
    const utils::RepeatedProtoField<NodeProto>& nodes = batch.graph->Nodes();
    for (std::size_t r = batch.begin; r < batch.end; ++r) {
      LocalRewriting& record = rewrites[r];
      record.matched_node_signatures.clear();
      for (std::size_t position : record.matched_nodes) {
        if (position >= static_cast<std::size_t>(nodes.size())) break;  // ApplyBatch reports it
        record.matched_node_signatures.push_back(NodeSignature::Of(nodes.Get(static_cast<int>(position))));
      }
    }
  };
  ReplayBatches(builder, rewrites, hooks);
}

GraphProto Replay(const ModelProto& model, const std::vector<LocalRewriting>& rewrites) {
  GraphBuilder builder{ModelProto(model)};
  Replay(builder, rewrites);
  ModelProto replayed = std::move(builder).TakeModel();
  GraphProto graph;
  graph.Swap(replayed.mutable_graph());
  return graph;
}

}  // namespace onnxopt::core::builder
