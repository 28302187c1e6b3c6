#include "onnx_core/passes/cleanup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/onnx_core/builder/builder_test_helpers.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::builder {
namespace {

using ::onnxopt::testing::InitializerNames;
using ::onnxopt::testing::NodeLines;
using ::onnxopt::testing::ParseText;
using ::onnxopt::testing::SubgraphOf;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "path: from -> to", the path left out for the main graph.
std::vector<std::string> RenameLines(const CleanupResult& result) {
  std::vector<std::string> lines;
  for (const ValueRename& rename : result.renames)
    lines.push_back((rename.graph_path.empty() ? "" : rename.graph_path + ": ") + rename.from + " -> " + rename.to);
  return lines;
}

std::string Header() { return R"(<ir_version: 8, opset_import: ["" : 17, "custom" : 1]>)"; }

GraphBuilder Parse(const std::string& graph) { return GraphBuilder(ParseText(Header() + graph)); }

// A FLOAT initializer stored in raw_data.
void AddRawInitializer(GraphProto& graph, const std::string& name, std::vector<float> values,
                       std::vector<std::int64_t> dims) {
  TensorProto* tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(TensorProto::FLOAT);
  for (std::int64_t dim : dims) tensor->add_dims(dim);
  tensor->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

// --- RemoveIdentityNodes -----------------------------------------------------------

TEST(RemoveIdentityNodes, CollapsesAChainIntoItsSource) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      a = Neg(x)
      b = Identity(a)
      c = Identity(b)
      y = Relu(c)
    })");
  const CleanupResult result = RemoveIdentityNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Neg(x)", "y = Relu(a)"));
  EXPECT_EQ(result.removed_nodes, 2u);
  EXPECT_EQ(result.removed_initializers, 0u);
  EXPECT_THAT(RenameLines(result), ElementsAre("b -> a", "c -> a"));
  EXPECT_EQ(result.ToString(), "RemoveIdentityNodes: removed 2 nodes, 0 initializers, 2 renames");
  EXPECT_EQ(result.kept_identities, 0u);
}

// The caller names the Identity nodes and the readers: the same graph and result as the
// whole-graph pass, and only the readers given are renamed.
TEST(RemoveIdentityNodesAmong, RemovesTheNamedIdentitiesAndRenamesTheirReaders) {
  const std::string chain = R"(g (float[2] x) => (float[2] y) {
      a = Neg(x)
      b = Identity(a)
      c = Identity(b)
      y = Relu(c)
    })";
  GraphBuilder whole = Parse(chain), local = Parse(chain);
  const CleanupResult expected = RemoveIdentityNodes(whole);
  auto& nodes = local.Nodes();
  const std::vector<const NodeProto*> identities{&nodes.Get(1), &nodes.Get(2)};
  const std::vector<NodeProto*> relu{nodes.Mutable(3)}, none;
  const CleanupResult result =
      RemoveIdentityNodesAmong(local, identities, [&](const std::string& value) -> const std::vector<NodeProto*>& {
        return value == "c" ? relu : none;
      });
  EXPECT_THAT(NodeLines(local.Graph()), ElementsAre("a = Neg(x)", "y = Relu(a)"));
  EXPECT_EQ(result.ToString(), expected.ToString());
  EXPECT_THAT(RenameLines(result), ElementsAre("b -> a", "c -> a"));
}

TEST(RemoveIdentityNodesAmong, RefusesAnIdentityWritingAGraphOutput) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      a = Neg(x)
      y = Identity(a)
    })");
  const std::vector<const NodeProto*> identities{&builder.Nodes().Get(1)};
  const std::vector<NodeProto*> none;
  EXPECT_THROW(RemoveIdentityNodesAmong(builder, identities,
                                        [&](const std::string&) -> const std::vector<NodeProto*>& { return none; }),
               BuilderError);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Neg(x)", "y = Identity(a)"));
}

// The removal of nodes and initializers found unused elsewhere, reported as the pass.
TEST(RemoveUnusedElements, RemovesWhatItIsToldAsTheUnusedNodePass) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> {
      a = Add(x, w)
      y = Neg(x)
    })");
  const NodeProto* add = &builder.Nodes().Get(0);
  const CleanupResult result = RemoveUnusedElements(
      builder, [&](const NodeProto& node) { return &node == add; },
      [](const TensorProto& initializer) { return initializer.name() == "w"; });
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("y = Neg(x)"));
  EXPECT_THAT(InitializerNames(builder.Graph()), IsEmpty());
  EXPECT_EQ(result.ToString(), "RemoveUnusedNodes: removed 1 nodes, 1 initializers, 0 renames");
}

