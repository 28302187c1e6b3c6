#include "onnx_core/ir/op_schema.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/graph_check.h"
#include "onnx_extensions/schemas/onnx_schemas_table.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::onnxopt::testing::ParseText;
using ::testing::HasSubstr;

class OpSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override { onnx_shapes::RegisterShapeFunctions(); }
};

// The message of the ModelError CheckModel raises for the model `text` (opset `opset` of
// ai.onnx), "" when it raises nothing.
std::string CheckError(std::string_view graph, int opset = 18) {
  const ModelProto model =
      ParseText("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + std::string(graph));
  try {
    CheckModel(model);
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

TEST_F(OpSchemaTest, TableCoversEveryVersionOfTheChangelog) {
  // Changelog.md lists 617 operator versions (ai.onnx 1-28, ai.onnx.preview,
  // ai.onnx.preview.training): each one is in the table once.
  EXPECT_EQ(onnx_schemas::OnnxOpSchemas().size(), 617u);
  EXPECT_EQ(RegisteredOpSchemaCount(), 617u);
}

TEST_F(OpSchemaTest, FindsTheVersionInForce) {
  const OpSchema* split = FindOpSchema("", "Split", 17);
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->Name(), "Split-13");
  EXPECT_EQ(split->min_inputs, 1);
  EXPECT_EQ(split->max_inputs, 2);
  EXPECT_EQ(split->max_outputs, -1);
  EXPECT_EQ(FindOpSchema("ai.onnx", "Split", 18)->Name(), "Split-18");
  EXPECT_EQ(FindOpSchema("", "Split", 23)->Name(), "Split-18");
  EXPECT_EQ(LookUpOpSchema("", "LayerNormalization", 16).status, SchemaLookup::Status::kNotCovered)
      << "onnxruntime's own LayerNormalization in ai.onnx before opset 17";
  EXPECT_EQ(LookUpOpSchema("", "RMSNormalization", 22).status, SchemaLookup::Status::kNotYetDefined);
  EXPECT_EQ(LookUpOpSchema("", "Upsample", 10).status, SchemaLookup::Status::kRemoved);
  EXPECT_EQ(LookUpOpSchema("", "Frobnicate", 18).status, SchemaLookup::Status::kUnknownOperator);
  EXPECT_EQ(LookUpOpSchema("", "Relu", 99).status, SchemaLookup::Status::kNotCovered) << "newer than the tables";
  EXPECT_EQ(LookUpOpSchema("com.microsoft", "FusedConv", 1).status, SchemaLookup::Status::kNotCovered);
  EXPECT_EQ(FindOpSchema("ai.onnx.preview.training", "Adagrad", 1)->Name(), "ai.onnx.preview.training::Adagrad-1");
}

TEST_F(OpSchemaTest, KeepsTypeConstraints) {
  const OpSchema* gather = FindOpSchema("", "Gather", 13);
  ASSERT_NE(gather, nullptr);
  const FormalParameter* indices = gather->Input(1);
  ASSERT_NE(indices, nullptr);
  EXPECT_EQ(indices->type_name, "Tind");
  EXPECT_EQ(DescribeTypeSet(indices->allowed), "tensor(int32), tensor(int64)");
  const OpSchema* concat = FindOpSchema("", "Concat", 13);
  EXPECT_EQ(concat->Input(5)->name, "inputs") << "a variadic parameter covers every later position";
  EXPECT_EQ(concat->Input(5)->option, FormalParameter::Option::kVariadic);
  const OpSchema* sequence_at = FindOpSchema("", "SequenceAt", 11);
  EXPECT_THAT(DescribeTypeSet(sequence_at->Input(0)->allowed), HasSubstr("seq(tensor(float))"));
}

TEST_F(OpSchemaTest, KeepsTheDefaultsOfScalarAttributes) {
  const OpSchema* gemm = FindOpSchema("", "Gemm", 13);
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(DefaultAttribute(*gemm, "transB")->ShortDebugString(), R"(name: "transB" i: 0 type: INT)");
  EXPECT_EQ(DefaultAttribute(*gemm, "alpha")->f(), 1.0f);
  const OpSchema* leaky = FindOpSchema("", "LeakyRelu", 16);
  EXPECT_EQ(DefaultAttribute(*leaky, "alpha")->f(), 0.01f) << "the float nearest to the decimal default";
  const OpSchema* conv = FindOpSchema("", "Conv", 11);
  EXPECT_EQ(DefaultAttribute(*conv, "auto_pad")->s(), "NOTSET");
  EXPECT_EQ(DefaultAttribute(*conv, "strides"), std::nullopt) << "lists have no default in the table";
  EXPECT_EQ(DefaultAttribute(*conv, "no_such_attribute"), std::nullopt);
  const OpSchema* cast = FindOpSchema("", "Cast", 13);
  EXPECT_EQ(DefaultAttribute(*cast, "to"), std::nullopt) << "a required attribute has no default";
}

TEST_F(OpSchemaTest, AcceptsValidNodes) {
  EXPECT_EQ(CheckError(R"(
g (float[N] x, bool c) => (float[N] y, float[M] z) {
  a, b = Split <axis = 0, num_outputs = 2> (x)
  s = Clip(x, , )
  y = If(c) <then_branch = t () => (float[N] r) { r = Relu(x) },
             else_branch = e () => (float[N] u) { u = Neg(x) }>
  z = Concat <axis = 0> (a, b, s)
})"),
            "");
}

TEST_F(OpSchemaTest, RejectsUnknownOperator) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Frobnicate(x) }"),
            "node #0 (Frobnicate) in graph 'g': the operator set ai.onnx has no operator 'Frobnicate'; found opset 18 "
            "of ai.onnx imported");
}

