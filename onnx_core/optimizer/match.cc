#include "onnx_core/optimizer/match.h"

#include "onnx_core/eval/tensor.h"

namespace onnxopt::core::builder {

bool IsOp(const NodeProto& node, std::string_view op_type) {
  return node.op_type() == op_type && IsOnnxDomain(node.domain());
}

const NodeProto* ProducerOf(const GraphGraph& graph, std::string_view value, std::string_view op_type) {
  const NodeProto* producer = graph.NodeBefore(value);
  return producer && IsOp(*producer, op_type) ? producer : nullptr;
}

bool HasOneUse(const GraphGraph& graph, std::string_view value) {
  return graph.NextNodes(value).size() == 1 && !graph.IsUsedMoreThanOnce(value);
}

const NodeProto* SoleConsumer(const GraphGraph& graph, std::string_view value, std::string_view op_type) {
  if (!HasOneUse(graph, value)) return nullptr;
  const NodeProto* consumer = graph.NextNodes(value).front();
  return IsOp(*consumer, op_type) ? consumer : nullptr;
}

std::optional<std::size_t> RankOf(const GraphGraph& graph, std::string_view value) {
  if (!graph.HasShape(value)) return std::nullopt;
  return graph.GetShape(value).shape.Rank();
}

std::optional<std::vector<std::int64_t>> ConstantInts(GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor) return std::nullopt;
  switch (tensor->data_type()) {
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return eval::Tensor::FromProto(*tensor).ToInt64Vector();
    default:
      return std::nullopt;
  }
}

std::int64_t OnnxOpset(const GraphGraph& graph) { return graph.Builder().OpsetVersion("").value_or(0); }

namespace {

const AttributeProto* Find(const NodeProto& node, std::string_view name, AttributeProto::AttributeType type) {
  for (const AttributeProto& attr : node.attribute())
    if (attr.name() == name) return attr.type() == type ? &attr : nullptr;
  return nullptr;
}

}  // namespace

std::optional<std::int64_t> IntAttr(const NodeProto& node, std::string_view name) {
  const AttributeProto* attr = Find(node, name, AttributeProto::INT);
  return attr ? std::optional<std::int64_t>(attr->i()) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> IntsAttr(const NodeProto& node, std::string_view name) {
  const AttributeProto* attr = Find(node, name, AttributeProto::INTS);
  if (!attr) return std::nullopt;
  return std::vector<std::int64_t>(attr->ints().begin(), attr->ints().end());
}

std::string DerivedNodeName(GraphGraph& graph, std::string_view pattern, const NodeProto& node) {
  std::string base(pattern);
  base += "--";
  base += !node.name().empty() ? node.name() : (node.output_size() > 0 ? node.output(0) : node.op_type());
  return graph.Builder().UniqueName(base);
}

}  // namespace onnxopt::core::builder