TEST(RemoveIdentityNodes, LetsTheProducerWriteTheGraphOutput) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y, float[2] z) {
      a = Neg(x)
      b = Identity(a)
      y = Identity(b)
      z = Relu(a)
    })");
  const CleanupResult result = RemoveIdentityNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("y = Neg(x)", "z = Relu(y)"));
  EXPECT_EQ(result.removed_nodes, 2u);
  EXPECT_THAT(RenameLines(result), ElementsAre("b -> y", "a -> y"));
  EXPECT_THAT(::onnxopt::testing::OutputNames(builder.Graph()), ElementsAre("y", "z"));
}

TEST(RemoveIdentityNodes, KeepsIdentitiesThatDefineAGraphOutput) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y, float[2] a, float[2] z, float[2] v1, float[2] v2, float[2] i) <float[2] w = {1.0, 2.0}> {
      y = Identity(x)
      a = Neg(x)
      z = Identity(a)
      v = Abs(x)
      v1 = Identity(v)
      v2 = Identity(v)
      i = Identity(w)
    })");
  const CleanupResult result = RemoveIdentityNodes(builder);
  // input -> output, output -> output, the second copy of one value, initializer -> output
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("y = Identity(x)", "a = Neg(x)", "z = Identity(a)",
                                                      "v1 = Abs(x)", "v2 = Identity(v1)", "i = Identity(w)"));
  EXPECT_EQ(result.removed_nodes, 1u);
  EXPECT_THAT(RenameLines(result), ElementsAre("v -> v1"));
  EXPECT_EQ(result.kept_identities, 4u);  // what tells the optimizer the pass may find more
}

TEST(RemoveIdentityNodes, KeepsIdentityWithoutInput) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) { e = Identity() y = Add(x, e) })");
  EXPECT_FALSE(RemoveIdentityNodes(builder).Changed());
}

constexpr const char* kIdentityFeedsBranches = R"(g (float[2] x, bool c) => (float[2] y) {
    a = Neg(x)
    b = Identity(a)
    y = If(c) <
      then_branch = g1 () => (float[2] r) { t = Identity(b) r = Neg(t) },
      else_branch = g2 () => (float[2] r2) { r2 = Identity(b) }>
  })";

TEST(RemoveIdentityNodes, RenamesReadsInsideNestedGraphs) {
  GraphBuilder builder = Parse(kIdentityFeedsBranches);
  const CleanupResult result = RemoveIdentityNodes(builder);
  GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(graph), ElementsAre("a = Neg(x)", "y = If(c)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("r = Neg(a)"));
  // The branch output is defined by its Identity of an outer value: kept, input renamed.
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "else_branch")), ElementsAre("r2 = Identity(a)"));
  EXPECT_EQ(result.removed_nodes, 2u);
  EXPECT_THAT(RenameLines(result), ElementsAre("y:then_branch: t -> b", "b -> a"));
}

TEST(RemoveIdentityNodes, RenamesNestedReadsWhenTheProducerTakesTheOutputName) {
  GraphBuilder builder = Parse(R"(g (float[2] x, bool c) => (float[2] y, float[2] o) {
      a = Neg(x)
      o = Identity(a)
      y = If(c) <then_branch = g1 () => (float[2] r) { r = Neg(a) },
                 else_branch = g2 () => (float[2] s) { s = Abs(a) }>
    })");
  RemoveIdentityNodes(builder);
  GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(graph), ElementsAre("o = Neg(x)", "y = If(c)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("r = Neg(o)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "else_branch")), ElementsAre("s = Abs(o)"));
}

// --- RemoveUnusedNodes -------------------------------------------------------------

