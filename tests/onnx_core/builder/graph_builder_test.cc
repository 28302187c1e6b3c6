#include "onnx_core/builder/graph_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

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
  EXPECT_EQ(builder.OuterScope(), (Names{"t", "unused", "w"}));
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
  EXPECT_EQ(nested[0]->OuterScope(), (Names{"c", "n", "t", "w", "x", "y", "z"}));
  EXPECT_EQ(nested[0]->OuterScopeReads(), (Names{"t", "w"}));
  EXPECT_TRUE(nested[1]->OuterScopeReads().empty());

  GraphBuilder* body = nested[2];
  EXPECT_EQ(body->OuterScopeReads(), (Names{"y"}));  // through the inner If
  const std::vector<GraphBuilder*> inner = body->Subgraphs();
  EXPECT_THAT(Paths(inner), ElementsAre("z:body/acc_out:then_branch", "z:body/acc_out:else_branch"));
  EXPECT_TRUE(inner[0]->OuterScope().contains("acc"));
  EXPECT_TRUE(inner[0]->OuterScope().contains("t"));
  EXPECT_EQ(inner[0]->OuterScopeReads(), (Names{"acc", "y"}));
  EXPECT_EQ(inner[0]->Path().size(), 2u);
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

// --- ConstantNodeValue -------------------------------------------------------------

NodeProto ConstantNode(const std::string& attributes) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g () => (float[2] y) { y = Constant <)ONNX" + attributes + R"ONNX(> () })ONNX");
  return model.graph().node(0);
}

std::string Bytes(const TensorProto& tensor) { return tensor.raw_data(); }

template <class T>
std::string BytesOf(std::initializer_list<T> values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.begin(), bytes.size());
  return bytes;
}

TEST(ConstantNodeValue, ReadsEveryDenseForm) {
  auto value = GraphBuilder::ConstantNodeValue(ConstantNode("value = float[2] {1.0, 2.0}"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->name(), "y");
  EXPECT_THAT(value->float_data(), ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(value->dims(), ElementsAre(2));

  value = GraphBuilder::ConstantNodeValue(ConstantNode("value_float = 1.5"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->data_type(), TensorProto::FLOAT);
  EXPECT_EQ(value->dims_size(), 0);
  EXPECT_THAT(value->float_data(), ElementsAre(1.5f));

  value = GraphBuilder::ConstantNodeValue(ConstantNode("value_floats = [1.5, 2.5, 3.5]"));
  ASSERT_TRUE(value);
  EXPECT_THAT(value->dims(), ElementsAre(3));
  EXPECT_THAT(value->float_data(), ElementsAre(1.5f, 2.5f, 3.5f));

  value = GraphBuilder::ConstantNodeValue(ConstantNode("value_int = 7"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->data_type(), TensorProto::INT64);
  EXPECT_EQ(value->dims_size(), 0);
  EXPECT_THAT(value->int64_data(), ElementsAre(7));

  value = GraphBuilder::ConstantNodeValue(ConstantNode("value_ints = [4, 5]"));
  ASSERT_TRUE(value);
  EXPECT_THAT(value->dims(), ElementsAre(2));
  EXPECT_THAT(value->int64_data(), ElementsAre(4, 5));

  value = GraphBuilder::ConstantNodeValue(ConstantNode(R"(value_string = "hi")"));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->data_type(), TensorProto::STRING);
  EXPECT_EQ(value->dims_size(), 0);
  EXPECT_THAT(value->string_data(), ElementsAre("hi"));

  value = GraphBuilder::ConstantNodeValue(ConstantNode(R"(value_strings = ["a", "b"])"));
  ASSERT_TRUE(value);
  EXPECT_THAT(value->dims(), ElementsAre(2));
  EXPECT_THAT(value->string_data(), ElementsAre("a", "b"));
}

// A Constant node holding a sparse tensor of dense shape `dims`, whose values are
// `values` (FLOAT) at `indices` (INT64, of shape `index_dims`).
NodeProto SparseConstant(std::vector<std::int64_t> dims, std::vector<float> values,
                         std::vector<std::int64_t> index_dims, std::vector<std::int64_t> indices) {
  NodeProto node;
  node.set_op_type("Constant");
  node.add_output("s");
  AttributeProto* attr = node.add_attribute();
  attr->set_name("sparse_value");
  attr->set_type(AttributeProto::SPARSE_TENSOR);
  SparseTensorProto* sparse = attr->mutable_sparse_tensor();
  for (std::int64_t dim : dims) sparse->add_dims(dim);
  sparse->mutable_values()->set_data_type(TensorProto::FLOAT);
  sparse->mutable_values()->add_dims(static_cast<std::int64_t>(values.size()));
  for (float v : values) sparse->mutable_values()->add_float_data(v);
  sparse->mutable_indices()->set_data_type(TensorProto::INT64);
  for (std::int64_t dim : index_dims) sparse->mutable_indices()->add_dims(dim);
  for (std::int64_t i : indices) sparse->mutable_indices()->add_int64_data(i);
  return node;
}

TEST(ConstantNodeValue, DensifiesLinearSparseIndices) {
  const auto value = GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f, 6.0f}, {2}, {1, 5}));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->name(), "s");
  EXPECT_EQ(value->data_type(), TensorProto::FLOAT);
  EXPECT_THAT(value->dims(), ElementsAre(2, 3));
  EXPECT_EQ(Bytes(*value), BytesOf<float>({0, 5, 0, 0, 0, 6}));
}

