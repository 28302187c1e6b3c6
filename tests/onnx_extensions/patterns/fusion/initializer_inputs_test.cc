// Done when 3 of issue 17: on an IR-3 model, whose initializers are all listed among the
// graph inputs, weights fold and BatchNormalization folds into the Conv before it, unless
// the caller keeps them overridable.
#include <gtest/gtest.h>

#include <string>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/initializer_inputs.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/patterns/dispatch_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using core::ir::InitializerInputs;

// A transposed weight (a constant computation) feeding Conv + BatchNormalization.
constexpr std::string_view kIr3Model = R"ONNX(
    <ir_version: 3, opset_import: ["" : 9]>
    g (float[1,2,4,4] X, float[2,2,1,1] W, float[2] s, float[2] b, float[2] m, float[2] v) => (float[1,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {0.5, 0.0},
       float[2] m = {0.0, 1.0}, float[2] v = {4.0, 1.0}> {
      w = Transpose<perm=[1, 0, 2, 3]>(W)
      c = Conv<kernel_shape=[1, 1]>(X, w)
      Y = BatchNormalization(c, s, b, m, v)
    })ONNX";

std::string OptimizedOpTypes(InitializerInputs policy) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  RegisterPatterns();
  ModelProto model = testing::ParseText(kIr3Model);
  core::ir::MakeInitializerInputsConstant(model, policy);
  core::builder::GraphBuilder builder(std::move(model));
  core::builder::OptimizerOptions options;
  options.fold_constants_first = true;
  core::builder::GraphGraph(builder, {}, options).Optimize();
  std::string op_types;
  for (const NodeProto& node : builder.Nodes()) op_types += node.op_type() + " ";
  return op_types;
}

TEST(InitializerInputs, FoldIntoConvInAnIr3Model) {
  EXPECT_EQ(OptimizedOpTypes(InitializerInputs::kConstantBeforeIr4), "Conv ");
}

TEST(InitializerInputs, StayOverridableOnRequest) {
  EXPECT_EQ(OptimizedOpTypes(InitializerInputs::kOverridable), "Transpose Conv BatchNormalization ");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
