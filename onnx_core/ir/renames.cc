#include "onnx_core/ir/renames.h"

#include <algorithm>
#include <cstdint>

#include "onnx_core/ir/graph_queries.h"

namespace onnxopt::core::ir {

namespace {

void Rename(std::string& name, const RenameMap& renames) {
  auto it = renames.find(name);
  if (it != renames.end()) name = it->second;
}

// The renames, looked up for every input of every node of a graph: a read whose length
// (modulo 64) no renamed name has, most reads when few names are renamed, is passed over
// without hashing it (a cleanup renames a few names per round and walks the whole graph).
class RenameFilter {
 public:
  explicit RenameFilter(const RenameMap& renames) : renames_(renames) {
    for (const auto& entry : renames) lengths_ |= Bit(entry.first);
  }
  void Apply(std::string& name) const {
    if (lengths_ & Bit(name)) Rename(name, renames_);
  }
  bool Contains(const std::string& name) const { return (lengths_ & Bit(name)) && renames_.contains(name); }

 private:
  static std::uint64_t Bit(const std::string& name) { return std::uint64_t{1} << (name.size() % 64); }
  const RenameMap& renames_;
  std::uint64_t lengths_ = 0;
};

// A nested graph's outputs that name an outer value read it, so they follow the rename.
void RenameInNested(GraphProto& graph, const RenameMap& renames) {
  RenameMap filtered;
  bool shadows = false;
  ForEachDefinition(graph, [&](const std::string& name) {
    if (!renames.contains(name)) return;
    if (!shadows) filtered = renames;
    shadows = true;
    filtered.erase(name);
  });
  const RenameMap& effective = shadows ? filtered : renames;
  if (effective.empty()) return;
  RenameReads(graph, effective);
  for (ValueInfoProto& output : *graph.mutable_output()) Rename(*output.mutable_name(), effective);
}

void RenameInNode(NodeProto& node, const RenameFilter& filter, const RenameMap& renames) {
  for (std::string& input : *node.mutable_input()) filter.Apply(input);
  ForEachMutableSubgraph(node, [&](GraphProto& nested) { RenameInNested(nested, renames); });
}

}  // namespace

void DropValueInfo(GraphProto& graph, const RenameMap& renames) {
  const RenameFilter filter(renames);
  auto& infos = *graph.mutable_value_info();
  infos.erase(std::remove_if(infos.begin(), infos.end(),
                             [&](const ValueInfoProto& info) { return filter.Contains(info.name()); }),
              infos.end());
}

void RenameReads(utils::RepeatedProtoField<NodeProto>& nodes, const RenameMap& renames) {
  const RenameFilter filter(renames);
  for (NodeProto& node : nodes) RenameInNode(node, filter, renames);
}

void RenameReads(NodeProto& node, const RenameMap& renames) { RenameInNode(node, RenameFilter(renames), renames); }

void RenameReads(GraphProto& graph, const RenameMap& renames) {
  RenameReads(*graph.mutable_node(), renames);
  DropValueInfo(graph, renames);
}

}  // namespace onnxopt::core::ir
