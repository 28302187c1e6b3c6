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
  EXPECT_EQ(CheckError(model),
            "node #0 (Add) in graph 'main' reads 'ghost', which is not defined (IR.md: a node input is an input, an "
            "initializer or a node output of its graph, or a value visible from an enclosing graph)");
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
            "graph 'main' is not topologically sorted: node 'neg' (Neg) reads 'a' before node #1 (Relu) produces it "
            "(IR.md: the nodes of a graph are topologically sorted)");
}

TEST(GraphCheckTest, RejectsCycleAndListsIt) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Identity(x)
  b = Add(x, c)
  c = Neg(b)
})");
  EXPECT_EQ(CheckError(model), "graph 'main' has a cycle: node #2 (Neg) -> node #1 (Add) -> node #2 (Neg) "
                               "(IR.md: node dependencies must not create cycles)");
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
            "value 'y' is defined twice in graph 'main' (by node 'first' (Relu) and node 'second' (Neg)) "
            "(IR.md: every value has a single definition in its graph)");
}

TEST(GraphCheckTest, RejectsNodeOutputNamedLikeInputOrInitializer) {
  EXPECT_THAT(CheckError(Model(R"(
main (float[N] x) => (float[N] x2) {
  x = Relu(x)
  x2 = Identity(x)
})")),
            HasSubstr("value 'x' is defined twice in graph 'main' (by an input and node #0 (Relu))"));
  EXPECT_THAT(CheckError(Model(R"(
main (float[N] x) => (float[N] y) <float[1] w = {1.0}> {
  w = Relu(x)
  y = Add(x, w)
})")),
            HasSubstr("value 'w' is defined twice in graph 'main' (by an initializer and node #0 (Relu))"));
}

TEST(GraphCheckTest, RejectsOutputListedTwiceByOneNode) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y, y = Split(x)
})");
  EXPECT_THAT(CheckError(model),
              HasSubstr("value 'y' is defined twice in graph 'main' (by node #0 (Split) and node #0 (Split))"));
}

TEST(GraphCheckTest, RejectsUndefinedGraphOutput) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y, float[N] z) {
  y = Relu(x)
})");
  EXPECT_EQ(CheckError(model),
            "output 'z' of graph 'main' is not defined (IR.md: a graph output is a value of the graph or visible to it)");
}

TEST(GraphCheckTest, RejectsDuplicateGraphOutputs) {
  const ModelProto model = Model(R"(
main (float[N] x) => (float[N] y, float[N] y) {
  y = Relu(x)
})");
  EXPECT_EQ(CheckError(model),
            "graph 'main' lists output 'y' twice (IR.md: every value has a single definition in its graph)");
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

TEST(GraphCheckTest, RejectsUnnamedGraphInputsOutputsAndInitializers) {
  // The load fuzzer's case: an unnamed initializer of the main graph defined '', which an
  // unnamed output of a Loop body read; the cleanup removed the initializer (no node reads
  // it) and `onnxopt optimize` saved a model that onnxopt refuses.
  const ModelProto valid = Model(R"(
main (float[N] x) => (float[N] y) <float[2] w = {1, 2}> {
  y = Relu(x)
})");
  ASSERT_EQ(CheckError(valid), "");
  ModelProto model = valid;
  model.mutable_graph()->mutable_initializer(0)->clear_name();
  EXPECT_EQ(CheckError(model), "graph 'main' has an initializer without a name");
  model = valid;
  model.mutable_graph()->mutable_output(0)->clear_name();
  EXPECT_EQ(CheckError(model),
            "graph 'main' has an output without a name (IR.md: graphs MUST define the names of their inputs and "
            "outputs)");
  model = valid;
  model.mutable_graph()->mutable_input(0)->clear_name();
  EXPECT_THAT(CheckError(model), HasSubstr("graph 'main' has an input without a name"));
  // In a nested graph too.
  model = IfModel("x");
  model.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g()->mutable_output(0)->clear_name();
  EXPECT_THAT(CheckError(model), HasSubstr("has an output without a name"));
}

TEST(GraphCheckTest, SubgraphMayReadOuterValues) {
  EXPECT_EQ(CheckError(IfModel("x")), "");
  EXPECT_EQ(CheckError(IfModel("t")), "");
}

TEST(GraphCheckTest, RejectsUndefinedValueInSubgraph) {
  EXPECT_THAT(CheckError(IfModel("ghost")),
              HasSubstr("node #0 (Relu) in graph 'then_graph' reads 'ghost', which is not defined (IR.md:"));
}

TEST(GraphCheckTest, RejectsShadowingInSubgraph) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] x) { x = Relu(c) },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
})");
  EXPECT_EQ(CheckError(model),
            "value 'x' defined by node #0 (Relu) in graph 'then_graph' shadows the value of graph 'main' visible there "
            "(IR.md: a nested graph must not redefine a name visible in it from an enclosing graph)");
}

