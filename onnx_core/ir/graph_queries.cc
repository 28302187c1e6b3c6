#include "onnx_core/ir/graph_queries.h"

#include <algorithm>
#include <unordered_set>

#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::ir {

bool IsOnnxDomain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

bool HasSubgraph(const NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(),
                     [](const AttributeProto& attr) { return attr.has_g() || attr.graphs_size() > 0; });
}

namespace {

const TensorProto* ExternalIn(const TensorProto& tensor) { return HasExternalData(tensor) ? &tensor : nullptr; }

const TensorProto* ExternalIn(const SparseTensorProto& sparse) {
  if (const TensorProto* found = ExternalIn(sparse.values())) return found;
  return ExternalIn(sparse.indices());
}

}  // namespace

const TensorProto* FindExternalTensor(const NodeProto& node) {
  for (const AttributeProto& attribute : node.attribute()) {
    if (attribute.has_t())
      if (const TensorProto* found = ExternalIn(attribute.t())) return found;
    for (const TensorProto& tensor : attribute.tensors())
      if (const TensorProto* found = ExternalIn(tensor)) return found;
    if (attribute.has_sparse_tensor())
      if (const TensorProto* found = ExternalIn(attribute.sparse_tensor())) return found;
    for (const SparseTensorProto& sparse : attribute.sparse_tensors())
      if (const TensorProto* found = ExternalIn(sparse)) return found;
    if (attribute.has_g())
      if (const TensorProto* found = FindExternalTensor(attribute.g())) return found;
    for (const GraphProto& graph : attribute.graphs())
      if (const TensorProto* found = FindExternalTensor(graph)) return found;
  }
  return nullptr;
}

const TensorProto* FindExternalTensor(const GraphProto& graph) {
  for (const TensorProto& tensor : graph.initializer())
    if (const TensorProto* found = ExternalIn(tensor)) return found;
  for (const SparseTensorProto& sparse : graph.sparse_initializer())
    if (const TensorProto* found = ExternalIn(sparse)) return found;
  for (const NodeProto& node : graph.node())
    if (const TensorProto* found = FindExternalTensor(node)) return found;
  return nullptr;
}

std::unordered_set<std::string> NestedDefinitions(const GraphProto& graph) {
  std::unordered_set<std::string> names;
  for (const NodeProto& node : graph.node()) {
    ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& nested) {
      ForEachDefinition(nested, [&](const std::string& name) { names.insert(name); });
      names.merge(NestedDefinitions(nested));
    });
  }
  return names;
}

std::set<std::string> FreeReads(const GraphProto& graph) {
  std::unordered_set<std::string_view> defined;
  ForEachDefinition(graph, [&](const std::string& name) { defined.insert(name); });
  std::set<std::string> reads;
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.contains(name)) reads.insert(name);
  };
  for (const NodeProto& node : graph.node()) {
    for (const std::string& input : node.input()) read(input);
    for (const std::string& name : SubgraphReads(node)) read(name);
  }
  for (const ValueInfoProto& output : graph.output()) read(output.name());
  return reads;
}

std::set<std::string> SubgraphReads(const NodeProto& node) {
  std::set<std::string> reads;
  ForEachSubgraph(node, [&](const std::string&, int, const GraphProto& graph) { reads.merge(FreeReads(graph)); });
  return reads;
}

}  // namespace onnxopt::core::ir
