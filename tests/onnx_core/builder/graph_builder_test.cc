#include "onnx_core/builder/graph_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include "onnx_core/common/error.h"
#include "tests/onnx_core/builder/builder_test_helpers.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::builder {
namespace {

using ::onnxopt::testing::NodeLines;
using ::onnxopt::testing::ParseText;
using ::onnxopt::testing::SubgraphOf;
using ::testing::ElementsAre;
using Names = std::set<std::string>;

// An If whose then branch reads `t` and `w` from the main graph, whose else branch reads
// nothing from outside, followed by a Loop whose body holds a nested If.
constexpr const char* kControlFlow = R"ONNX(
  <ir_version: 8, opset_import: ["" : 17, "com.custom" : 2]>
  g (float[2] x, bool c, int64 n) => (float[2] y, float[2] z) <float[2] w = {1.0, 2.0}> {
    t = Neg(x)
    y = If(c) <
      then_branch = then_g () => (float[2] a) { a = Add(t, w) },
      else_branch = else_g () => (float[2] b) { k = Constant <value_floats = [0.0, 0.0]> () b = Identity(k) }>
    z = Loop(n, c, x) <body = body_g (int64 i, bool cond, float[2] acc) => (bool cond_out, float[2] acc_out) {
      cond_out = Identity(cond)
      acc_out = If(cond) <
        then_branch = inner_then () => (float[2] r) { r = Add(acc, y) },
        else_branch = inner_else () => (float[2] s) { s = Identity(acc) }>
    }>
  })ONNX";

std::string Serialized(const ModelProto& model) { return model.SerializeAsString(); }

std::vector<std::string> Paths(const std::vector<GraphBuilder*>& builders) {
  std::vector<std::string> paths;
  for (const GraphBuilder* builder : builders) paths.push_back(builder->PathString());
  return paths;
}

// --- The model ---------------------------------------------------------------------

TEST(GraphBuilder, ToModelOfUntouchedBuilderEqualsInput) {
  const ModelProto model = ParseText(kControlFlow);
  GraphBuilder builder{ModelProto(model)};
  EXPECT_EQ(Serialized(builder.ToModel()), Serialized(model));
  builder.Subgraphs();  // creating nested builders changes nothing
  EXPECT_EQ(Serialized(builder.ToModel()), Serialized(model));
}

TEST(GraphBuilder, TakeModelReturnsTheModelItself) {
  const ModelProto model = ParseText(kControlFlow);
  GraphBuilder builder{ModelProto(model)};
  builder.Subgraphs();
  const ModelProto taken = std::move(builder).TakeModel();
  EXPECT_EQ(Serialized(taken), Serialized(model));
}

TEST(GraphBuilder, TakeModelOfNestedBuilderThrows) {
  GraphBuilder builder(ParseText(kControlFlow));
  GraphBuilder* nested = builder.Subgraphs().front();
  EXPECT_THROW(std::move(*nested).TakeModel(), BuilderError);
}

TEST(GraphBuilder, NestedToModelCarriesTheRootOpsets) {
  GraphBuilder builder(ParseText(kControlFlow));
  const ModelProto model = builder.Subgraphs().front()->ToModel();
  EXPECT_EQ(model.graph().name(), "then_g");
  EXPECT_EQ(model.opset_import_size(), 2);
  EXPECT_EQ(model.ir_version(), 8);
}

TEST(GraphBuilder, StandaloneGraphHasOuterScopeAndNoOpsets) {
  ModelProto model = ParseText(kControlFlow);
  GraphProto then_branch = SubgraphOf(*model.mutable_graph(), "y", "then_branch");
  GraphBuilder builder(then_branch, Names{"t", "w", "unused"});
  EXPECT_TRUE(builder.IsRoot());
  EXPECT_EQ(builder.OuterScope().Names(), (Names{"t", "unused", "w"}));
  EXPECT_EQ(builder.OuterScopeReads(), (Names{"t", "w"}));
  EXPECT_TRUE(builder.OpsetImports().empty());
  EXPECT_EQ(builder.ToModel().graph().SerializeAsString(), then_branch.SerializeAsString());
  // A generated name must not shadow an outer one.
  EXPECT_EQ(builder.UniqueName("unused"), "unused_1");
}

