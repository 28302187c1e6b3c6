#include "onnx_core/ir/renames.h"

#include <algorithm>

#include "onnx_core/ir/graph_queries.h"

namespace onnxopt::core::ir {

namespace {

void Rename(std::string& name, const RenameMap& renames) {
  auto it = renames.find(name);
  if (it != renames.end()) name = it->second;
}

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

}  // namespace

void DropValueInfo(GraphProto& graph, const RenameMap& renames) {
  auto& infos = *graph.mutable_value_info();
  infos.erase(std::remove_if(infos.begin(), infos.end(),
                             [&](const ValueInfoProto& info) { return renames.contains(info.name()); }),
              infos.end());
}

void RenameReads(utils::RepeatedProtoField<NodeProto>& nodes, const RenameMap& renames) {
  for (NodeProto& node : nodes) {
    for (std::string& input : *node.mutable_input()) Rename(input, renames);
    ForEachMutableSubgraph(node, [&](GraphProto& nested) { RenameInNested(nested, renames); });
  }
}

void RenameReads(GraphProto& graph, const RenameMap& renames) {
  RenameReads(*graph.mutable_node(), renames);
  DropValueInfo(graph, renames);
}

}  // namespace onnxopt::core::ir
