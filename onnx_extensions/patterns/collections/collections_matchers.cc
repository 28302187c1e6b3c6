#include "onnx_extensions/patterns/collections/collections_matchers.h"

#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns::collections {

using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::OnnxOpset;

std::optional<std::size_t> ConstantRank(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor) return std::nullopt;
  return static_cast<std::size_t>(tensor->dims_size());
}

void SetSplitSizes(GraphGraph& graph, std::string_view prefix, NodeProto& split,
                   const std::vector<std::int64_t>& sizes) {
  if (OnnxOpset(graph) >= 13) {
    split.add_input(graph.MakeInitializer(prefix, IntTensor(sizes)));
    return;
  }
  core::builder::AddIntsAttribute(split, "split", sizes);
}

void SetSplitOnes(GraphGraph& graph, std::string_view prefix, NodeProto& split, std::int64_t count) {
  if (OnnxOpset(graph) < 18) {
    SetSplitSizes(graph, prefix, split, std::vector<std::int64_t>(static_cast<std::size_t>(count), 1));
    return;
  }
  core::builder::AddIntAttribute(split, "num_outputs", count);
}

void AddSqueeze(GraphGraph& graph, std::string_view prefix, const NodeProto& origin,
                utils::RepeatedProtoField<NodeProto>& nodes, const std::string& input, const std::string& output,
                std::int64_t axis) {
  NodeProto& squeeze = *nodes.Add();
  squeeze.set_op_type("Squeeze");
  squeeze.set_name(DerivedNodeName(graph, prefix, origin));
  squeeze.add_input(input);
  squeeze.add_output(output);
  if (OnnxOpset(graph) >= 13) {
    squeeze.add_input(graph.MakeInitializer(prefix, IntTensor({axis}, {1})));
    return;
  }
  core::builder::AddIntsAttribute(squeeze, "axes", {axis});
}

}  // namespace onnxopt::onnx_patterns::collections