TEST(GraphBuilder, OpsetVersionTreatsEmptyAndAiOnnxAlike) {
  GraphBuilder builder(ParseText(kControlFlow));
  EXPECT_EQ(builder.OpsetVersion(""), 17);
  EXPECT_EQ(builder.OpsetVersion("ai.onnx"), 17);
  EXPECT_EQ(builder.OpsetVersion("com.custom"), 2);
  EXPECT_EQ(builder.OpsetVersion("com.other"), std::nullopt);
  EXPECT_EQ(builder.Subgraphs().front()->OpsetVersion("ai.onnx"), 17);
}

TEST(GraphBuilder, AnswersValueQueries) {
  GraphBuilder builder(ParseText(kControlFlow));
  EXPECT_TRUE(builder.IsGraphInput("x"));
  EXPECT_FALSE(builder.IsGraphInput("t"));
  EXPECT_TRUE(builder.IsGraphOutput("z"));
  EXPECT_FALSE(builder.IsGraphOutput("x"));
  ASSERT_NE(builder.Initializer("w"), nullptr);
  EXPECT_EQ(builder.Initializer("w")->float_data_size(), 2);
  EXPECT_EQ(builder.Initializer("t"), nullptr);
}

// --- Names -------------------------------------------------------------------------

TEST(NameGenerator, NeverReturnsAUsedOrReturnedName) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "local" : 1]>
    g (float[2] v) => (float[2] y) {
      v_1 = Neg(v)
      y = If(c) <then_branch = g1 () => (float[2] v_2) { v_2 = local.F(v_1) },
                 else_branch = g2 () => (float[2] e) { e = Identity(v_1) }>
    }
    <domain: "local", opset_import: ["" : 17]>
    F (a) => (b) { v_3 = Neg(a) b = Neg(v_3) })ONNX");
  model.mutable_graph()->mutable_node(0)->set_name("v_4");
  SubgraphOf(*model.mutable_graph(), "y", "else_branch").mutable_node(0)->set_name("v_5");
  model.mutable_functions(0)->mutable_node(1)->set_name("v_6");
  GraphBuilder builder(std::move(model));

  EXPECT_EQ(builder.UniqueName("v"), "v_7");
  EXPECT_EQ(builder.UniqueName("v"), "v_8");
  EXPECT_EQ(builder.UniqueName("fresh"), "fresh");
  EXPECT_EQ(builder.UniqueName("fresh"), "fresh_1");
  // Nested builders share the root's generator.
  EXPECT_EQ(builder.Subgraphs().front()->UniqueName("v"), "v_9");
  for (const char* used : {"v", "v_1", "v_2", "v_3", "v_4", "v_5", "v_6", "a", "b", "e", "c"})
    EXPECT_TRUE(builder.Names().IsUsed(used)) << used;
}

TEST(NameGenerator, ReservedNamesAreSkipped) {
  NameGenerator names;
  names.Reserve("p_1");
  EXPECT_EQ(names.Unique(""), "_1");
  names.Reserve("p");
  EXPECT_EQ(names.Unique("p"), "p_2");
  names.Reserve("p_3");
  EXPECT_EQ(names.Unique("p"), "p_4");
}

// --- Nested graphs -----------------------------------------------------------------

TEST(GraphBuilder, SubgraphsHavePathsAndOuterScopes) {
  GraphBuilder builder(ParseText(kControlFlow));
  const std::vector<GraphBuilder*> nested = builder.Subgraphs();
  EXPECT_THAT(Paths(nested), ElementsAre("y:then_branch", "y:else_branch", "z:body"));
  EXPECT_EQ(nested[0]->Parent(), &builder);
  EXPECT_EQ(nested[0]->OuterScope().Names(), (Names{"c", "n", "t", "w", "x", "y", "z"}));
  EXPECT_EQ(nested[0]->OuterScopeReads(), (Names{"t", "w"}));
  EXPECT_TRUE(nested[1]->OuterScopeReads().empty());

  GraphBuilder* body = nested[2];
  EXPECT_EQ(body->OuterScopeReads(), (Names{"y"}));  // through the inner If
  const std::vector<GraphBuilder*> inner = body->Subgraphs();
  EXPECT_THAT(Paths(inner), ElementsAre("z:body/acc_out:then_branch", "z:body/acc_out:else_branch"));
  EXPECT_TRUE(inner[0]->OuterScope().Contains("acc"));
  EXPECT_TRUE(inner[0]->OuterScope().Contains("t"));
  EXPECT_EQ(inner[0]->OuterScopeReads(), (Names{"acc", "y"}));
  EXPECT_EQ(inner[0]->Path().size(), 2u);
}