TEST(RemoveUnusedNodes, RemovesDeadNodesAndInitializers) {
  GraphBuilder builder = Parse(R"(g (float[2] x, float[2] overridable) => (float[2] y)
      <float[2] w = {1.0, 2.0}, float[2] unused = {3.0, 4.0}, float[2] overridable = {5.0, 6.0}> {
      a = Mul(x, w)
      d = Relu(x)
      e = Add(d, unused)
      y = Sigmoid(a)
    })");
  const CleanupResult result = RemoveUnusedNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Mul(x, w)", "y = Sigmoid(a)"));
  // The initializer that is also a graph input belongs to the interface: kept.
  EXPECT_THAT(InitializerNames(builder.Graph()), ElementsAre("w", "overridable"));
  EXPECT_EQ(result.removed_nodes, 2u);
  EXPECT_EQ(result.removed_initializers, 1u);
  EXPECT_THAT(result.renames, IsEmpty());
}

TEST(RemoveUnusedNodes, KeepsNodesWithOneLiveOutputAndDropsNodesWithoutOutputs) {
  GraphBuilder builder = Parse(R"(g (float[4] x) => (float[2] y) {
      y, z = Split(x)
    })");
  NodeProto* print = builder.Nodes().Add();
  print->set_op_type("Print");
  print->set_domain("custom");
  print->add_input("x");
  const CleanupResult result = RemoveUnusedNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("y, z = Split(x)"));
  EXPECT_EQ(result.removed_nodes, 1u);
}

TEST(RemoveUnusedNodes, RemovesUnusedSparseInitializers) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) { y = Add(x, s1) })");
  for (const char* name : {"s1", "s2"}) {
    SparseTensorProto* sparse = builder.Graph().add_sparse_initializer();
    sparse->mutable_values()->set_name(name);
    sparse->add_dims(2);
  }
  const CleanupResult result = RemoveUnusedNodes(builder);
  ASSERT_EQ(builder.Graph().sparse_initializer_size(), 1);
  EXPECT_EQ(builder.Graph().sparse_initializer(0).values().name(), "s1");
  EXPECT_EQ(result.removed_initializers, 1u);
}

TEST(RemoveUnusedNodes, KeepsValuesReadByNestedGraphsAndCleansThem) {
  GraphBuilder builder = Parse(R"(g (float[2] x, bool c, int64 n) => (float[2] y, float[2] z) <float[2] w = {1.0, 2.0}> {
      v = Neg(x)
      dead_outer = Abs(x)
      y = If(c) <
        then_branch = g1 () => (float[2] r) { unused = Relu(dead_outer) r = Add(v, w) },
        else_branch = g2 () => (float[2] s) { s = Identity(x) }>
      z = Loop(n, c, x) <body = body_g (int64 i, bool cond, float[2] acc) => (bool cond_out, float[2] acc_out) {
        cond_out = Identity(cond)
        junk = Neg(acc)
        acc_out = Add(acc, acc)
      }>
      dead_if = If(c) <then_branch = g3 () => (float[2] p) { p = Neg(v) },
                       else_branch = g4 () => (float[2] q) { q = Neg(v) }>
    })");
  const CleanupResult result = RemoveUnusedNodes(builder);
  GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(graph), ElementsAre("v = Neg(x)", "y = If(c)", "z = Loop(n, c, x)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("r = Add(v, w)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "z", "body")), ElementsAre("cond_out = Identity(cond)", "acc_out = Add(acc, acc)"));
  EXPECT_THAT(InitializerNames(graph), ElementsAre("w"));
  EXPECT_EQ(result.removed_nodes, 4u);  // unused, junk, dead_outer (no longer read), dead_if
}

// --- RemoveDuplicateNodes ----------------------------------------------------------

TEST(RemoveDuplicateNodes, MergesChainsInOneCall) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      a = Neg(x)
      b = Neg(x)
      c = Add(a, x)
      d = Add(b, x)
      e = Mul(c, x)
      f = Mul(d, x)
      y = Sub(e, f)
    })");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Neg(x)", "c = Add(a, x)", "e = Mul(c, x)", "y = Sub(e, e)"));
  EXPECT_EQ(result.removed_nodes, 3u);
  EXPECT_THAT(RenameLines(result), ElementsAre("b -> a", "d -> c", "f -> e"));
  EXPECT_FALSE(RemoveDuplicateNodes(builder).Changed());
}

