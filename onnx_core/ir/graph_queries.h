#pragma once
// Queries about a graph's structure that every layer needs: the default domain, the graphs
// a node holds, and the values those graphs read from enclosing scopes.

#include <set>
#include <string>
#include <string_view>
#include <unordered_set>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::core::ir {

// Whether `domain` names the default ONNX operator set ("" or "ai.onnx").
bool IsOnnxDomain(std::string_view domain);

// Whether a node holds a graph (attribute of type GRAPH or GRAPHS).
bool HasSubgraph(const NodeProto& node);

// Calls f(attribute name, index, graph) for every graph held by `node`; index is -1 for
// a GRAPH attribute and the position in the list for GRAPHS.
template <class F>
void ForEachSubgraph(const NodeProto& node, F&& f) {
  for (const AttributeProto& attr : node.attribute()) {
    if (attr.has_g()) f(attr.name(), -1, attr.g());
    for (int i = 0; i < attr.graphs_size(); ++i) f(attr.name(), i, attr.graphs(i));
  }
}

// The first tensor `node` holds whose data lives in an external file (data_location
// EXTERNAL): in its attributes (sparse tensors included) or, at any depth, in the
// initializers and nodes of the graphs it holds. nullptr when there is none.
const TensorProto* FindExternalTensor(const NodeProto& node);
// The same for a graph's initializers and nodes.
const TensorProto* FindExternalTensor(const GraphProto& graph);

// Calls f(name) for every value defined in `graph` itself (not in nested graphs).
template <class F>
void ForEachDefinition(const GraphProto& graph, F&& f) {
  for (const ValueInfoProto& input : graph.input()) f(input.name());
  for (const TensorProto& init : graph.initializer()) f(init.name());
  for (const SparseTensorProto& init : graph.sparse_initializer()) f(init.values().name());
  for (const NodeProto& node : graph.node())
    for (const std::string& output : node.output())
      if (!output.empty()) f(output);
}

// Names defined in the graphs nested (at any depth) in the nodes of `graph`. IR.md lets
// a nested graph define a name that its enclosing graph defines at or after the node
// holding it (such names are not visible in it yet): a pass that moves a definition
// earlier, or turns it into an initializer, must not do it for these names.
std::unordered_set<std::string> NestedDefinitions(const GraphProto& graph);

// Names `graph` and its nested graphs read without defining them: its free variables.
std::set<std::string> FreeReads(const GraphProto& graph);

// Values that the graphs held by `node` (and the graphs nested in them) read from
// enclosing scopes.
std::set<std::string> SubgraphReads(const NodeProto& node);

}  // namespace onnxopt::core::ir
