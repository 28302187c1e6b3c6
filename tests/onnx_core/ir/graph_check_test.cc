#include "onnx_core/ir/graph_check.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::ir {
namespace {

using ::onnxopt::testing::ParseText;
using ::testing::HasSubstr;

constexpr std::string_view kHeader = R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
)";

ModelProto Model(std::string_view text) { return ParseText(std::string(kHeader) + std::string(text)); }

// The message of the ModelError raised by CheckModel, "" when it raises nothing.
std::string CheckError(const ModelProto& model) {
  try {
    CheckModel(model);
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

TEST(GraphCheckTest, AcceptsValidGraph) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) <float[1] w = {2.0}> {
  a = Mul(x, w)
  y = Relu(a)
})");
  EXPECT_EQ(CheckError(model), "");
}

TEST(GraphCheckTest, AcceptsOmittedOptionalInputsAndInputsWithDefaults) {
  ModelProto model = Model(R"(
main (float[N] x, float[1] w) => (float[N] y) <float[1] w = {2.0}> {
  y = Clip(x, , w)
})");
  EXPECT_EQ(CheckError(model), "");
}

TEST(GraphCheckTest, RejectsUndefinedValue) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Add(x, ghost)
})");
  EXPECT_EQ(CheckError(model), "node #0 (Add) in graph 'main' reads 'ghost', which is not defined");
}

TEST(GraphCheckTest, RejectsGraphNotTopologicallySorted) {
  ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  a = Relu(x)
  y = Neg(a)
})");
  model.mutable_graph()->mutable_node()->SwapElements(0, 1);
  model.mutable_graph()->mutable_node(0)->set_name("neg");
  EXPECT_EQ(CheckError(model),
            "graph 'main' is not topologically sorted: node 'neg' (Neg) reads 'a' before node #1 (Relu) produces it");
}

TEST(GraphCheckTest, RejectsCycleAndListsIt) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Identity(x)
  b = Add(x, c)
  c = Neg(b)
})");
  EXPECT_EQ(CheckError(model), "graph 'main' has a cycle: node #2 (Neg) -> node #1 (Add) -> node #2 (Neg)");
}

TEST(GraphCheckTest, RejectsNodeReadingItsOwnOutput) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Add(x, y)
})");
  EXPECT_THAT(CheckError(model), HasSubstr("graph 'main' has a cycle: node #0 (Add) -> node #0 (Add)"));
}

TEST(GraphCheckTest, FindsCycleInLongChainWithoutDeepRecursion) {
  ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Identity(x)
})");
  constexpr int kNodes = 200000;
  GraphProto& graph = *model.mutable_graph();
  for (int i = 0; i < kNodes; ++i) {
    NodeProto& node = *graph.add_node();
    node.set_op_type("Neg");
    node.add_input("v" + std::to_string((i + 1) % kNodes));
    node.add_output("v" + std::to_string(i));
  }
  const std::string error = CheckError(model);
  EXPECT_THAT(error, HasSubstr("graph 'main' has a cycle of 200000 nodes: node #"));
  EXPECT_LT(error.size(), 500u) << "the message lists the whole cycle";
}

TEST(GraphCheckTest, RejectsDuplicateProducers) {
  ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Relu(x)
  y = Neg(x)
})");
  model.mutable_graph()->mutable_node(0)->set_name("first");
  model.mutable_graph()->mutable_node(1)->set_name("second");
  EXPECT_EQ(CheckError(model),
            "value 'y' is defined twice in graph 'main' (by node 'first' (Relu) and node 'second' (Neg))");
}

TEST(GraphCheckTest, RejectsNodeOutputNamedLikeInputOrInitializer) {
  EXPECT_EQ(CheckError(Model(R"(
main (float[N] x) => (float[N] x2) {
  x = Relu(x)
  x2 = Identity(x)
})")),
            "value 'x' is defined twice in graph 'main' (by an input and node #0 (Relu))");
  EXPECT_EQ(CheckError(Model(R"(
main (float[N] x) => (float[N] y) <float[1] w = {1.0}> {
  w = Relu(x)
  y = Add(x, w)
})")),
            "value 'w' is defined twice in graph 'main' (by an initializer and node #0 (Relu))");
}

TEST(GraphCheckTest, RejectsOutputListedTwiceByOneNode) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y, y = Split(x)
})");
  EXPECT_EQ(CheckError(model), "value 'y' is defined twice in graph 'main' (by node #0 (Split) and node #0 (Split))");
}

TEST(GraphCheckTest, RejectsUndefinedGraphOutput) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y, float[N] z) {
  y = Relu(x)
})");
  EXPECT_EQ(CheckError(model), "output 'z' of graph 'main' is not defined");
}

TEST(GraphCheckTest, RejectsDuplicateGraphOutputs) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y, float[N] y) {
  y = Relu(x)
})");
  EXPECT_EQ(CheckError(model), "graph 'main' lists output 'y' twice");
}

constexpr std::string_view kIfModel = R"(
main (bool c, float[N] x) => (float[N] y) {
  t = Neg(x)
  y = If(c) <then_branch = then_graph () => (float[N] r) { r = Relu(BODY) },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
})";

ModelProto IfModel(std::string_view then_input) {
  std::string text(kIfModel);
  text.replace(text.find("BODY"), 4, then_input);
  return Model(text);
}

TEST(GraphCheckTest, SubgraphMayReadOuterValues) {
  EXPECT_EQ(CheckError(IfModel("x")), "");
  EXPECT_EQ(CheckError(IfModel("t")), "");
}

TEST(GraphCheckTest, RejectsUndefinedValueInSubgraph) {
  EXPECT_EQ(CheckError(IfModel("ghost")), "node #0 (Relu) in graph 'then_graph' reads 'ghost', which is not defined");
}

TEST(GraphCheckTest, RejectsShadowingInSubgraph) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] x) { x = Relu(c) },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
})");
  EXPECT_EQ(CheckError(model),
            "value 'x' defined by node #0 (Relu) in graph 'then_graph' shadows a value of an enclosing graph");
}

TEST(GraphCheckTest, SubgraphValuesAreNotVisibleOutside) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] r) { r = Relu(x) },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
  z = Neg(r)
})");
  EXPECT_EQ(CheckError(model), "node #1 (Neg) in graph 'main' reads 'r', which is not defined");
}

TEST(GraphCheckTest, RejectsTooDeepNesting) {
  ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = Identity(x)
})");
  GraphProto* graph = model.mutable_graph();
  for (int depth = 0; depth < 70; ++depth) {
    NodeProto* node = graph->add_node();
    node->set_op_type("Loop");
    graph = node->add_attribute()->mutable_g();
    graph->set_name("level" + std::to_string(depth + 1));
  }
  EXPECT_EQ(CheckError(model), "graph 'level65' is nested too deeply (more than 64 levels)");
}

TEST(GraphCheckTest, ChecksFunctionBodies) {
  const std::string graph = R"(
main (float[N] x) => (float[N] y) {
  y = local.F(x)
}
)";
  EXPECT_EQ(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  t = Neg(a)
  b = Relu(t)
})")),
            "");
  EXPECT_EQ(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  b = Relu(ghost)
})")),
            "node #0 (Relu) in function 'F' reads 'ghost', which is not defined");
  EXPECT_EQ(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  b = Relu(a)
  b = Neg(a)
})")),
            "value 'b' is defined twice in function 'F' (by node #0 (Relu) and node #1 (Neg))");
  EXPECT_EQ(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b, c) {
  b = Relu(a)
})")),
            "output 'c' of function 'F' is not defined");
}

}  // namespace
}  // namespace onnxopt::core::ir