TEST(GraphBuilder, EnclosingNamesAreLevelsOverTheEnclosingOnes) {
  const EnclosingNames none;
  EXPECT_FALSE(none.Contains("a"));
  EXPECT_TRUE(none.Names().empty());
  EXPECT_TRUE(EnclosingNames(Names{}).Names().empty());

  const EnclosingNames outer(Names{"a", "b"});
  const EnclosingNames inner({"c", "a"}, outer);
  EXPECT_TRUE(inner.Contains("a"));
  EXPECT_TRUE(inner.Contains("b"));
  EXPECT_TRUE(inner.Contains("c"));
  EXPECT_FALSE(inner.Contains("d"));
  EXPECT_EQ(inner.Names(), (Names{"a", "b", "c"}));
  // A level does not change the levels it is over.
  EXPECT_FALSE(outer.Contains("c"));
  EXPECT_EQ(outer.Names(), (Names{"a", "b"}));
  const EnclosingNames over_nothing({"x"}, none);
  EXPECT_EQ(over_nothing.Names(), (Names{"x"}));
}

TEST(GraphBuilder, SubgraphsAreCachedAndDroppedWithTheirNode) {
  GraphBuilder builder(ParseText(kControlFlow));
  const std::vector<GraphBuilder*> first = builder.Subgraphs();
  EXPECT_EQ(builder.Subgraphs(), first);
  EXPECT_EQ(builder.SubgraphsOf(builder.Nodes().Get(1)), (std::vector<GraphBuilder*>{first[0], first[1]}));
  EXPECT_TRUE(builder.SubgraphsOf(builder.Nodes().Get(0)).empty());

  builder.Nodes().DeleteSubrange(1, 1);  // the If
  EXPECT_THAT(Paths(builder.Subgraphs()), ElementsAre("z:body"));
}

TEST(GraphBuilder, GraphsAttributeKeysCarryTheIndex) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "custom" : 1]>
    g (float[2] x) => (float[2] y) { y = custom.Switch(x) })ONNX");
  AttributeProto* attr = model.mutable_graph()->mutable_node(0)->add_attribute();
  attr->set_name("branches");
  attr->set_type(AttributeProto::GRAPHS);
  attr->add_graphs()->set_name("first");
  attr->add_graphs()->set_name("second");
  GraphBuilder builder(std::move(model));
  EXPECT_THAT(Paths(builder.Subgraphs()), ElementsAre("y:branches[0]", "y:branches[1]"));
}

TEST(GraphBuilder, NestedBuilderEditsTheModelInPlace) {
  GraphBuilder builder(ParseText(kControlFlow));
  GraphBuilder* then_branch = builder.Subgraphs().front();
  NodeProto* node = then_branch->Nodes().Add();
  node->set_op_type("Relu");
  node->add_input("a");
  node->add_output(then_branch->UniqueName("relu"));
  ModelProto model = builder.ToModel();
  EXPECT_THAT(NodeLines(SubgraphOf(*model.mutable_graph(), "y", "then_branch")),
              ElementsAre("a = Add(t, w)", "relu = Relu(a)"));
}

TEST(GraphBuilder, ReferencedSubgraphsListOnlyGraphsReadingOuterValues) {
  GraphBuilder builder(ParseText(kControlFlow));
  const auto referenced = builder.ReferencedSubgraphs();
  ASSERT_EQ(referenced.size(), 2u);
  EXPECT_EQ(referenced[0].first->PathString(), "y:then_branch");
  EXPECT_EQ(referenced[0].second, (Names{"t", "w"}));
  EXPECT_EQ(referenced[1].first->PathString(), "z:body");
  EXPECT_EQ(referenced[1].second, (Names{"y"}));
}

// --- RenameUses --------------------------------------------------------------------

TEST(GraphBuilder, RenameUsesReachesNestedReadsButNotOwnOutputs) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x, bool c) => (float[2] t, float[2] y) {
      t = Neg(x)
      u = Abs(x)
      y = If(c) <then_branch = g1 () => (float[2] t) { },
                 else_branch = g2 () => (float[2] e) { e = Add(t, t) }>
    })ONNX");
  model.mutable_graph()->add_value_info()->set_name("t");
  model.mutable_graph()->add_value_info()->set_name("u");
  GraphBuilder builder(std::move(model));
  builder.RenameUses("t", "u");

  GraphProto& graph = builder.Graph();
  EXPECT_THAT(::onnxopt::testing::OutputNames(graph), ElementsAre("t", "y"));
  EXPECT_THAT(::onnxopt::testing::OutputNames(SubgraphOf(graph, "y", "then_branch")), ElementsAre("u"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "else_branch")), ElementsAre("e = Add(u, u)"));
  ASSERT_EQ(graph.value_info_size(), 1);
  EXPECT_EQ(graph.value_info(0).name(), "u");
}

