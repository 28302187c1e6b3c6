#include "onnx_extensions/patterns/expand/expand_matchers.h"

#include "onnx_core/eval/tensor.h"

namespace onnxopt::onnx_patterns::expand {

std::optional<double> ConstantScalarValue(core::builder::GraphGraph& graph, std::string_view value) {
  const TensorProto* tensor = graph.GetComputedConstant(value);
  if (!tensor || tensor->data_type() == TensorProto::STRING) return std::nullopt;
  if (tensor->dims_size() > 1 || (tensor->dims_size() == 1 && tensor->dims(0) != 1)) return std::nullopt;
  const std::vector<double> elements = core::eval::Tensor::FromProto(*tensor).ToDoubleVector();
  if (elements.size() != 1) return std::nullopt;
  return elements[0];
}

}  // namespace onnxopt::onnx_patterns::expand
