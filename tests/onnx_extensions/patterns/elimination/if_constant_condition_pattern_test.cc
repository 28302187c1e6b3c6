#include "onnx_extensions/patterns/elimination/if_constant_condition_pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(IfConstantConditionPattern, InlinesTheThenBranchWithItsInitializer) {
  ExpectRewrite<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <bool c = {1}> {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) <float[1] one = {1.0}> {
          t = Add(X, one)
          r = Mul(t, X)
        }, else_branch = else_g () => (float[N,4] s) {
          s = Neg(X)
        }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <float[1] one = {1.0}> {
      t = Add(X, one)
      Y = Mul(t, X)
    })ONNX");
}

// The else branch returns an enclosing value and one of its initializers directly. The
// Identity that gives the initializer the If's output name is folded (the initializer then
// carries the name), as optimizing the result again would do.
TEST(IfConstantConditionPattern, KeepsTheIfOutputNamesForOuterValuesAndInitializers) {
  ExpectRewrite<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y, float[2] Z) {
      c = Constant<value = bool[1] {0}>()
      Y, Z = If(c) <then_branch = then_g () => (float[N,4] a, float[2] b) <float[2] b = {3.0, 4.0}> {
          a = Neg(X)
        }, else_branch = else_g () => (float[N,4] X, float[2] k) <float[2] k = {1.0, 2.0}> {
        }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y, float[2] Z) <float[2] Z = {1.0, 2.0}> {
      Y = Identity(X)
    })ONNX");
}

// The enclosing graph defines t after the If, as the branch does (IR.md allows it): the
// branch's t gets a new name, and so do the reads of it in the graphs nested in the
// branch, including a nested graph output that names it.
TEST(IfConstantConditionPattern, RenamesBranchValuesInsideNestedGraphs) {
  ExpectRewrite<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y, float[N,4] t) <bool c = {1}> {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) {
          t = Relu(X)
          r = If(B) <then_branch = inner_then () => (float[N,4] u) {
              u = Neg(t)
            }, else_branch = inner_else () => (float[N,4] t) {
            }>
        }, else_branch = else_g () => (float[N,4] s) {
          s = Neg(X)
        }>
      t = Sigmoid(X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y, float[N,4] t) {
      t_1 = Relu(X)
      Y = If(B) <then_branch = inner_then () => (float[N,4] u) {
          u = Neg(t_1)
        }, else_branch = inner_else () => (float[N,4] t_1) {
        }>
      t = Sigmoid(X)
    })ONNX");
}

// The branch defines the name of the If's output (visible only after the If).
TEST(IfConstantConditionPattern, RenamesABranchValueNamedLikeTheIfOutput) {
  ExpectRewrite<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <bool c = {1}> {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) {
          Y = Relu(X)
          r = Mul(Y, X)
        }, else_branch = else_g () => (float[N,4] Y) {
          Y = Neg(X)
        }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) {
      Y_1 = Relu(X)
      Y = Mul(Y_1, X)
    })ONNX");
}

// A nested graph that defines the renamed name itself keeps its own value.
TEST(IfConstantConditionPattern, LeavesNestedDefinitionsOfTheSameNameAlone) {
  ExpectRewrite<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y) <bool c = {1}> {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) {
          t = Relu(X)
          r = If(B) <then_branch = inner_then () => (float[N,4] u) {
              t = Neg(X)
              u = Add(t, X)
            }, else_branch = inner_else () => (float[N,4] v) {
              v = Sigmoid(t)
            }>
        }, else_branch = else_g () => (float[N,4] s) {
          s = Neg(X)
        }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y) {
      t_1 = Relu(X)
      Y = If(B) <then_branch = inner_then () => (float[N,4] u) {
              t = Neg(X)
              u = Add(t, X)
        }, else_branch = inner_else () => (float[N,4] v) {
          v = Sigmoid(t_1)
        }>
    })ONNX");
}

// Nodes inside graph attributes are compared verbatim by ExpectRewrite; the nodes inlined
// into a nested graph get generated names, and the parser sets an empty domain where the
// pattern leaves it unset, so these tests compare without either.
void ClearNodeNames(GraphProto& graph) {
  for (NodeProto& node : *graph.mutable_node()) {
    node.clear_name();
    if (node.domain().empty()) node.clear_domain();
    for (AttributeProto& attr : *node.mutable_attribute())
      if (attr.has_g()) ClearNodeNames(*attr.mutable_g());
  }
}