TEST_F(OpSchemaTest, LeavesOtherDomainsAndLocalFunctionsUnchecked) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = custom.Frobnicate(x) }"), "");
  EXPECT_EQ(CheckError(R"(
g (float[N] x) => (float[N] y) { y = Frobnicate(x) }
<domain: "", opset_import: ["" : 18]>
Frobnicate (a) => (b) { b = Neg(a) })"),
            "");
}

TEST_F(OpSchemaTest, RejectsOperatorBeforeItsFirstVersion) {
  // onnxruntime registers its own LayerNormalization in ai.onnx before 17 (accepted
  // here too); RMSNormalization appears in opset 23.
  EXPECT_EQ(CheckError("g (float[2,3] x, float[3] s) => (float[2,3] y) { y = LayerNormalization(x, s) }", 13), "");
  EXPECT_EQ(CheckError("g (float[2,3] x, float[3] s) => (float[2,3] y) { y = RMSNormalization(x, s) }", 22),
            "node #0 (RMSNormalization) in graph 'g': RMSNormalization exists from opset 23 of ai.onnx on; found "
            "opset 22 of ai.onnx imported");
}

TEST_F(OpSchemaTest, RejectsDeprecatedOperator) {
  const std::string graph =
      "g (float[1,1,2,2] x, float[4] s) => (float[1,1,4,4] y) { y = Upsample <mode = \"nearest\"> (x, s) }";
  EXPECT_EQ(CheckError(graph, 9), "");
  EXPECT_EQ(CheckError(graph, 10),
            "node #0 (Upsample) in graph 'g': Upsample is deprecated (removed) from opset 10 of ai.onnx on; found "
            "opset 10 of ai.onnx imported");
}

TEST_F(OpSchemaTest, RejectsWrongInputAndOutputCounts) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Relu(x, x) }"),
            "node #0 (Relu) in graph 'g': Relu-14 has 1 inputs; found 2");
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Add(x) }"),
            "node #0 (Add) in graph 'g': Add-14 has 2 inputs; found 1");
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Concat <axis = 0> () }"),
            "node #0 (Concat) in graph 'g': Concat-13 has 1 or more inputs; found 0");
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y, z = Relu(x) }"),
            "node #0 (Relu) in graph 'g': Relu-14 has 1 outputs; found 2");
}