TEST(GraphBuilder, RenameUsesStopsWhereANestedGraphRedefinesTheName) {
  // Shadowing is invalid ONNX, but an unchecked model may contain it.
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x, bool c) => (float[2] y) {
      t = Neg(x)
      y = If(c) <then_branch = g1 () => (float[2] r) { t = Abs(x) r = Add(t, t) },
                 else_branch = g2 () => (float[2] e) { e = Add(t, x) }>
    })ONNX"));
  builder.RenameUses({{"t", "u"}, {"x", "x2"}});
  GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("t = Abs(x2)", "r = Add(t, t)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "else_branch")), ElementsAre("e = Add(u, x2)"));
}

TEST(GraphBuilder, RenameUsesInGivenReadersVisitsOnlyThose) {
  // The caller names the readers (copy elimination knows them from its analysis): a
  // reader left out keeps the old name; a named one is renamed, in its nested graphs too.
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2] x, bool c) => (float[2] y, float[2] z) {
      t = Neg(x)
      z = Abs(t)
      y = If(c) <then_branch = g1 () => (float[2] r) { r = Neg(t) },
                 else_branch = g2 () => (float[2] e) { e = Add(t, t) }>
    })ONNX");
  model.mutable_graph()->add_value_info()->set_name("t");
  GraphBuilder builder(std::move(model));
  const NodeProto& if_node = builder.Nodes().Get(2);
  builder.RenameUses("t", "x", {&if_node});

  GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(graph), ElementsAre("t = Neg(x)", "z = Abs(t)", "y = If(c)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("r = Neg(x)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "else_branch")), ElementsAre("e = Add(x, x)"));
  EXPECT_EQ(graph.value_info_size(), 0);
}

// --- Local functions -------------------------------------------------------------

// intermediate.NegAbs (X) => (Y) { <tmp> = Abs(X)  Y = Neg(<tmp>) }, importing `imports`.
FunctionProto NegAbs(const std::string& tmp = "A", std::vector<std::pair<std::string, int>> imports = {{"", 17}}) {
  FunctionProto function;
  function.set_domain("intermediate");
  function.set_name("NegAbs");
  function.add_input("X");
  function.add_output("Y");
  for (const auto& [domain, version] : imports) {
    OperatorSetIdProto& opset = *function.add_opset_import();
    opset.set_domain(domain);
    opset.set_version(version);
  }
  NodeProto& abs = *function.add_node();
  abs.set_op_type("Abs");
  abs.add_input("X");
  abs.add_output(tmp);
  NodeProto& neg = *function.add_node();
  neg.set_op_type("Neg");
  neg.add_input(tmp);
  neg.add_output("Y");
  return function;
}

std::vector<std::string> Imports(const GraphBuilder& builder) {
  std::vector<std::string> imports;
  for (const OperatorSetIdProto& opset : builder.OpsetImports())
    imports.push_back(opset.domain() + ":" + std::to_string(opset.version()));
  return imports;
}

TEST(GraphBuilder, GetOrAddFunctionAddsAFunctionOnceWithItsImports) {
  GraphBuilder builder(ParseText(kControlFlow));
  EXPECT_EQ(builder.FindFunction("intermediate", "NegAbs"), nullptr);
  const FunctionProto& added = builder.GetOrAddFunction(NegAbs("tmp_in_body", {{"", 17}, {"com.microsoft", 1}}));
  ASSERT_EQ(builder.Functions().size(), 1);
  EXPECT_EQ(&added, &builder.Functions().Get(0));
  EXPECT_EQ(builder.FindFunction("intermediate", "NegAbs"), &added);
  EXPECT_EQ(builder.FindFunction("intermediate", "Other"), nullptr);
  EXPECT_EQ(builder.FindFunction("", "NegAbs"), nullptr);
  // The function's domain at version 1, then what its body imports that the model lacks.
  EXPECT_THAT(Imports(builder), ElementsAre(":17", "com.custom:2", "intermediate:1", "com.microsoft:1"));
  // The body's names are taken: a new value never collides with them.
  EXPECT_TRUE(builder.Names().IsUsed("tmp_in_body"));
  EXPECT_NE(builder.UniqueName("tmp_in_body"), "tmp_in_body");

  // The same content again: the existing function, nothing added.
  const FunctionProto& again = builder.GetOrAddFunction(NegAbs("tmp_in_body", {{"", 17}, {"com.microsoft", 1}}));
  EXPECT_EQ(&again, &added);
  EXPECT_EQ(builder.Functions().size(), 1);
  EXPECT_EQ(builder.OpsetImports().size(), 4);
}

