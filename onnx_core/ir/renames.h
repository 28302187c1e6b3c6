#pragma once
// Renaming the reads of values: one walk shared by the builder (GraphBuilder::RenameUses),
// the patterns that move nodes between graphs and the edits of function bodies.

#include <string>
#include <unordered_map>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/utils/repeated_proto_field.h"

namespace onnxopt::core::ir {

using RenameMap = std::unordered_map<std::string, std::string>;

// Calls f(graph) for every graph held by `node` (GRAPH and GRAPHS attributes).
template <class F>
void ForEachMutableSubgraph(NodeProto& node, F&& f) {
  for (AttributeProto& attr : *node.mutable_attribute()) {
    if (attr.has_g()) f(*attr.mutable_g());
    for (GraphProto& graph : *attr.mutable_graphs()) f(graph);
  }
}

// Renames every read of a key of `renames` in `nodes`: their inputs, and in the graphs
// nested in them the node inputs and the graph outputs that name the outer value (their
// value_info entries for it are dropped). A nested graph that defines a renamed name
// itself (shadowing, invalid but possible in an unchecked model) keeps its own meaning of
// that name. Definitions (node outputs) in `nodes` are not touched.
void RenameReads(utils::RepeatedProtoField<NodeProto>& nodes, const RenameMap& renames);
// The same for one node.
void RenameReads(NodeProto& node, const RenameMap& renames);

// RenameReads on the nodes of `graph`, and its value_info entries for a renamed name
// dropped. The graph's own inputs, outputs and initializers are its interface and stay.
void RenameReads(GraphProto& graph, const RenameMap& renames);

// Drops `graph`'s value_info entries of the renamed names (RenameReads does it): one would
// describe a value the graph no longer reads.
void DropValueInfo(GraphProto& graph, const RenameMap& renames);

}  // namespace onnxopt::core::ir
