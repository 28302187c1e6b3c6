#include "onnx_core/ir/initializer_inputs.h"

#include <gtest/gtest.h>

#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::onnxopt::testing::ParseText;

// An IR-3 graph lists its initializer w among its inputs, as IR 3 required.
ModelProto ModelWithInitializerInput(std::int64_t ir_version) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 9]>
    g (float[2] x, float[2] w) => (float[2] y) <float[2] w = {1.0, 2.0}> { y = Add(x, w) })ONNX");
  model.set_ir_version(ir_version);
  return model;
}

TEST(InitializerInputs, AreConstantBeforeIrVersion4) {
  EXPECT_TRUE(InitializerInputsAreConstant(ModelWithInitializerInput(3), InitializerInputs::kConstantBeforeIr4));
  EXPECT_FALSE(InitializerInputsAreConstant(ModelWithInitializerInput(4), InitializerInputs::kConstantBeforeIr4));
  EXPECT_FALSE(InitializerInputsAreConstant(ModelWithInitializerInput(3), InitializerInputs::kOverridable));
}

TEST(InitializerInputs, RemovesThemFromTheInputsOfAnIr3Model) {
  ModelProto model = ModelWithInitializerInput(3);
  EXPECT_EQ(MakeInitializerInputsConstant(model, InitializerInputs::kConstantBeforeIr4), 1u);
  ASSERT_EQ(model.graph().input_size(), 1);
  EXPECT_EQ(model.graph().input(0).name(), "x");
  EXPECT_EQ(model.graph().initializer_size(), 1);
  // IR 3 would require w among the inputs: the model now declares the version that does not.
  EXPECT_EQ(model.ir_version(), kIrVersionInitializersNotInputs);
}

TEST(InitializerInputs, KeepsThemOverridableOnRequestOrFromIrVersion4) {
  for (auto [ir_version, policy] : {std::pair{std::int64_t{3}, InitializerInputs::kOverridable},
                                    std::pair{std::int64_t{4}, InitializerInputs::kConstantBeforeIr4},
                                    std::pair{std::int64_t{8}, InitializerInputs::kConstantBeforeIr4}}) {
    ModelProto model = ModelWithInitializerInput(ir_version);
    EXPECT_EQ(MakeInitializerInputsConstant(model, policy), 0u);
    EXPECT_EQ(model.graph().input_size(), 2);
    EXPECT_EQ(model.ir_version(), ir_version);
  }
}

// An IR-3 model whose initializers are not all inputs (folding adds such ones) declares
// IR 4; one that lists them all, or of IR 4 on, keeps its version.
TEST(InitializerInputs, InitializersThatAreNoInputsNeedIrVersion4) {
  ModelProto listed = ModelWithInitializerInput(3);
  EXPECT_FALSE(DeclareIrVersionOfInitializersNotInputs(listed));
  EXPECT_EQ(listed.ir_version(), 3);
  ModelProto unlisted = ModelWithInitializerInput(3);
  unlisted.mutable_graph()->mutable_input()->RemoveLast();
  EXPECT_TRUE(DeclareIrVersionOfInitializersNotInputs(unlisted));
  EXPECT_EQ(unlisted.ir_version(), kIrVersionInitializersNotInputs);
  ModelProto recent = ModelWithInitializerInput(8);
  recent.mutable_graph()->mutable_input()->RemoveLast();
  EXPECT_FALSE(DeclareIrVersionOfInitializersNotInputs(recent));
  EXPECT_EQ(recent.ir_version(), 8);
}

}  // namespace
}  // namespace onnxopt::core::ir