TEST(RemoveDuplicateNodes, ComparesAttributesWhateverTheirOrder) {
  GraphBuilder builder = Parse(R"(g (float[2,2] x) => (float[2,2] y) {
      a = Gemm <alpha = 2.0, beta = 3.0> (x, x, x)
      b = Gemm <beta = 3.0, alpha = 2.0> (x, x, x)
      c = Gemm <beta = 3.0, alpha = 4.0> (x, x, x)
      d = Gemm <alpha = 2.0, beta = 3.0> (x, x)
      y = Sum(a, b, c, d)
    })");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Gemm(x, x, x)", "c = Gemm(x, x, x)", "d = Gemm(x, x)",
                                                      "y = Sum(a, a, c, d)"));
  EXPECT_EQ(result.removed_nodes, 1u);
}

// 0.0 == -0.0, but x / 0.0 and x / -0.0 are infinities of opposite signs: float attributes
// are the same only with the same bits (or both NaN).
TEST(RemoveDuplicateNodes, TellsTheSignOfAZeroAttribute) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      z1 = Constant <value_float = 0.0> ()
      z2 = Constant <value_float = -0.0> ()
      l1 = LeakyRelu <alpha = 0.0> (x)
      l2 = LeakyRelu <alpha = -0.0> (x)
      z3 = Constant <value_float = -0.0> ()
      y = Sum(z1, z2, l1, l2, z3)
    })");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  EXPECT_THAT(RenameLines(result), ElementsAre("z3 -> z2"));
  EXPECT_EQ(result.removed_nodes, 1u);
}

TEST(RemoveDuplicateNodes, MergesOnlyDeterministicOnnxOperators) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      r1 = RandomUniformLike(x)
      r2 = RandomUniformLike(x)
      d1 = Dropout(x)
      d2 = Dropout(x)
      c1 = custom.Op(x)
      c2 = custom.Op(x)
      y = Sum(r1, r2, d1, d2, c1, c2)
    })");
  EXPECT_FALSE(RemoveDuplicateNodes(builder).Changed());
  EXPECT_EQ(builder.Nodes().size(), 7);
}

TEST(RemoveDuplicateNodes, NeverRenamesAGraphOutput) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] a, float[2] b, float[2] y) {
      a = Neg(x)
      b = Neg(x)
      c = Neg(x)
      y = Add(b, c)
    })");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  // b is an output and stays; c merges into a (reading an output is fine).
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Neg(x)", "b = Neg(x)", "y = Add(b, a)"));
  EXPECT_THAT(RenameLines(result), ElementsAre("c -> a"));
}

TEST(RemoveDuplicateNodes, SkipsADuplicateWhoseOutputTheFirstDoesNotWrite) {
  GraphBuilder builder = Parse(R"(g (float[4] x) => (float[2] y) {
      p, unnamed = Split(x)
      q, r = Split(x)
      y = Add(p, r)
    })");
  builder.Nodes().Mutable(0)->set_output(1, "");
  EXPECT_FALSE(RemoveDuplicateNodes(builder).Changed());
}

// The first Split lacks an output the others write: the third merges into the second,
// and the pass leaves no two nodes that could merge (the optimizer's cleanup after a batch
// relies on that). Before, only the first equal node was tried, and all three stayed.
TEST(RemoveDuplicateNodes, MergesIntoTheFirstNodeThatHasItsOutputs) {
  GraphBuilder builder = Parse(R"(g (float[4] x) => (float[2] y) {
      p, unnamed = Split(x)
      q, r = Split(x)
      s, t = Split(x)
      y = Sum(p, q, r, s, t)
    })");
  builder.Nodes().Mutable(0)->set_output(1, "");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("p,  = Split(x)", "q, r = Split(x)", "y = Sum(p, q, r, q, r)"));
  EXPECT_THAT(RenameLines(result), ElementsAre("s -> q", "t -> r"));
  EXPECT_FALSE(RemoveDuplicateNodes(builder).Changed());
}

// A node writing a graph output is never merged away, but later equal nodes merge into it.
TEST(RemoveDuplicateNodes, MergesIntoANodeWritingAGraphOutput) {
  GraphBuilder builder = Parse(R"(g (float[4] x) => (float[2] q, float[2] y) {
      p, unnamed = Split(x)
      q, r = Split(x)
      s, t = Split(x)
      y = Sum(p, r, s, t)
    })");
  builder.Nodes().Mutable(0)->set_output(1, "");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("p,  = Split(x)", "q, r = Split(x)", "y = Sum(p, r, q, r)"));
  EXPECT_THAT(RenameLines(result), ElementsAre("s -> q", "t -> r"));
}

