#pragma once
// Helpers shared by the builder tests: a compact view of a graph's nodes and access to
// the graphs held by a node, so that expectations stay one line per node.

#include <stdexcept>
#include <string>
#include <vector>

#include "onnx_core/ir/onnx_pb.h"

namespace onnxopt::testing {

// "y = Op(a, b)" (domain prefixed when not the default one), one line per node.
inline std::vector<std::string> NodeLines(const GraphProto& graph) {
  std::vector<std::string> lines;
  for (const NodeProto& node : graph.node()) {
    std::string line;
    for (int i = 0; i < node.output_size(); ++i) line += (i ? ", " : "") + node.output(i);
    line += " = " + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() + "(";
    for (int i = 0; i < node.input_size(); ++i) line += (i ? ", " : "") + node.input(i);
    lines.push_back(line + ")");
  }
  return lines;
}

// The graph held by attribute `attribute` of the node whose first output is `output`.
inline GraphProto& SubgraphOf(GraphProto& graph, const std::string& output, const std::string& attribute,
                              int index = -1) {
  for (NodeProto& node : *graph.mutable_node()) {
    if (node.output_size() == 0 || node.output(0) != output) continue;
    for (AttributeProto& attr : *node.mutable_attribute())
      if (attr.name() == attribute) return index < 0 ? *attr.mutable_g() : *attr.mutable_graphs(index);
  }
  throw std::runtime_error("no graph attribute " + attribute + " on the node writing " + output);
}

inline std::vector<std::string> InitializerNames(const GraphProto& graph) {
  std::vector<std::string> names;
  for (const TensorProto& init : graph.initializer()) names.push_back(init.name());
  return names;
}

inline std::vector<std::string> OutputNames(const GraphProto& graph) {
  std::vector<std::string> names;
  for (const ValueInfoProto& output : graph.output()) names.push_back(output.name());
  return names;
}

}  // namespace onnxopt::testing