TEST(GraphCheckTest, RejectsShadowingOfAValueDefinedBeforeTheHoldingNode) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  t = Neg(x)
  y = If(c) <then_branch = then_graph () => (float[N] t) { t = Relu(x) },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
})");
  EXPECT_THAT(CheckError(model), HasSubstr("value 't' defined by node #0 (Relu) in graph 'then_graph' shadows the "
                                           "value of graph 'main' visible there (IR.md:"));
}

// An If in a branch of an If; its inner branch redefines the main graph's input x.
constexpr std::string_view kShadowingTwoLevelsDown = R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] r) {
               r = If(c) <then_branch = inner () => (float[N] x) { x = Neg(c) },
                          else_branch = inner_else () => (float[N] u) { u = Neg(c) }>
             },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
})";

TEST(GraphCheckTest, RejectsShadowingTwoLevelsDown) {
  const ModelProto model = Model(kShadowingTwoLevelsDown);
  EXPECT_THAT(CheckError(model), HasSubstr("value 'x' defined by node #0 (Neg) in graph 'inner' shadows the value of "
                                           "graph 'main' visible there"));
}

// torch's exporter names the output of each branch like the If's own output (Phi-3.5,
// Phi-4): that name is defined by the If, after the branches run, so it is not visible in
// them and the branches may define it.
TEST(GraphCheckTest, AcceptsBranchOutputsNamedLikeTheIfOutput) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] y) { y = Relu(x) },
             else_branch = else_graph () => (float[N] y) { y = Neg(x) }>
})");
  EXPECT_EQ(CheckError(model), "");
}

TEST(GraphCheckTest, AcceptsNestedDefinitionOfANameDefinedLaterOutside) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] z) {
  y = If(c) <then_branch = then_graph () => (float[N] z) { z = Relu(x) },
             else_branch = else_graph () => (float[N] s) { s = Neg(x) }>
  z = Abs(y)
})");
  EXPECT_EQ(CheckError(model), "");
}

TEST(GraphCheckTest, RejectsNestedReadOfTheHoldingNodesOutput) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] r) { r = Relu(y) },
             else_branch = else_graph () => (float[N] s) { s = Neg(x) }>
})");
  EXPECT_EQ(CheckError(model),
            "node #0 (Relu) in graph 'then_graph' reads 'y', which node #0 (If) of graph 'main' produces only at or "
            "after the node holding graph 'then_graph' (IR.md: the nodes of a graph are topologically sorted)");
}

TEST(GraphCheckTest, RejectsNestedReadOfAValueDefinedLaterOutside) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] r) { r = Relu(t) },
             else_branch = else_graph () => (float[N] s) { s = Neg(x) }>
  t = Neg(x)
})");
  EXPECT_THAT(CheckError(model), HasSubstr("reads 't', which node #1 (Neg) of graph 'main' produces only at or after "
                                           "the node holding graph 'then_graph'"));
}

TEST(GraphCheckTest, RejectsNestedOutputNamingTheHoldingNodesOutputWithoutDefiningIt) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] y) { r = Relu(x) },
             else_branch = else_graph () => (float[N] s) { s = Neg(x) }>
})");
  EXPECT_THAT(CheckError(model), HasSubstr("output 'y' of graph 'then_graph' is not defined"));
}

// NestedGraphChecker: one nested graph checked where it sits, as CheckModel checks it.

// The message of the ModelError the checker raises for `graph` in `around`, "" when none.
std::string NestedError(NestedGraphChecker& checker, const std::vector<NestedGraphChecker::Level>& around,
                        const GraphProto& graph) {
  try {
    EXPECT_TRUE(checker.Check(around, graph));
  } catch (const ModelError& error) {
    return error.what();
  }
  return "";
}

const GraphProto& ThenBranch(const ModelProto& model) {
  return model.graph().node(model.graph().node_size() - 1).attribute(0).g();
}

TEST(NestedGraphCheckerTest, ChecksABranchAsCheckModelDoes) {
  for (const char* input : {"x", "t", "ghost", "y"}) {
    SCOPED_TRACE(input);
    const ModelProto model = IfModel(input);
    NestedGraphChecker checker(model);
    EXPECT_EQ(NestedError(checker, {{&model.graph(), "y"}}, ThenBranch(model)), CheckError(model));
  }
  EXPECT_EQ(CheckError(IfModel("y")),
            "node #0 (Relu) in graph 'then_graph' reads 'y', which node #1 (If) of graph 'main' produces only at or "
            "after the node holding graph 'then_graph' (IR.md: the nodes of a graph are topologically sorted)");
}