// Equal computations hash equally whatever the attribute order; a typed attribute hashes
// the field of its type, one without a type (older exporters) every field.
TEST(ComputationHash, FollowsWhatTheNodeComputes) {
  GraphBuilder builder = Parse(R"(g (float[2,2] x) => (float[2,2] y) {
      a = Gemm <alpha = 2.0, beta = 3.0, transA = 1> (x, x, x)
      b = Gemm <transA = 1, beta = 3.0, alpha = 2.0> (x, x, x)
      c = Gemm <alpha = 2.0, beta = 3.0, transA = 0> (x, x, x)
      d = Gemm <alpha = 2.5, beta = 3.0, transA = 1> (x, x, x)
      y = Sum(a, b, c, d)
    })");
  const auto& nodes = builder.Nodes();
  EXPECT_EQ(ComputationHash(nodes.Get(0)), ComputationHash(nodes.Get(1)));
  EXPECT_NE(ComputationHash(nodes.Get(0)), ComputationHash(nodes.Get(2)));
  EXPECT_NE(ComputationHash(nodes.Get(0)), ComputationHash(nodes.Get(3)));
  NodeProto untyped_a = nodes.Get(0), untyped_c = nodes.Get(2);
  for (NodeProto* node : {&untyped_a, &untyped_c})
    for (AttributeProto& attr : *node->mutable_attribute()) attr.set_type(AttributeProto::UNDEFINED);
  EXPECT_NE(ComputationHash(untyped_a), ComputationHash(untyped_c));
}

// A tensor attribute hashes its data wherever the tensor stores it (raw_data or a typed
// field): ConstantOfShape values in float_data all hashed alike, and 8 000 such nodes were
// compared pairwise at every cleanup.
TEST(ComputationHash, FollowsTheDataOfTensorAttributesInEveryField) {
  GraphBuilder builder = Parse(R"(g (int64[1] s) => (float[4] y) {
      a = ConstantOfShape <value = float[1] {1.0}> (s)
      b = ConstantOfShape <value = float[1] {2.0}> (s)
      c = ConstantOfShape <value = float[1] {1.0}> (s)
      y = Add(a, b)
    })");
  const auto& nodes = builder.Nodes();
  ASSERT_EQ(nodes.Get(0).attribute(0).t().float_data_size(), 1) << "the value sits in float_data";
  EXPECT_NE(ComputationHash(nodes.Get(0)), ComputationHash(nodes.Get(1)));
  EXPECT_EQ(ComputationHash(nodes.Get(0)), ComputationHash(nodes.Get(2)));
  NodeProto int64_a = nodes.Get(0), int64_b = nodes.Get(1);
  for (auto [node, value] : {std::pair{&int64_a, 7}, std::pair{&int64_b, 8}}) {
    TensorProto& tensor = *node->mutable_attribute(0)->mutable_t();
    tensor.clear_float_data();
    tensor.set_data_type(TensorProto::INT64);
    tensor.add_int64_data(value);
  }
  EXPECT_NE(ComputationHash(int64_a), ComputationHash(int64_b));
}

TEST(RemoveDuplicateNodes, MergesEqualConstants) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      k1 = Constant <value_floats = [1.0, 2.0]> ()
      k2 = Constant <value_floats = [1.0, 2.0]> ()
      k3 = Constant <value_floats = [1.0, 3.0]> ()
      y = Sum(k1, k2, k3)
    })");
  RemoveDuplicateNodes(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("k1 = Constant()", "k3 = Constant()", "y = Sum(k1, k1, k3)"));
}

