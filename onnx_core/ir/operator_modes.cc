#include "onnx_core/ir/operator_modes.h"

#include "onnx_core/ir/attributes.h"

namespace onnxopt::core::ir {

std::string_view WhyBatchNormalizationTrains(const NodeProto& node, std::int64_t opset) {
  const auto int_attribute = [&](std::string_view name) -> std::int64_t {
    const AttributeProto* attribute = TypedAttribute(node, name, AttributeProto::INT);
    return attribute ? attribute->i() : 0;
  };
  if (opset >= 14) return int_attribute("training_mode") != 0 ? "the BatchNormalization is in training mode" : "";
  if (opset >= 7)
    return node.output_size() > 1 ? "the BatchNormalization has more than one output before opset 14 (training mode)"
                                  : "";
  return int_attribute("is_test") == 0 ? "the BatchNormalization is in training mode (is_test is 0)" : "";
}

}  // namespace onnxopt::core::ir
