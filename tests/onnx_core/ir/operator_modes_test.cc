#include "onnx_core/ir/operator_modes.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "onnx_core/common/error.h"

namespace onnxopt::core::ir {
namespace {

// A BatchNormalization with `outputs` (names, "" for an omitted one) and one int
// attribute when `attribute` is not empty.
NodeProto BatchNormalization(std::initializer_list<const char*> outputs, const std::string& attribute = "",
                             std::int64_t value = 0) {
  NodeProto node;
  node.set_op_type("BatchNormalization");
  for (const char* input : {"X", "scale", "B", "mean", "var"}) node.add_input(input);
  for (const char* output : outputs) node.add_output(output);
  if (!attribute.empty()) {
    AttributeProto& attr = *node.add_attribute();
    attr.set_name(attribute);
    attr.set_type(AttributeProto::INT);
    attr.set_i(value);
  }
  return node;
}

TEST(OperatorModes, TellsABatchNormalizationTrainingAtEveryOpset) {
  // Opsets 7 to 13: the outputs, empty names included.
  EXPECT_EQ(WhyBatchNormalizationTrains(BatchNormalization({"Y", "mean"}), 9),
            "the BatchNormalization has more than one output before opset 14 (training mode)");
  EXPECT_TRUE(BatchNormalizationTrains(BatchNormalization({"Y", ""}), 13));
  EXPECT_FALSE(BatchNormalizationTrains(BatchNormalization({"Y"}), 7));
  // Opset 14 on: training_mode only.
  EXPECT_FALSE(BatchNormalizationTrains(BatchNormalization({"Y", "mean", "var"}), 14));
  EXPECT_EQ(WhyBatchNormalizationTrains(BatchNormalization({"Y"}, "training_mode", 1), 15),
            "the BatchNormalization is in training mode");
  // Opsets 1 and 6: is_test, 0 (training) by default, whatever the outputs.
  EXPECT_EQ(WhyBatchNormalizationTrains(BatchNormalization({"Y"}), 6),
            "the BatchNormalization is in training mode (is_test is 0)");
  EXPECT_FALSE(BatchNormalizationTrains(BatchNormalization({"Y", "mean", "var", "sm", "sv"}, "is_test", 1), 6));
}

TEST(OperatorModes, RejectsAModeAttributeOfAnotherType) {
  NodeProto node = BatchNormalization({"Y"});
  AttributeProto& attr = *node.add_attribute();
  attr.set_name("training_mode");
  attr.set_type(AttributeProto::FLOAT);
  attr.set_f(1.0f);
  EXPECT_THROW(BatchNormalizationTrains(node, 14), ModelError);
}

}  // namespace
}  // namespace onnxopt::core::ir