TEST(RemoveDuplicateNodes, WorksInNestedGraphsAndSkipsControlFlow) {
  GraphBuilder builder = Parse(R"(g (float[2] x, bool c) => (float[2] y, float[2] z) {
      a = Neg(x)
      b = Neg(x)
      y = If(c) <then_branch = g1 () => (float[2] r) { p = Abs(b) q = Abs(b) r = Add(p, q) },
                 else_branch = g2 () => (float[2] s) { s = Neg(x) }>
      z = If(c) <then_branch = g3 () => (float[2] r) { p = Abs(b) q = Abs(b) r = Add(p, q) },
                 else_branch = g4 () => (float[2] s) { s = Neg(x) }>
    })");
  const CleanupResult result = RemoveDuplicateNodes(builder);
  GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(graph), ElementsAre("a = Neg(x)", "y = If(c)", "z = If(c)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("p = Abs(a)", "r = Add(p, p)"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "z", "then_branch")), ElementsAre("p = Abs(a)", "r = Add(p, p)"));
  EXPECT_EQ(result.removed_nodes, 3u);
  EXPECT_THAT(RenameLines(result), ElementsAre("y:then_branch: q -> p", "z:then_branch: q -> p", "b -> a"));
}

// The walk renames the inputs of the graph's nodes as it goes; a value merged away also
// leaves the graph's value_info.
TEST(RemoveDuplicateNodes, DropsTheValueInfoOfMergedValues) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) <float[2] a, float[2] b, float[2] c> {
      a = Neg(x)
      b = Neg(x)
      c = Abs(b)
      y = Add(a, c)
    })");
  RemoveDuplicateNodes(builder);
  const GraphProto& graph = builder.Graph();
  EXPECT_THAT(NodeLines(graph), ElementsAre("a = Neg(x)", "c = Abs(a)", "y = Add(a, c)"));
  std::vector<std::string> described;
  for (const ValueInfoProto& info : graph.value_info()) described.push_back(info.name());
  EXPECT_THAT(described, ElementsAre("a", "c"));
}

// As the optimizer calls it: once equal initializers are merged, their readers and what
// those feed compute the same.
TEST(RemoveDuplicateNodesReading, MergesTheReadersOfRedirectedValuesAndTheirConsumers) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) {
      a = Add(x, k1)
      b = Add(x, k2)
      c = Neg(a)
      d = Neg(b)
      e = Mul(c, x)
      f = Mul(d, x)
      y = Sum(e, f)
    })");
  AddRawInitializer(builder.Graph(), "k1", {1, 2}, {2});
  AddRawInitializer(builder.Graph(), "k2", {1, 2}, {2});
  ASSERT_FALSE(RemoveDuplicateNodes(builder, CleanupScope::kThisGraph).Changed());
  const CleanupResult merged = RemoveDuplicateInitializers(builder, CleanupScope::kThisGraph);
  ASSERT_THAT(RenameLines(merged), ElementsAre("k2 -> k1"));
  const CleanupResult result = RemoveDuplicateNodesReading(builder, {"k1"});
  EXPECT_EQ(result.pass, "RemoveDuplicateNodes");
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Add(x, k1)", "c = Neg(a)", "e = Mul(c, x)", "y = Sum(e, e)"));
  EXPECT_THAT(RenameLines(result), ElementsAre("b -> a", "d -> c", "f -> e"));
}

// Nodes that read none of the redirected values (nor what merged nodes wrote) are taken to
// have been compared already: the pass does not look at them.
TEST(RemoveDuplicateNodesReading, LeavesNodesThatReadNoRedirectedValue) {
  GraphBuilder builder = Parse(R"(g (float[2] x, float[2] z) => (float[2] y) {
      a = Neg(x)
      b = Neg(x)
      c = Abs(z)
      d = Abs(z)
      y = Sum(a, b, c, d)
    })");
  const CleanupResult reading_z = RemoveDuplicateNodesReading(builder, {"z"});
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Neg(x)", "b = Neg(x)", "c = Abs(z)", "y = Sum(a, b, c, c)"));
  EXPECT_THAT(RenameLines(reading_z), ElementsAre("d -> c"));
  EXPECT_FALSE(RemoveDuplicateNodesReading(builder, {}).Changed());
  EXPECT_TRUE(RemoveDuplicateNodes(builder, CleanupScope::kThisGraph).Changed());
}

// --- RemoveDuplicateInitializers ---------------------------------------------------