// ExpectRewrite's checks (exact graph, replay, convergence, evaluator) for rewrites inside
// nested graphs, comparing without node names.
void ExpectNestedRewrite(std::string_view before, std::string_view after) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  const ModelProto original = onnxopt::testing::ParseText(before);
  ModelProto expected = onnxopt::testing::ParseText(after);
  const auto pattern = std::make_shared<IfConstantConditionPattern>();
  auto optimize = [&](const ModelProto& model, std::vector<core::builder::LocalRewriting>* records) {
    core::builder::GraphBuilder builder{ModelProto(model)};
    core::builder::OptimizerOptions options;
    options.registered = core::builder::PatternSelection::None();
    core::builder::GraphGraph graph(builder, {pattern}, options);
    *records = graph.Optimize();
    return std::move(builder).TakeModel();
  };
  auto applied = [&](const std::vector<core::builder::LocalRewriting>& records) {
    return std::count_if(records.begin(), records.end(),
                         [&](const auto& record) { return record.pattern.get() == pattern.get(); });
  };
  std::vector<core::builder::LocalRewriting> records;
  ModelProto optimized = optimize(original, &records);
  EXPECT_GT(applied(records), 0);
  const GraphProto replayed = core::builder::Replay(original, records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(optimized.graph()));
  std::vector<core::builder::LocalRewriting> again;
  optimize(optimized, &again);
  EXPECT_EQ(applied(again), 0) << "the pattern fires again on its own result";
  onnxopt::testing::ExpectSameOutputs(original, optimized, IfConstantConditionPattern::kNumerics);
  ClearNodeNames(*optimized.mutable_graph());
  ClearNodeNames(*expected.mutable_graph());
  EXPECT_EQ(onnxopt::testing::CanonicalGraph(optimized.graph()), onnxopt::testing::CanonicalGraph(expected.graph()));
}

TEST(IfConstantConditionPattern, InlinesAnIfNestedInAnotherGraph) {
  ExpectNestedRewrite(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y) <bool c = {0}> {
      Y = If(B) <then_branch = then_g () => (float[N,4] r) {
          r = If(c) <then_branch = p () => (float[N,4] u) {
              u = Neg(X)
            }, else_branch = q () => (float[N,4] v) {
              w = Relu(X)
              v = Add(w, X)
            }>
        }, else_branch = else_g () => (float[N,4] s) {
          s = Sigmoid(X)
        }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y) {
      Y = If(B) <then_branch = then_g () => (float[N,4] r) {
          w_1 = Relu(X)
          r = Add(w_1, X)
        }, else_branch = else_g () => (float[N,4] s) {
          s = Sigmoid(X)
        }>
    })ONNX");
}

// A nested graph returning an enclosing value keeps the Identity: onnxruntime refuses a
// subgraph output that names an outer value.
TEST(IfConstantConditionPattern, KeepsAnIdentityWhereANestedGraphReturnsAnOuterValue) {
  ExpectNestedRewrite(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y) <bool c = {0}> {
      Y = If(B) <then_branch = then_g () => (float[N,4] r) {
          r = If(c) <then_branch = p () => (float[N,4] u) {
              u = Neg(X)
            }, else_branch = q () => (float[N,4] X) {
            }>
        }, else_branch = else_g () => (float[N,4] s) {
          s = Sigmoid(X)
        }>
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool B) => (float[N,4] Y) {
      Y = If(B) <then_branch = then_g () => (float[N,4] r) {
          r = Identity(X)
        }, else_branch = else_g () => (float[N,4] s) {
          s = Sigmoid(X)
        }>
    })ONNX");
}

TEST(IfConstantConditionPattern, RejectsAConditionThatIsAGraphInput) {
  ExpectNoMatch<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool c) => (float[N,4] Y) {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) {
          r = Neg(X)
        }, else_branch = else_g () => (float[N,4] s) {
          s = Relu(X)
        }>
    })ONNX", "Y", "the condition is not a constant");
}

// An initializer listed among the graph inputs is a default the caller may override.
TEST(IfConstantConditionPattern, RejectsAnOverridableInitializerCondition) {
  ExpectNoMatch<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, bool c) => (float[N,4] Y) <bool c = {1}> {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) {
          r = Neg(X)
        }, else_branch = else_g () => (float[N,4] s) {
          s = Relu(X)
        }>
    })ONNX", "Y", "the condition is not a constant");
}

TEST(IfConstantConditionPattern, RejectsAConditionOfSeveralElements) {
  ExpectNoMatch<IfConstantConditionPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <bool[2] c = {1, 1}> {
      Y = If(c) <then_branch = then_g () => (float[N,4] r) {
          r = Neg(X)
        }, else_branch = else_g () => (float[N,4] s) {
          s = Relu(X)
        }>
    })ONNX", "Y", "the condition does not hold a single element");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