TEST_F(OpSchemaTest, RejectsOmittedInputsThatAreNotOptional) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Add(x, ) }"),
            "node #0 (Add) in graph 'g': input 1 'B' of Add-14 is not optional; found an empty name");
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Clip(x, , ) }"), "");
}

TEST_F(OpSchemaTest, RejectsAttributesTheOperatorDoesNotHave) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Relu <alpha = 1.0> (x) }"),
            "node #0 (Relu) in graph 'g': Relu-14 has no attribute 'alpha'; found one");
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = LeakyRelu <alpha = 0.1> (x) }"), "");
}

TEST_F(OpSchemaTest, RejectsAttributesOfAnotherType) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Concat <axis = 0.0> (x, x) }"),
            "node #0 (Concat) in graph 'g': attribute 'axis' of Concat-13 is an int; found a float");
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Transpose <perm = 0> (x) }"),
            "node #0 (Transpose) in graph 'g': attribute 'perm' of Transpose-13 is a list of ints; found an int");
}

// torch's exporters write Constant's value_float with type INT; onnxruntime runs such
// models, reading the declared type (an int64 constant), and so does onnxopt.
TEST_F(OpSchemaTest, ToleratesConstantValueFloatWrittenAsAnInt) {
  ModelProto model = ParseText(R"(<ir_version: 8, opset_import: ["" : 18]>
g () => (float y) { y = Constant <value_float = 1.0> () })");
  AttributeProto& attr = *model.mutable_graph()->mutable_node(0)->mutable_attribute(0);
  attr.set_type(AttributeProto::INT);
  attr.set_i(0);
  EXPECT_NO_THROW(CheckModel(model));
  attr.set_name("value_string");
  EXPECT_THROW(CheckModel(model), ModelError);
}

TEST_F(OpSchemaTest, RejectsMissingRequiredAttributes) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Concat(x, x) }"),
            "node #0 (Concat) in graph 'g': attribute 'axis' of Concat-13 is required; found none");
  // An If without its else branch.
  EXPECT_EQ(CheckError(R"(
g (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = t () => (float[N] r) { r = Relu(x) }>
})"),
            "node #0 (If) in graph 'g': attribute 'else_branch' of If-16 is required; found none");
}

TEST_F(OpSchemaTest, ChecksNodesOfNestedGraphsAndFunctions) {
  EXPECT_THAT(CheckError(R"(
g (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = t () => (float[N] r) { r = Relu(x, x) },
             else_branch = e () => (float[N] u) { u = Neg(x) }>
})"),
              HasSubstr("node #0 (Relu) in graph 't': Relu-14 has 1 inputs; found 2"));
  // A function's own opset import decides the version of its nodes.
  const std::string with_function = R"(
g (float[N] x) => (float[N] y) { y = local.F(x) }
<domain: "local", opset_import: ["" : 9]>
F (a) => (b) { b = Shrink <lambd = 1> (a) })";
  const ModelProto model =
      ParseText("<ir_version: 8, opset_import: [\"\" : 18, \"local\" : 1]>\n" + with_function);
  try {
    CheckModel(model);
    ADD_FAILURE() << "the function's node was not checked";
  } catch (const ModelError& error) {
    EXPECT_THAT(error.what(), HasSubstr("node #0 (Shrink) in function 'F': attribute 'lambd' of Shrink-9 is a float; "
                                        "found an int"));
  }
}

TEST_F(OpSchemaTest, LeavesOpsetsNewerThanTheTablesUnchecked) {
  EXPECT_EQ(CheckError("g (float[N] x) => (float[N] y) { y = Frobnicate(x) }", 99), "");
}

}  // namespace
}  // namespace onnxopt::core::ir