TEST(NestedGraphCheckerTest, ChecksTwoLevelsDownAsCheckModelDoes) {
  const ModelProto model = Model(kShadowingTwoLevelsDown);
  const GraphProto& then_graph = ThenBranch(model);
  NestedGraphChecker checker(model);
  const std::string error = NestedError(checker, {{&model.graph(), "y"}, {&then_graph, "r"}},
                                        then_graph.node(0).attribute(0).g());
  EXPECT_THAT(error, HasSubstr("value 'x' defined by node #0 (Neg) in graph 'inner' shadows the value of graph 'main'"));
  EXPECT_EQ(error, CheckError(model));
}

TEST(NestedGraphCheckerTest, SeesAChangedEnclosingGraphAfterForget) {
  ModelProto model = IfModel("later");
  NestedGraphChecker checker(model);
  const std::vector<NestedGraphChecker::Level> around{{&model.graph(), "y"}};
  EXPECT_THAT(NestedError(checker, around, ThenBranch(model)), HasSubstr("reads 'later', which is not defined"));
  // `later` defined before the If: the kept scope of the main graph does not know it yet.
  NodeProto& defined = *model.mutable_graph()->mutable_node(0);
  defined.set_output(0, "later");
  defined.set_input(0, "x");
  checker.Forget(&model.graph());
  EXPECT_EQ(NestedError(checker, around, ThenBranch(model)), "");
  EXPECT_EQ(CheckError(model), "");
}

TEST(NestedGraphCheckerTest, ChecksNothingWhenTheHoldingNodeIsNotFound) {
  const ModelProto model = IfModel("ghost");
  NestedGraphChecker checker(model);
  // No node outputs 'nothing'; the node outputting 't' holds no graph.
  EXPECT_FALSE(checker.Check({{&model.graph(), "nothing"}}, ThenBranch(model)));
  EXPECT_FALSE(checker.Check({{&model.graph(), "t"}}, ThenBranch(model)));
  // The If holds the else branch, not a copy of the then branch.
  const GraphProto copy = ThenBranch(model);
  EXPECT_FALSE(checker.Check({{&model.graph(), "y"}}, copy));
}

TEST(GraphCheckTest, RejectsOpsetVersionBelowOne) {
  ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = Relu(x)
})");
  model.mutable_opset_import(0)->set_version(0);
  EXPECT_EQ(CheckError(model),
            "the model imports version 0 of operator set ai.onnx (Versioning.md: operator set versions start at 1)");
  model.mutable_opset_import(0)->set_version(-3);
  EXPECT_THAT(CheckError(model), HasSubstr("imports version -3 of operator set ai.onnx"));
  model.mutable_opset_import(0)->set_version(1);
  EXPECT_EQ(CheckError(model), "");
}

TEST(GraphCheckTest, RejectsFunctionOpsetVersionBelowOne) {
  ModelProto model = Model(R"(
main (float[N] x) => (float[N] y) {
  y = local.F(x)
}
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  b = Relu(a)
})");
  model.mutable_functions(0)->mutable_opset_import(0)->set_version(0);
  EXPECT_EQ(CheckError(model),
            "function 'F' imports version 0 of operator set ai.onnx (Versioning.md: operator set versions start at 1)");
}

TEST(GraphCheckTest, SubgraphValuesAreNotVisibleOutside) {
  const ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = If(c) <then_branch = then_graph () => (float[N] r) { r = Relu(x) },
             else_branch = else_graph () => (float[N] s) { s = Identity(x) }>
  z = Neg(r)
})");
  EXPECT_THAT(CheckError(model), HasSubstr("node #1 (Neg) in graph 'main' reads 'r', which is not defined (IR.md:"));
}

TEST(GraphCheckTest, RejectsTooDeepNesting) {
  ModelProto model = Model(R"(
main (bool c, float[N] x) => (float[N] y) {
  y = Identity(x)
})");
  GraphProto* graph = model.mutable_graph();
  for (int depth = 0; depth < 70; ++depth) {
    NodeProto* node = graph->add_node();
    node->set_domain("local");
    node->set_op_type("Nest");
    graph = node->add_attribute()->mutable_g();
    graph->set_name("level" + std::to_string(depth + 1));
  }
  EXPECT_EQ(CheckError(model), "graph 'level65' is nested too deeply (more than onnxopt's limit of 64 levels)");
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
  EXPECT_THAT(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  b = Relu(ghost)
})")),
            HasSubstr("node #0 (Relu) in function 'F' reads 'ghost', which is not defined"));
  EXPECT_THAT(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b) {
  b = Relu(a)
  b = Neg(a)
})")),
            HasSubstr("value 'b' is defined twice in function 'F' (by node #0 (Relu) and node #1 (Neg))"));
  EXPECT_THAT(CheckError(Model(graph + R"(
<domain: "local", opset_import: ["" : 17]>
F (a) => (b, c) {
  b = Relu(a)
})")),
            HasSubstr("output 'c' of function 'F' is not defined"));
}

}  // namespace
}  // namespace onnxopt::core::ir