TEST(GraphBuilder, NestedBuildersAddFunctionsToTheModel) {
  GraphBuilder builder(ParseText(kControlFlow));
  GraphBuilder* then_branch = builder.Subgraphs().at(0);
  ASSERT_FALSE(then_branch->IsRoot());
  const FunctionProto& added = then_branch->GetOrAddFunction(NegAbs());
  EXPECT_EQ(builder.FindFunction("intermediate", "NegAbs"), &added);
  EXPECT_EQ(then_branch->FindFunction("intermediate", "NegAbs"), &added);
  const ModelProto model = std::move(builder).TakeModel();
  ASSERT_EQ(model.functions_size(), 1);
  EXPECT_EQ(model.opset_import(2).domain(), "intermediate");
}

TEST(GraphBuilder, GetOrAddFunctionRefusesAnotherBodyUnderAnExistingKey) {
  GraphBuilder builder(ParseText(kControlFlow));
  builder.GetOrAddFunction(NegAbs("A"));
  const std::string before = Serialized(builder.ToModel());
  try {
    builder.GetOrAddFunction(NegAbs("B"));
    ADD_FAILURE() << "no error";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("already has local function 'intermediate.NegAbs' with another "
                                                   "content (node 0 (Abs vs Abs))"));
  }
  FunctionProto more_inputs = NegAbs("A");
  more_inputs.add_input("Z");
  EXPECT_THROW(
      {
        try {
          builder.GetOrAddFunction(more_inputs);
        } catch (const BuilderError& error) {
          EXPECT_THAT(error.what(), ::testing::HasSubstr("inputs (X) vs (X, Z)"));
          throw;
        }
      },
      BuilderError);
  EXPECT_EQ(Serialized(builder.ToModel()), before) << "a refused function changes nothing";
}

TEST(GraphBuilder, GetOrAddFunctionRefusesFunctionsTheModelCannotHold) {
  GraphBuilder builder(ParseText(kControlFlow));
  const std::string before = Serialized(builder.ToModel());
  FunctionProto unnamed = NegAbs();
  unnamed.clear_name();
  EXPECT_THROW(builder.GetOrAddFunction(unnamed), BuilderError);
  FunctionProto onnx_domain = NegAbs();
  onnx_domain.set_domain("ai.onnx");
  EXPECT_THROW(builder.GetOrAddFunction(onnx_domain), BuilderError);
  try {
    builder.GetOrAddFunction(NegAbs("A", {{"", 18}}));
    ADD_FAILURE() << "no error";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("imports version 18 of operator set 'ai.onnx' but the model imports version 17"));
  }
  EXPECT_EQ(Serialized(builder.ToModel()), before);
}

TEST(GraphBuilder, RemoveFunctionsKeepsTheOthersInOrder) {
  GraphBuilder builder(ParseText(kControlFlow));
  for (const char* name : {"F0", "F1", "F2", "F3"}) {
    FunctionProto function = NegAbs();
    function.set_name(name);
    builder.GetOrAddFunction(std::move(function));
  }
  EXPECT_THROW(builder.RemoveFunctions({4}), BuilderError);
  EXPECT_THROW(builder.RemoveFunctions({1, 1}), BuilderError);
  EXPECT_EQ(builder.Functions().size(), 4);
  builder.RemoveFunctions({2, 0});
  ASSERT_EQ(builder.Functions().size(), 2);
  EXPECT_EQ(builder.Functions().Get(0).name(), "F1");
  EXPECT_EQ(builder.Functions().Get(1).name(), "F3");
}

// --- KeepIf ------------------------------------------------------------------------

TEST(KeepIf, KeepsOrderAndMovesPointers) {
  utils::RepeatedProtoField<TensorProto> field;
  for (const char* name : {"a", "b", "c", "d", "e"}) field.Add()->set_name(name);
  const TensorProto* c = &field.Get(2);
  EXPECT_EQ(KeepIf(field, [](const TensorProto& t) { return t.name() != "b" && t.name() != "d"; }), 2u);
  ASSERT_EQ(field.size(), 3);
  EXPECT_EQ(field.Get(0).name(), "a");
  EXPECT_EQ(&field.Get(1), c);
  EXPECT_EQ(field.Get(2).name(), "e");
}

}  // namespace
}  // namespace onnxopt::core::builder