TEST(RemoveDuplicateInitializers, MergesEqualTypeShapeAndBytes) {
  GraphBuilder builder = Parse(R"(g (float[2] x, float[2] in) => (float[2] y, float[2] out) {
      y = Sum(x, w1, w2, w3, w4, w5, in, out, s1, s2, i1)
    })");
  GraphProto& graph = builder.Graph();
  AddRawInitializer(graph, "w1", {1, 2}, {2});
  AddRawInitializer(graph, "w2", {1, 2}, {2});
  AddRawInitializer(graph, "w3", {1, 3}, {2});     // other bytes
  AddRawInitializer(graph, "w4", {1, 2}, {1, 2});  // other shape
  TensorProto* typed = graph.add_initializer();    // same bytes, in float_data
  typed->set_name("w5");
  typed->set_data_type(TensorProto::FLOAT);
  typed->add_dims(2);
  typed->add_float_data(1);
  typed->add_float_data(2);
  AddRawInitializer(graph, "in", {1, 2}, {2});   // graph input
  AddRawInitializer(graph, "out", {1, 2}, {2});  // graph output
  for (const char* name : {"s1", "s2"}) {        // strings are not compared
    TensorProto* text = graph.add_initializer();
    text->set_name(name);
    text->set_data_type(TensorProto::STRING);
    text->add_string_data("same");
  }
  TensorProto* as_int = graph.add_initializer();  // same bytes, other type
  as_int->set_name("i1");
  as_int->set_data_type(TensorProto::INT32);
  as_int->add_dims(2);
  as_int->set_raw_data(graph.initializer(0).raw_data());

  const CleanupResult result = RemoveDuplicateInitializers(builder);
  EXPECT_THAT(InitializerNames(graph), ElementsAre("w1", "w3", "w4", "in", "out", "s1", "s2", "i1"));
  EXPECT_THAT(NodeLines(graph), ElementsAre("y = Sum(x, w1, w1, w3, w4, w1, in, out, s1, s2, i1)"));
  EXPECT_EQ(result.removed_initializers, 2u);
  EXPECT_EQ(result.removed_nodes, 0u);
  EXPECT_THAT(RenameLines(result), ElementsAre("w2 -> w1", "w5 -> w1"));
}

// Large tensors are told apart by their ends first: two that differ only in the middle
// must still be compared whole.
TEST(RemoveDuplicateInitializers, ComparesLargeTensorsWhole) {
  GraphBuilder builder = Parse(R"(g (float[100] x) => (float[100] y) {
      y = Sum(x, a, b, c, d)
    })");
  GraphProto& graph = builder.Graph();
  std::vector<float> values(100);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  std::vector<float> middle = values;
  middle[50] = -1;
  AddRawInitializer(graph, "a", values, {100});
  AddRawInitializer(graph, "b", middle, {100});  // same ends as a
  AddRawInitializer(graph, "c", middle, {100});
  AddRawInitializer(graph, "d", values, {100});

  const CleanupResult result = RemoveDuplicateInitializers(builder);
  EXPECT_THAT(InitializerNames(graph), ElementsAre("a", "b"));
  EXPECT_THAT(NodeLines(graph), ElementsAre("y = Sum(x, a, b, b, a)"));
  EXPECT_THAT(RenameLines(result), ElementsAre("c -> b", "d -> a"));
}

TEST(RemoveDuplicateInitializers, RenamesReadsInNestedGraphs) {
  GraphBuilder builder = Parse(R"(g (float[2] x, bool c) => (float[2] y) <float[2] w1 = {1.0, 2.0}, float[2] w2 = {1.0, 2.0}> {
      y = If(c) <then_branch = g1 () => (float[2] r) { r = Add(x, w2) },
                 else_branch = g2 () => (float[2] s) { s = Add(x, w1) }>
    })");
  RemoveDuplicateInitializers(builder);
  GraphProto& graph = builder.Graph();
  EXPECT_THAT(InitializerNames(graph), ElementsAre("w1"));
  EXPECT_THAT(NodeLines(SubgraphOf(graph, "y", "then_branch")), ElementsAre("r = Add(x, w1)"));
}

// --- RemoveUnusedFunctions ---------------------------------------------------------

