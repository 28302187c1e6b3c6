#include "onnx_core/optimizer/local_rewriting.h"

#include <algorithm>
#include <unordered_map>

#include "onnx_core/common/error.h"

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

GraphBuilder& FindGraph(GraphBuilder& root, const std::vector<SubgraphKey>& path, const std::string& label) {
  GraphBuilder* current = &root;
  for (const SubgraphKey& key : path) {
    GraphBuilder* next = nullptr;
    for (GraphBuilder* nested : current->Subgraphs())
      if (nested->Path().back() == key) next = nested;
    if (!next)
      throw BuilderError(label + ": no nested graph " + key.ToString() + " in graph '" + current->PathString() + "'");
    current = next;
  }
  return *current;
}

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
  return text;
}

void Replay(GraphBuilder& builder, const std::vector<LocalRewriting>& rewrites) {
  for (std::size_t begin = 0; begin < rewrites.size();) {
    const LocalRewriting& first = rewrites[begin];
    std::size_t end = begin + 1;
    while (end < rewrites.size() && rewrites[end].iteration == first.iteration &&
           rewrites[end].graph_path == first.graph_path)
      ++end;
    BatchEdit edit;
    edit.label = "Replay: batch " + std::to_string(first.iteration) + " (record " + std::to_string(begin) + ", " +
                 first.Name() + ")";
    GraphBuilder& graph = FindGraph(builder, first.graph_path, edit.label);
    std::unordered_map<std::string, std::string> renames;
    for (std::size_t r = begin; r < end; ++r) {
      const LocalRewriting& record = rewrites[r];
      if (record.added_nodes_positions.size() != static_cast<std::size_t>(record.added_nodes.size()) ||
          record.added_initializer_positions.size() != static_cast<std::size_t>(record.added_initializers.size()))
        throw BuilderError("Replay: record " + std::to_string(r) + " (" + record.Name() +
                           ") has a different number of added elements and positions");
      edit.removed_nodes.insert(edit.removed_nodes.end(), record.matched_nodes.begin(), record.matched_nodes.end());
      edit.removed_initializers.insert(edit.removed_initializers.end(), record.removed_initializers.begin(),
                                       record.removed_initializers.end());
      for (int i = 0; i < record.added_nodes.size(); ++i)
        edit.added_nodes.emplace_back(record.added_nodes_positions[i], new NodeProto(record.added_nodes.Get(i)));
      for (int i = 0; i < record.added_initializers.size(); ++i)
        edit.added_initializers.emplace_back(record.added_initializer_positions[i],
                                             new TensorProto(record.added_initializers.Get(i)));
      for (const auto& [from, to] : record.value_renames) renames.insert_or_assign(from, to);
    }
    ApplyBatch(graph, edit);
    if (!renames.empty()) graph.RenameUses(renames);
    begin = end;
  }
  // As Optimize does: rewrites may introduce operators of a domain not imported yet.
  if (builder.IsRoot()) builder.ImportUsedDomains();
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