TEST(ConstantNodeValue, DensifiesCoordinateSparseIndices) {
  const auto value =
      GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f, 6.0f}, {2, 2}, {0, 2, 1, 0}));
  ASSERT_TRUE(value);
  EXPECT_EQ(Bytes(*value), BytesOf<float>({0, 0, 5, 6, 0, 0}));
}

TEST(ConstantNodeValue, DensifiesAnAllZeroSparseTensor) {
  const auto value = GraphBuilder::ConstantNodeValue(SparseConstant({3}, {}, {0}, {}));
  ASSERT_TRUE(value);
  EXPECT_EQ(Bytes(*value), BytesOf<float>({0, 0, 0}));
}

TEST(ConstantNodeValue, DensifiesSparseStrings) {
  NodeProto node = SparseConstant({3}, {}, {1}, {2});
  TensorProto* values = node.mutable_attribute(0)->mutable_sparse_tensor()->mutable_values();
  values->set_data_type(TensorProto::STRING);
  values->set_dims(0, 1);
  values->add_string_data("last");
  const auto value = GraphBuilder::ConstantNodeValue(node);
  ASSERT_TRUE(value);
  EXPECT_THAT(value->string_data(), ElementsAre("", "", "last"));
}

TEST(ConstantNodeValue, RejectsInvalidSparseTensors) {
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1}, {6})));          // past the end
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1}, {-1})));         // negative
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1, 2}, {0, 3})));    // column 3 of 3
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f}, {1, 3}, {0, 0, 0})));  // rank 3
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2, 3}, {5.0f, 6.0f}, {1}, {0})));    // NNZ mismatch
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2, -3}, {5.0f}, {1}, {0})));         // negative dim
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({2}, {1, 2, 3}, {3}, {0, 1, 1})));    // NNZ > size
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(SparseConstant({1 << 30, 1 << 30}, {5.0f}, {1}, {0})));  // too big
}

TEST(ConstantNodeValue, RejectsNodesThatAreNoValidConstant) {
  NodeProto custom_domain = ConstantNode("value_int = 1");
  custom_domain.set_domain("custom");
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(custom_domain));

  EXPECT_TRUE(GraphBuilder::ConstantNodeValue([] {
    NodeProto node = ConstantNode("value_int = 1");
    node.set_domain("ai.onnx");
    return node;
  }()));
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(ConstantNode("value_int = 1, value_float = 2.0")));

  NodeProto reference = ConstantNode("value_int = 1");
  reference.mutable_attribute(0)->set_ref_attr_name("outer");
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(reference));

  // value_float declared as INT (an exporter bug onnxruntime accepts): the declared type
  // decides, as in onnxruntime, which produces an int64 scalar.
  NodeProto int_named_float = ConstantNode("value_int = 1");
  int_named_float.mutable_attribute(0)->set_name("value_float");
  auto int_value = GraphBuilder::ConstantNodeValue(int_named_float);
  ASSERT_TRUE(int_value);
  EXPECT_EQ(int_value->data_type(), TensorProto::INT64);
  EXPECT_EQ(int_value->dims_size(), 0);

  NodeProto wrong_type = ConstantNode("value_string = \"a\"");
  wrong_type.mutable_attribute(0)->set_name("value_float");
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(wrong_type));

  NodeProto neg = ConstantNode("value_int = 1");
  neg.set_op_type("Neg");
  EXPECT_FALSE(GraphBuilder::ConstantNodeValue(neg));
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