// Calls: the main graph calls Used, which calls Inner; an If branch calls InBranch;
// Unused (never called) calls OnlyFromUnused.
constexpr const char* kFunctions = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
  g (float[2] x, bool c) => (float[2] y, float[2] z) {
    y = local.Used(x)
    z = If(c) <
      then_branch = then_g () => (float[2] t) { t = local.InBranch(x) },
      else_branch = else_g () => (float[2] e) { e = Neg(x) }>
  }
  <domain: "local", opset_import: ["" : 18, "local" : 1]>
  Unused (a) => (b) { b = local.OnlyFromUnused(a) }
  <domain: "local", opset_import: ["" : 18, "local" : 1]>
  Used (a) => (b) { b = local.Inner(a) }
  <domain: "local", opset_import: ["" : 18]>
  OnlyFromUnused (a) => (b) { b = Neg(a) }
  <domain: "local", opset_import: ["" : 18]>
  Inner (a) => (b) { b = Neg(a) }
  <domain: "local", opset_import: ["" : 18]>
  InBranch (a) => (b) { b = Neg(a) })ONNX";

std::vector<std::string> FunctionNames(const GraphBuilder& builder) {
  std::vector<std::string> names;
  for (const FunctionProto& function : builder.Functions()) names.push_back(function.name());
  return names;
}

TEST(RemoveUnusedFunctions, KeepsWhatTheGraphsAndKeptBodiesCall) {
  GraphBuilder builder(ParseText(kFunctions));
  const CleanupResult result = RemoveUnusedFunctions(builder);
  EXPECT_EQ(result.pass, "RemoveUnusedFunctions");
  EXPECT_TRUE(result.Changed());
  // A function called only from the body of a removed one goes with it.
  EXPECT_EQ(result.removed_functions, (std::vector<std::size_t>{0, 2}));
  EXPECT_THAT(FunctionNames(builder), ElementsAre("Used", "Inner", "InBranch"));
  EXPECT_EQ(builder.OpsetVersion("local"), 1) << "imports stay";
  EXPECT_THAT(result.ToString(), ::testing::HasSubstr("2 local functions"));
  EXPECT_FALSE(RemoveUnusedFunctions(builder).Changed());
}

TEST(RemoveUnusedFunctions, RunsOnTheModelOnly) {
  GraphBuilder builder(ParseText(kFunctions));
  GraphBuilder* branch = builder.Subgraphs().at(0);
  EXPECT_THROW(RemoveUnusedFunctions(*branch), BuilderError);
}

TEST(RunCleanupPasses, RemovesAFunctionWhoseLastCallWasDeadCode) {
  GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] x) => (float[2] y) {
      dead = local.F(x)
      y = Neg(x)
    }
    <domain: "local", opset_import: ["" : 18]>
    F (a) => (b) { b = Neg(a) })ONNX"));
  const std::vector<CleanupResult> results = RunCleanupPasses(builder);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].pass, "RemoveUnusedNodes");
  EXPECT_EQ(results[1].pass, "RemoveUnusedFunctions");
  EXPECT_EQ(builder.Functions().size(), 0);
}

// --- RunCleanupPasses --------------------------------------------------------------

TEST(RunCleanupPasses, RepeatsUntilNothingChanges) {
  GraphBuilder builder = Parse(R"(g (float[2] x) => (float[2] y) <float[2] w1 = {1.0, 2.0}, float[2] w2 = {1.0, 2.0}> {
      a = Mul(x, w1)
      i = Identity(x)
      b = Mul(i, w2)
      dead = Neg(b)
      y = Add(a, b)
    })");
  const std::vector<CleanupResult> results = RunCleanupPasses(builder);
  EXPECT_THAT(NodeLines(builder.Graph()), ElementsAre("a = Mul(x, w1)", "y = Add(a, a)"));
  EXPECT_THAT(InitializerNames(builder.Graph()), ElementsAre("w1"));
  std::vector<std::string> summary;
  for (const CleanupResult& result : results) summary.push_back(result.ToString());
  EXPECT_THAT(summary, ElementsAre("RemoveIdentityNodes: removed 1 nodes, 0 initializers, 1 renames",
                                   "RemoveUnusedNodes: removed 1 nodes, 0 initializers, 0 renames",
                                   "RemoveDuplicateInitializers: removed 0 nodes, 1 initializers, 1 renames",
                                   "RemoveDuplicateNodes: removed 1 nodes, 0 initializers, 1 renames"));
  EXPECT_THAT(RunCleanupPasses(builder), IsEmpty());
}

}  // namespace
}  // namespace onnxopt::core::builder
