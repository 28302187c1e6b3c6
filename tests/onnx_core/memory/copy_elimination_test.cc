// The scenarios of shared/docs/copy-elimination.md §11, by their ids. Each
// checks the exact verdicts, the exact graph after, that no necessary copy
// went, and the outputs (memory_test_util.h: ExpectElimination).

#include "onnx_core/memory/copy_elimination.h"

#include <gtest/gtest.h>

#include <string>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/memory/copy_elimination_pass.h"
#include "onnx_core/memory/memory_plan.h"
#include "onnx_core/memory/memory_report.h"
#include "onnx_core/memory/node_order.h"
#include "onnx_core/optimizer/graph_graph.h"

#include "tests/onnx_core/memory/memory_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::memory {
namespace {

using testing::Eliminate;
using testing::ExpectElimination;
using testing::ParseText;
using testing::RegisterMemoryTestOperators;
using testing::VerdictOf;

const std::string kHeader = R"(<ir_version: 8, opset_import: ["" : 18, "ai.onnxopt" : 1, "local" : 1, "test" : 1]>)";

std::string Model(const std::string& graph) { return kHeader + "\n" + graph; }

// A graph on x: float[4] with one output y.
std::string Simple(const std::string& body) { return Model("g (float[4] x) => (float[4] y) {" + body + "}"); }

const std::string kUnchanged;

// A MemoryGraph keeps a reference to its options: they must outlive it.
const MemoryOptions kDefaultOptions;

// --- Scenario 1: single path, direct ---

TEST(CopyElimination, S1_1_Direct) {
  ExpectElimination(Simple("a = Relu(x) t = ai.onnxopt.TensorMove(a) y = Sigmoid(t)"), {{"t", "DELETED"}},
                    Simple("a = Relu(x) y = Sigmoid(a)"));
}

TEST(CopyElimination, S1_2_CopyFeedsGraphOutputIsDeletedByRenaming) {
  ExpectElimination(Simple("a = Relu(x) y = ai.onnxopt.TensorMove(a)"), {{"y", "DELETED"}}, Simple("y = Relu(x)"));
}

const std::string kExporterClone = Model(R"(
  g (int64[1,1] idx, float[1] upd, float[4] b) => (float[4] y) <int64[1] shp = {4}> {
    z = ConstantOfShape(shp)
    c = Identity(z)
    w = ScatterND(c, idx, upd)
    y = Add(w, b)
  })");

TEST(CopyElimination, S1_3_ExporterCloneBeforeScatter) {
  ExpectElimination(kExporterClone, {{"c", "DELETED"}}, Model(R"(
    g (int64[1,1] idx, float[1] upd, float[4] b) => (float[4] y) <int64[1] shp = {4}> {
      z = ConstantOfShape(shp)
      w = ScatterND(z, idx, upd)
      y = Add(w, b)
    })"));
}

TEST(CopyElimination, S1_4_ChainOfCopiesInBothVisitOrders) {
  for (auto order : {MemoryOptions::VisitOrder::kReverse, MemoryOptions::VisitOrder::kTopological}) {
    MemoryOptions options;
    options.visit_order = order;
    ExpectElimination(Simple("a = Relu(x) t1 = ai.onnxopt.TensorMove(a) t2 = "
                             "ai.onnxopt.TensorMove(t1) y = Sigmoid(t2)"),
                      {{"t1", "DELETED"}, {"t2", "DELETED"}}, Simple("a = Relu(x) y = Sigmoid(a)"), options);
  }
}

// --- Scenario 2: single path, indirect ---

TEST(CopyElimination, S2_1_ThroughViews) {
  const std::string graph =
      R"(g (float[2,2] x) => (float[4] y) <int64[1] s = {4}> {
      z0 = Constant <value = int64[1] {0}> ()
      a = Relu(x)
      r = Reshape(a, s)
      u = Unsqueeze(r, z0)
      q = Squeeze(u, z0)
      t = ai.onnxopt.TensorMove(q)
      y = Sigmoid(t)
    })";
  const auto eliminated = Eliminate(Model(graph));
  ASSERT_EQ(eliminated.result.verdicts.size(), 1u);
  EXPECT_EQ(eliminated.result.verdicts[0].path, "a(out:0) --> r(out:0) --> u(out:0) --> q(out:0) --> (in:0) t");
  ExpectElimination(Model(graph), {{"t", "DELETED"}}, Model(R"(g (float[2,2] x) => (float[4] y) <int64[1] s = {4}> {
      z0 = Constant <value = int64[1] {0}> ()
      a = Relu(x)
      r = Reshape(a, s)
      u = Unsqueeze(r, z0)
      q = Squeeze(u, z0)
      y = Sigmoid(q)
    })"));
}

TEST(CopyElimination, S2_2_IdentityAsViewWhenIdentityIsNotACopy) {
  MemoryOptions options;
  options.identity_is_copy = false;
  ExpectElimination(Simple("a = Relu(x) i = Identity(a) t = "
                           "ai.onnxopt.TensorMove(i) y = Sigmoid(t)"),
                    {{"t", "DELETED"}}, Simple("a = Relu(x) i = Identity(a) y = Sigmoid(i)"), options);
}

TEST(CopyElimination, S2_3_FanOutAboveAViewKeepsTheCopy) {
  ExpectElimination(Model(R"(g (float[4] x, int64[1] s) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      r = Reshape(a, s)
      t = ai.onnxopt.TensorMove(r)
      y1 = Sigmoid(t)
      y2 = Neg(a)
    })"),
                    {{"t", "KEPT(3, fanout-not-direct)"}}, kUnchanged);
}

const std::string kWriterOnPath =
    R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {2}, float[1] upd = {5.0}> {
    a = Relu(x)
    w = ScatterND(a, idx, upd)
    t = ai.onnxopt.TensorMove(w)
    y = %s(t)
  })";

std::string WithSuccessor(const std::string& graph, const std::string& op) {
  std::string text = graph;
  text.replace(text.find("%s"), 2, op);
  return Model(text);
}

TEST(CopyElimination, S2_4_WriterOnThePath) {
  ExpectElimination(WithSuccessor(kWriterOnPath, "Sigmoid"), {{"t", "DELETED"}},
                    Model(
                        R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {2}, float[1] upd = {5.0}> {
                      a = Relu(x)
                      w = ScatterND(a, idx, upd)
                      y = Sigmoid(w)
                    })"));
}

TEST(CopyElimination, S2_5_WriterOnThePathClobberingSuccessor) {
  ExpectElimination(WithSuccessor(kWriterOnPath, "test.Clobber"), {{"t", "KEPT(4, rw-conflict)"}}, kUnchanged);
}

// --- Local functions (S2-6 ... S2-13): each call site is an instance of the body ---

const std::string kFunctionHeader =
    R"(<domain: "local", opset_import: ["" : 18, "ai.onnxopt" : 1, "local" : 1, "test" : 1]>)";

// A model: the main graph, then local functions (each "name (...) => (...) { ... }").
std::string WithFunctions(const std::string& graph, const std::vector<std::string>& functions) {
  std::string text = Model(graph);
  for (const std::string& function : functions) text += "\n" + kFunctionHeader + "\n" + function;
  return text;
}

std::string PathOf(const testing::Eliminated& eliminated, const std::string& copy) {
  for (const auto& verdict : eliminated.result.verdicts)
    if (verdict.copy == copy) return verdict.path;
  return "no verdict";
}

const std::string kViewFunction = "view (p, shp) => (q) { q = Reshape(p, shp) }";

TEST(CopyElimination, S2_6_ThroughAPassThroughFunction) {
  const std::string main = R"(g (float[2,2] x) => (float[4] y) <int64[1] s = {4}> {
      a = Relu(x)
      u = local.view(a, s)
      t = ai.onnxopt.TensorMove(u)
      y = Sigmoid(t)
    })";
  const std::string before = WithFunctions(main, {kViewFunction});
  EXPECT_EQ(PathOf(Eliminate(before), "t"),
            "a(out:0) --> call local.view --> p(out:0) --> q(out:0) --> u(out:0) --> (in:0) t");
  ExpectElimination(before, {{"t", "DELETED"}}, WithFunctions(R"(g (float[2,2] x) => (float[4] y) <int64[1] s = {4}> {
      a = Relu(x)
      u = local.view(a, s)
      y = Sigmoid(u)
    })", {kViewFunction}));
}

TEST(CopyElimination, S2_6_TemptedByAReaderOfTheViewedBufferKeepsTheCopy) {
  // The call returns a's buffer: a later reader of a forbids the write into it.
  ExpectElimination(WithFunctions(R"(g (float[2,2] x) => (float[4] y1, float[2,2] y2) <int64[1] s = {4}, int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      a = Relu(x)
      u = local.view(a, s)
      t = ai.onnxopt.TensorMove(u)
      y1 = ScatterND(t, idx, upd)
      y2 = Neg(a)
    })", {kViewFunction}),
                    {{"t", "KEPT(3, fanout-not-direct)"}}, kUnchanged);
}

const std::string kReluFunction = "f (p) => (q) { q = Relu(p) }";

TEST(CopyElimination, S2_7_DrillIntoAFunction) {
  const std::string before = WithFunctions(
      "g (float[4] x) => (float[4] y) { u = local.f(x) t = ai.onnxopt.TensorMove(u) y = Sigmoid(t) }", {kReluFunction});
  EXPECT_EQ(PathOf(Eliminate(before), "t"), "q(out:0) --> u(out:0) --> (in:0) t");
  ExpectElimination(before, {{"t", "DELETED"}},
                    WithFunctions("g (float[4] x) => (float[4] y) { u = local.f(x) y = Sigmoid(u) }", {kReluFunction}));
}

TEST(CopyElimination, S2_7_TemptedByAWriterOfAConstantInsideTheFunction) {
  // The body returns a Constant: writing into it would change the next call.
  const std::string k0 = "k0 () => (r) { r = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> () }";
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      k = local.k0()
      t = ai.onnxopt.TensorMove(k)
      w = ScatterND(t, idx, upd)
      y = Add(w, x)
    })", {k0}),
                    {{"t", "KEPT(1, special-successor-aliases)"}}, kUnchanged);
}

TEST(CopyElimination, S2_8_FanOutInsideTheBody) {
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y1, float[4] y2) {
      u, v = local.f2(x)
      t = ai.onnxopt.TensorMove(u)
      y1 = Sigmoid(t)
      y2 = Abs(v)
    })", {"f2 (p) => (q, r) { q = Relu(p) r = Neg(q) }"}),
                    {{"t", "KEPT(3, fanout-not-direct)"}}, kUnchanged);
}

const std::string kInner = "inner (p) => (r) { r = Add(p, p) }";

TEST(CopyElimination, S2_9_NestedFunctions) {
  const std::string before = WithFunctions(
      "g (float[4] x) => (float[4] y) { y = local.outer(x) }",
      {"outer (p) => (q) { u = local.inner(p) t = ai.onnxopt.TensorMove(u) q = Sigmoid(t) }", kInner});
  EXPECT_EQ(PathOf(Eliminate(before), "y/t"), "r(out:0) --> u(out:0) --> (in:0) t");
  ExpectElimination(before, {{"y/t", "DELETED"}},
                    WithFunctions("g (float[4] x) => (float[4] y) { y = local.outer(x) }",
                                  {"outer (p) => (q) { u = local.inner(p) q = Sigmoid(u) }", kInner}));
}

const std::string kCopyThenSigmoid = "g (p) => (q) { t = ai.onnxopt.TensorMove(p) q = Sigmoid(t) }";

TEST(CopyElimination, S2_10_DrillOutOfAFunction) {
  const std::string main = "g (float[4] x) => (float[4] y) { a = Relu(x) y = local.g(a) }";
  const std::string before = WithFunctions(main, {kCopyThenSigmoid});
  EXPECT_EQ(PathOf(Eliminate(before), "y/t"), "a(out:0) --> call local.g --> p(out:0) --> (in:0) t");
  ExpectElimination(before, {{"y/t", "DELETED"}}, WithFunctions(main, {"g (p) => (q) { q = Sigmoid(p) }"}));
}

TEST(CopyElimination, S2_10_TemptedByACallerReadingTheArgumentAgain) {
  // The body writes its argument in place; the caller reads a afterwards.
  const std::string writer =
      "w (p, i, u) => (q) { t = ai.onnxopt.TensorMove(p) q = ScatterND(t, i, u) }";
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y1, float[4] y2) <int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      a = Relu(x)
      y1 = local.w(a, idx, upd)
      y2 = Neg(a)
    })", {writer}),
                    {{"y1/t", "KEPT(3, fanout-not-direct)"}}, kUnchanged);
}

TEST(CopyElimination, S2_10_TemptedByAnInitializerArgument) {
  const std::string writer =
      "w (p, i, u) => (q) { t = ai.onnxopt.TensorMove(p) q = ScatterND(t, i, u) }";
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y) <float[4] W = {1.0, 2.0, 3.0, 4.0}, int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      v = local.w(W, idx, upd)
      y = Add(v, x)
    })", {writer}),
                    {{"v/t", "KEPT(1, special-successor-aliases)"}}, kUnchanged);
}

TEST(CopyElimination, S2_10_WriterBodyOnAPrivateArgument) {
  // The same body on a private buffer read by nobody else: the copy goes.
  const std::string main = R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      a = Relu(x)
      v = local.w(a, idx, upd)
      y = Add(v, x)
    })";
  ExpectElimination(WithFunctions(main, {"w (p, i, u) => (q) { t = ai.onnxopt.TensorMove(p) q = ScatterND(t, i, u) }"}),
                    {{"v/t", "DELETED"}}, WithFunctions(main, {"w (p, i, u) => (q) { q = ScatterND(p, i, u) }"}));
}

TEST(CopyElimination, CallIntoAClobberingBodyKeepsTheCopyOfASharedBuffer) {
  // A call's input is as writable as the uses of its formal input (§5.1 line 3).
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      y1 = local.cl(t)
      y2 = Neg(a)
    })", {"cl (p) => (q) { q = test.Clobber(p) }"}),
                    {{"t", "KEPT(4, rw-conflict)"}}, kUnchanged);
}

TEST(CopyElimination, CallIntoAReadOnlyBodyLetsTheCopyGo) {
  const std::string reader = "rd (p) => (q) { q = Sigmoid(p) }";
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      y1 = local.rd(t)
      y2 = Neg(a)
    })", {reader}),
                    {{"t", "DELETED"}}, WithFunctions(R"(g (float[4] x) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      y1 = local.rd(a)
      y2 = Neg(a)
    })", {reader}));
}

TEST(CopyElimination, S2_10_TemptedByAnUndeclaredGraphInput) {
  // Drilling out of the body reaches the caller's memory: Rule 2 wants a declaration.
  const std::string writer = "w (p, i, u) => (q) { t = ai.onnxopt.TensorMove(p) q = ScatterND(t, i, u) }";
  const std::string main = R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      v = local.w(x, idx, upd)
      y = Add(v, x)
    })";
  ExpectElimination(WithFunctions(main, {writer}), {{"v/t", "KEPT(2, user-input-not-declared)"}}, kUnchanged);
}

TEST(CopyElimination, S2_5_WriterOutputThroughAFunctionClobberingSuccessor) {
  // The call returns its argument's buffer written in place (Writeable): a
  // clobbering successor conflicts (Rule 4), as S2-5 without the function.
  const std::string writer = "wr (p, i, u) => (q) { q = ScatterND(p, i, u) }";
  ExpectElimination(WithFunctions(R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      a = Relu(x)
      u = local.wr(a, idx, upd)
      t = ai.onnxopt.TensorMove(u)
      y = test.Clobber(t)
    })", {writer}),
                    {{"t", "KEPT(4, rw-conflict)"}}, kUnchanged);
}

TEST(CopyElimination, CaseBInsideABodyNeedsTheBodysOrder) {
  // The reader n of a runs after the writer in the shared body: the pass does not
  // move nodes of a body, the copy stays. Listed before the writer, the copy goes.
  const std::string main = R"(g (float[4] x) => (float[4] y1, float[4] y2) <int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      y1, y2 = local.b(x, idx, upd)
    })";
  ExpectElimination(
      WithFunctions(main, {"b (p, i, u) => (q, n) { a = Relu(p) t = ai.onnxopt.TensorMove(a) w = ScatterND(t, i, u) "
                           "n = Neg(a) q = Sigmoid(w) }"}),
      {{"y1/t", "KEPT(3, function-body-order)"}}, kUnchanged);
  const auto ordered = Eliminate(WithFunctions(
      main, {"b (p, i, u) => (q, n) { a = Relu(p) n = Neg(a) t = ai.onnxopt.TensorMove(a) w = ScatterND(t, i, u) "
             "q = Sigmoid(w) }"}));
  ASSERT_EQ(ordered.result.verdicts.size(), 1u);
  EXPECT_EQ(ordered.result.verdicts[0].constraints, (std::vector<std::pair<std::string, std::string>>{{"n", "w"}}));
  ExpectElimination(
      WithFunctions(main, {"b (p, i, u) => (q, n) { a = Relu(p) n = Neg(a) t = ai.onnxopt.TensorMove(a) w = "
                           "ScatterND(t, i, u) q = Sigmoid(w) }"}),
      {{"y1/t", "DELETED"}},
      WithFunctions(main, {"b (p, i, u) => (q, n) { a = Relu(p) n = Neg(a) w = ScatterND(a, i, u) q = Sigmoid(w) }"}));
}

const std::string kTwoCallSites = R"(g (float[4] x, float[4] x2) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      y1 = local.g(a)
      y2 = local.g(x2)
    })";

TEST(CopyElimination, S2_11_TwoCallSitesDisagreeSpecialized) {
  ExpectElimination(WithFunctions(kTwoCallSites, {kCopyThenSigmoid}),
                    {{"y1/t", "DELETED"}, {"y2/t", "KEPT(2, user-input-not-declared)"}},
                    WithFunctions(R"(g (float[4] x, float[4] x2) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      y1 = local.g__onnxopt_m1(a)
      y2 = local.g(x2)
    })", {kCopyThenSigmoid, "g__onnxopt_m1 (p) => (q) { q = Sigmoid(p) }"}));
}

TEST(CopyElimination, S2_11_TwoCallSitesDisagreeNotSpecialized) {
  MemoryOptions options;
  options.specialize_functions = false;
  ExpectElimination(WithFunctions(kTwoCallSites, {kCopyThenSigmoid}),
                    {{"y1/t", "ELIDED"}, {"y2/t", "KEPT(2, user-input-not-declared)"}}, kUnchanged, options);
}

TEST(CopyElimination, S2_11_CallSitesThatAgreeShareOneRewrittenBody) {
  const std::string main = R"(g (float[4] x, float[4] x2) => (float[4] y1, float[4] y2) {
      a = Relu(x)
      b = Relu(x2)
      y1 = local.g(a)
      y2 = local.g(b)
    })";
  ExpectElimination(WithFunctions(main, {kCopyThenSigmoid}), {{"y1/t", "DELETED"}, {"y2/t", "DELETED"}},
                    WithFunctions(main, {"g (p) => (q) { q = Sigmoid(p) }"}));
}

TEST(CopyElimination, S2_11_NestedCallSitesThatDisagreeAreElided) {
  // The two calls of g are nodes of outer's body: a clone of g would need a clone
  // of outer too, so the deletion stays in the plan (ELIDED), the model unchanged.
  ExpectElimination(
      WithFunctions("g (float[4] x) => (float[4] y) { y = local.outer(x) }",
                    {"outer (p) => (q) { a = Relu(p) u1 = local.g(a) u2 = local.g(p) q = Add(u1, u2) }",
                     kCopyThenSigmoid}),
      {{"y/u1/t", "ELIDED"}, {"y/u2/t", "KEPT(2, user-input-not-declared)"}}, kUnchanged);
}

TEST(CopyElimination, S2_11_BytesCopiedHalvedEitherWay) {
  RegisterMemoryTestOperators();
  for (const bool specialize : {true, false}) {
    MemoryOptions options;
    options.specialize_functions = specialize;
    builder::GraphBuilder builder(ParseText(WithFunctions(kTwoCallSites, {kCopyThenSigmoid})));
    builder.InferShapes();
    const MemoryReport report = PlanMemory(builder, options);
    EXPECT_EQ(report.copies_before, 2);
    EXPECT_EQ(report.before.bytes_copied, 32);
    EXPECT_EQ(report.after.bytes_copied, 16) << "specialize " << specialize;
  }
}

TEST(CopyElimination, S2_12_CopyOfAFormalInputIntoTheBodyOutputIsElided) {
  ExpectElimination(WithFunctions("g (float[4] x) => (float[4] y) { a = Relu(x) y = local.c(a) }",
                                  {"c (p) => (q) { q = ai.onnxopt.TensorMove(p) }"}),
                    {{"y/q", "ELIDED"}}, kUnchanged);
}

TEST(CopyElimination, S2_12_IdentityCloneAsTheCorpusWritesIt) {
  // aten_clone: a one-Identity body; its type comes from the call site.
  ExpectElimination(WithFunctions("g (float[4] x) => (float[4] y) { a = Relu(x) y = local.clone(a) }",
                                  {"clone (p) => (q) { q = Identity(p) }"}),
                    {{"y/q", "ELIDED"}}, kUnchanged);
}

TEST(CopyElimination, S2_13_TraceIntoAnotherFunctionsConstant) {
  ExpectElimination(WithFunctions("g () => (float[4] y) { k = local.k0() y = local.g2(k) }",
                                  {"k0 () => (r) { r = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> () }",
                                   "g2 (p) => (q) { q = ai.onnxopt.TensorMove(p) }"}),
                    {{"y/q", "KEPT(1, special-successor-is-output)"}}, kUnchanged);
}

// --- Scenario 3: source is a graph input ---

TEST(CopyElimination, S3_1_UndeclaredUserInput) {
  ExpectElimination(Simple("t = ai.onnxopt.TensorMove(x) y = Sigmoid(t)"), {{"t", "KEPT(2, user-input-not-declared)"}},
                    kUnchanged);
}

TEST(CopyElimination, S3_2_OutputReusePair) {
  MemoryOptions options;
  options.output_reuse_input = {{0, 0}};
  ExpectElimination(Simple("t = ai.onnxopt.TensorMove(x) y = Sigmoid(t)"), {{"t", "DELETED"}}, Simple("y = Sigmoid(x)"),
                    options);
}

TEST(CopyElimination, S3_3_InputReuseList) {
  MemoryOptions options;
  options.input_reuse = {0};
  ExpectElimination(Simple("t = ai.onnxopt.TensorMove(x) y = Sigmoid(t)"), {{"t", "DELETED"}}, Simple("y = Sigmoid(x)"),
                    options);
}

TEST(CopyElimination, S3_4_AnotherInputDeclared) {
  const std::string graph = Model(R"(g (float[4] x0, float[4] x1) => (float[4] y) {
      t = ai.onnxopt.TensorMove(x1)
      y = Sigmoid(t)
    })");
  MemoryOptions other;
  other.input_reuse = {0};
  ExpectElimination(graph, {{"t", "KEPT(2, user-input-not-declared)"}}, kUnchanged, other);
  MemoryOptions paired;
  paired.output_reuse_input = {{1, 0}};
  ExpectElimination(graph, {{"t", "DELETED"}},
                    Model("g (float[4] x0, float[4] x1) => (float[4] y) { y = Sigmoid(x1) }"), paired);
}

TEST(CopyElimination, S3_5_InputToOutputIsElided) {
  ExpectElimination(Simple("y = ai.onnxopt.TensorMove(x)"), {{"y", "KEPT(2, user-input-not-declared)"}}, kUnchanged);
  MemoryOptions options;
  options.output_reuse_input = {{0, 0}};
  ExpectElimination(Simple("y = ai.onnxopt.TensorMove(x)"), {{"y", "ELIDED"}}, kUnchanged, options);
}

TEST(CopyElimination, S3_6_InputThroughAView) {
  const std::string graph = Model(R"(g (float[4] x, int64[1] s) => (float[4] y) {
      r = Reshape(x, s)
      t = ai.onnxopt.TensorMove(r)
      y = Sigmoid(t)
    })");
  ExpectElimination(graph, {{"t", "KEPT(2, user-input-not-declared)"}}, kUnchanged);
  MemoryOptions options;
  options.input_reuse = {0};
  ExpectElimination(graph, {{"t", "DELETED"}}, Model(R"(g (float[4] x, int64[1] s) => (float[4] y) {
      r = Reshape(x, s)
      y = Sigmoid(r)
    })"),
                    options);
}

TEST(CopyElimination, S3_7_InPlaceKvCache) {
  const std::string header = R"(<ir_version: 10, opset_import: ["" : 24, "ai.onnxopt" : 1]>)";
  MemoryOptions options;
  options.output_reuse_input = {{0, 0}};
  ExpectElimination(header + R"(
    g (float[1,2,8,4] past_k, float[1,2,1,4] k_new, int64[1] pos) => (float[1,2,8,4] present_k, float[1,2,8,4] z) {
      t = ai.onnxopt.TensorMove(past_k)
      present_k = TensorScatter(t, k_new, pos)
      z = Mul(present_k, present_k)
    })",
                    {{"t", "DELETED"}}, header + R"(
    g (float[1,2,8,4] past_k, float[1,2,1,4] k_new, int64[1] pos) => (float[1,2,8,4] present_k, float[1,2,8,4] z) {
      present_k = TensorScatter(past_k, k_new, pos)
      z = Mul(present_k, present_k)
    })",
                    options);
}

TEST(CopyElimination, S3_8_DeclaredButClobbered) {
  MemoryOptions options;
  options.input_reuse = {0};
  ExpectElimination(Simple("t = ai.onnxopt.TensorMove(x) y = test.Clobber(t)"), {{"t", "KEPT(4, rw-conflict)"}},
                    kUnchanged, options);
}

TEST(CopyElimination, S3_9_InputFanOutCaseBOnUserMemory) {
  MemoryOptions options;
  options.input_reuse = {0};
  ExpectElimination(Model(
                        R"(g (float[4] x, int64[1,1] idx, float[1] upd) => (float[4] y1, float[4] y2) {
      t = ai.onnxopt.TensorMove(x)
      w = ScatterND(t, idx, upd)
      s = Neg(x)
      y1 = Sigmoid(w)
      y2 = Abs(s)
    })"),
                    {{"t", "DELETED"}},
                    Model(
                        R"(g (float[4] x, int64[1,1] idx, float[1] upd) => (float[4] y1, float[4] y2) {
      s = Neg(x)
      w = ScatterND(x, idx, upd)
      y1 = Sigmoid(w)
      y2 = Abs(s)
    })"),
                    options);
}

const std::string kGqaHeader =
    R"(<ir_version: 8, opset_import: ["" : 18, "ai.onnxopt" : 1, "com.microsoft" : 1]>)";
// The spec's S3-10 graph, but seqlens_k and total_sequence_length are initializers
// (one cached token at position 0) so that the evaluator runs it: random integer inputs
// are zeros, and a zero total length is refused. Inputs 3 and 4 are the caches still.
const std::string kGqaSignature =
    "g (float[1,1,32] q, float[1,1,16] k, float[1,1,16] v, float[1,2,8,8] pk, float[1,2,8,8] pv) => "
    "(float[1,1,32] o, float[1,2,8,8] prk, float[1,2,8,8] prv) <int32[1] sl = {0}, int32 tl = {1}>";

TEST(CopyElimination, S3_10_GroupQueryAttentionSharedKvCache) {
  const std::string before = kGqaHeader + kGqaSignature + R"( {
      tk = ai.onnxopt.TensorMove(pk)
      tv = ai.onnxopt.TensorMove(pv)
      o, prk, prv = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 2> (q, k, v, tk, tv, sl, tl)
    })";
  MemoryOptions declared;
  declared.output_reuse_input = {{3, 1}, {4, 2}};
  ExpectElimination(before, {{"tk", "DELETED"}, {"tv", "DELETED"}}, kGqaHeader + kGqaSignature + R"( {
      o, prk, prv = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 2> (q, k, v, pk, pv, sl, tl)
    })",
                    declared);
  ExpectElimination(before, {{"tk", "KEPT(2, user-input-not-declared)"}, {"tv", "KEPT(2, user-input-not-declared)"}},
                    kUnchanged);
}

TEST(CopyElimination, S3_10_GroupQueryAttentionWritesThePastInPlace) {
  // The traits: past_key/past_value (3, 4) are written and returned as
  // present_key/present_value (1, 2) when past and present have one shape.
  RegisterMemoryTestOperators();
  builder::GraphBuilder builder(ParseText(kGqaHeader + kGqaSignature + R"( {
      o, prk, prv = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 2> (q, k, v, pk, pv, sl, tl)
    })"));
  builder.InferShapes();
  const MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  const NodeProto& gqa = builder.Graph().node(0);
  EXPECT_EQ(graph.Traits(gqa).aliases, (std::vector<std::pair<int, int>>{{1, 3}, {2, 4}}));
  EXPECT_EQ(graph.Traits(gqa).writes, (std::vector<int>{3, 4}));
  EXPECT_EQ(graph.SymbolOf("pk"), graph.SymbolOf("prk"));
  // A family switched off leaves an ordinary reader.
  MemoryOptions no_gqa;
  no_gqa.inplace_ops = {"scatter"};
  const MemoryGraph reader(builder.Graph(), true, no_gqa, TypeQueryOf(builder), builder.Functions());
  EXPECT_TRUE(reader.Traits(gqa).aliases.empty());
}

TEST(CopyElimination, S3_10_GrowingCacheIsNotWrittenInPlace) {
  // present longer than past (a growing cache): a fresh buffer, the copy of a
  // declared input is then an ordinary deletion without an alias behind it.
  RegisterMemoryTestOperators();
  builder::GraphBuilder builder(ParseText(kGqaHeader + R"(g (float[1,1,32] q, float[1,1,16] k, float[1,1,16] v, float[1,2,4,8] pk, float[1,2,4,8] pv) => (float[1,1,32] o, float[1,2,5,8] prk, float[1,2,5,8] prv) <int32[1] sl = {4}, int32 tl = {5}> {
      o, prk, prv = com.microsoft.GroupQueryAttention <num_heads = 4, kv_num_heads = 2> (q, k, v, pk, pv, sl, tl)
    })"));
  builder.InferShapes();
  const MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  EXPECT_TRUE(graph.Traits(builder.Graph().node(0)).aliases.empty());
  EXPECT_NE(graph.SymbolOf("pk"), graph.SymbolOf("prk"));
}

// --- Scenario 4: source is an initializer or a Constant ---

std::string WithW(const std::string& body) {
  return Model(
      R"(g (float[4] x) => (float[4] y) <float[4] W = {1.0, 2.0, 3.0, 4.0}, int64[1,1] idx = {1}, float[1] upd = {9.0}, int64[1] s = {4}> {)" +
      body + "}");
}

TEST(CopyElimination, S4_1_ReadOnlySuccessor) {
  ExpectElimination(WithW("t = ai.onnxopt.TensorMove(W) y = Add(x, t)"), {{"t", "DELETED"}}, WithW("y = Add(x, W)"));
}

TEST(CopyElimination, S4_2_InPlaceWriterSuccessor) {
  ExpectElimination(WithW("t = ai.onnxopt.TensorMove(W) y = ScatterND(t, idx, upd)"),
                    {{"t", "KEPT(1, special-successor-aliases)"}}, kUnchanged);
}

TEST(CopyElimination, S4_2b_WriterFamilyDisabled) {
  MemoryOptions options;
  options.inplace_ops = {};
  ExpectElimination(WithW("t = ai.onnxopt.TensorMove(W) y = ScatterND(t, idx, upd)"), {{"t", "DELETED"}},
                    WithW("y = ScatterND(W, idx, upd)"), options);
}

TEST(CopyElimination, S4_3_ClobberingSuccessor) {
  ExpectElimination(WithW("t = ai.onnxopt.TensorMove(W) y = test.Clobber(t)"),
                    {{"t", "KEPT(1, special-successor-writes)"}}, kUnchanged);
}

TEST(CopyElimination, S4_4_SuccessorIsAGraphOutput) {
  ExpectElimination(WithW("y = ai.onnxopt.TensorMove(W)"), {{"y", "KEPT(1, special-successor-is-output)"}}, kUnchanged);
}

TEST(CopyElimination, S4_5_SuccessorIsAView) {
  ExpectElimination(WithW("t = ai.onnxopt.TensorMove(W) r = Reshape(t, s) y = Neg(r)"),
                    {{"t", "KEPT(1, special-successor-aliases)"}}, kUnchanged);
}

TEST(CopyElimination, S4_6_SuccessorIsAWrapper) {
  ExpectElimination(Model(R"(g (bool c) => (float[4] y) <float[4] W = {1.0, 2.0, 3.0, 4.0}> {
      t = ai.onnxopt.TensorMove(W)
      y = If(c) <then_branch = tb () => (float[4] z1) { z1 = Neg(t) }, else_branch = eb () => (float[4] z2) { z2 = Abs(t) }>
    })"),
                    {{"t", "KEPT(1, special-successor-is-wrapper)"}}, kUnchanged);
}

TEST(CopyElimination, S4_7_ThroughAView) {
  ExpectElimination(WithW("r = Reshape(W, s) t = ai.onnxopt.TensorMove(r) y = Neg(t)"), {{"t", "DELETED"}},
                    WithW("r = Reshape(W, s) y = Neg(r)"));
}

TEST(CopyElimination, S4_8_ConstantNode) {
  ExpectElimination(Simple("c = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> () t = "
                           "ai.onnxopt.TensorMove(c) y = Mul(x, t)"),
                    {{"t", "DELETED"}},
                    Simple("c = Constant <value = float[4] {1.0, 2.0, 3.0, 4.0}> () y = "
                           "Mul(x, c)"));
}

TEST(CopyElimination, S4_9_WriterSiblingOnAnInitializer) {
  ExpectElimination(
      Model(
          R"(g (float[4] x) => (float[4] y1, float[4] y2) <float[4] W = {1.0, 2.0, 3.0, 4.0}, int64[1,1] idx = {1}, float[1] upd = {9.0}> {
      w = ScatterND(W, idx, upd)
      t = ai.onnxopt.TensorMove(W)
      y1 = Neg(t)
      y2 = Abs(w)
    })"),
      {{"t", "KEPT(3, sibling-aliases)"}}, kUnchanged);
}

TEST(CopyElimination, S4_10_InitializerThatIsAlsoAnInput) {
  const std::string graph = Model(
      R"(g (float[4] x, float[4] W) => (float[4] y) <float[4] W = {1.0, 2.0, 3.0, 4.0}> {
      t = ai.onnxopt.TensorMove(W)
      y = Add(x, t)
    })");
  ExpectElimination(graph, {{"t", "KEPT(2, user-input-not-declared)"}}, kUnchanged);
  MemoryOptions options;
  options.input_reuse = {1};
  ExpectElimination(graph, {{"t", "DELETED"}},
                    Model(
                        R"(g (float[4] x, float[4] W) => (float[4] y) <float[4] W = {1.0, 2.0, 3.0, 4.0}> {
                      y = Add(x, W)
                    })"),
                    options);
}

// --- Scenario 5: single output, multiple references ---

const std::string kTwoOutputs = "g (float[4] x) => (float[4] y1, float[4] y2) {";

TEST(CopyElimination, C1_ReaderSiblingReaderSuccessor) {
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) s = Neg(a) t = ai.onnxopt.TensorMove(a) "
                                        "y1 = Sigmoid(t) y2 = Abs(s) }"),
                    {{"t", "DELETED"}}, Model(kTwoOutputs + "a = Relu(x) s = Neg(a) y1 = Sigmoid(a) y2 = Abs(s) }"));
}

TEST(CopyElimination, C2_SeveralReaderSiblings) {
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) s1 = Neg(a) s2 = Abs(a) t = ai.onnxopt.TensorMove(a) "
                                        "y1 = Sigmoid(t) y2 = Add(s1, s2) }"),
                    {{"t", "DELETED"}},
                    Model(kTwoOutputs + "a = Relu(x) s1 = Neg(a) s2 = Abs(a) y1 = Sigmoid(a) "
                                        "y2 = Add(s1, s2) }"));
}

TEST(CopyElimination, C3_SiblingIsACopy) {
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) t1 = ai.onnxopt.TensorMove(a) t2 = "
                                        "ai.onnxopt.TensorMove(a) y1 = Sigmoid(t1) "
                                        "y2 = Neg(t2) }"),
                    {{"t1", "DELETED"}, {"t2", "DELETED"}},
                    Model(kTwoOutputs + "a = Relu(x) y1 = Sigmoid(a) y2 = Neg(a) }"));
}

TEST(CopyElimination, C4_SuccessorIsAGraphOutput) {
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) s = Neg(a) y1 = ai.onnxopt.TensorMove(a) y2 = Abs(s) }"),
                    {{"y1", "DELETED"}}, Model(kTwoOutputs + "y1 = Relu(x) s = Neg(y1) y2 = Abs(s) }"));
}

const std::string kB1Header =
    "g (float[4] x) => (float[4] y1, float[4] y2) "
    "<int64[1,1] idx = {3}, float[1] upd = {7.0}> {";

TEST(CopyElimination, B1_ReaderSiblingWriterSuccessorMovesTheReader) {
  const auto eliminated = Eliminate(Model(kB1Header + "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = ScatterND(t, "
                                                      "idx, upd) s = Neg(a) y1 = Sigmoid(w) y2 = Abs(s) }"));
  ASSERT_EQ(eliminated.result.verdicts.size(), 1u);
  EXPECT_EQ(eliminated.result.verdicts[0].constraints, (std::vector<std::pair<std::string, std::string>>{{"s", "w"}}));
  EXPECT_EQ(eliminated.result.nodes_moved, 2);
  ExpectElimination(Model(kB1Header + "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = ScatterND(t, idx, "
                                      "upd) s = Neg(a) y1 = Sigmoid(w) y2 = Abs(s) }"),
                    {{"t", "DELETED"}},
                    Model(kB1Header + "a = Relu(x) s = Neg(a) w = ScatterND(a, idx, upd) y1 "
                                      "= Sigmoid(w) y2 = Abs(s) }"));
}

TEST(CopyElimination, B1_WithoutTheConstraintTheWriteIsUnsafe) {
  // The control of B1: the copy removed by hand, the reader left after the
  // writer.
  RegisterMemoryTestOperators();
  const auto eliminated = Eliminate(Model(kB1Header + "a = Relu(x) w = ScatterND(a, idx, upd) s = "
                                                      "Neg(a) y1 = Sigmoid(w) y2 = Abs(s) }"));
  EXPECT_TRUE(eliminated.result.verdicts.empty());
  builder::GraphBuilder builder{ModelProto(eliminated.after)};
  builder.InferShapes();
  const MemoryOptions options;
  const MemoryGraph graph(builder.Graph(), true, options, TypeQueryOf(builder), {});
  const auto writes = CheckInPlaceWrites(graph, options);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes[0].violation, "reader-after-write");
}

TEST(CopyElimination, B2_AlreadyInOrder) {
  const std::string before = Model(kB1Header +
                                   "a = Relu(x) s = Neg(a) t = ai.onnxopt.TensorMove(a) w = "
                                   "ScatterND(t, idx, upd) y1 = Sigmoid(w) y2 = Abs(s) }");
  EXPECT_EQ(Eliminate(before).result.nodes_moved, 0);
  ExpectElimination(before, {{"t", "DELETED"}},
                    Model(kB1Header + "a = Relu(x) s = Neg(a) w = ScatterND(a, idx, upd) y1 "
                                      "= Sigmoid(w) y2 = Abs(s) }"));
}

TEST(CopyElimination, B3_SeveralReaders) {
  const std::string before = Model(kB1Header +
                                   "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = "
                                   "ScatterND(t, idx, upd) s = Neg(a) s2 = Exp(a) "
                                   "y1 = Sigmoid(w) y2 = Add(s, s2) }");
  const auto eliminated = Eliminate(before);
  EXPECT_EQ(eliminated.result.constraints, (std::vector<std::pair<std::string, std::string>>{{"s", "w"}, {"s2", "w"}}));
  ExpectElimination(before, {{"t", "DELETED"}},
                    Model(kB1Header + "a = Relu(x) s = Neg(a) s2 = Exp(a) w = ScatterND(a, "
                                      "idx, upd) y1 = Sigmoid(w) y2 = Add(s, s2) }"));
}

TEST(CopyElimination, B4_ClobberingSuccessor) {
  const auto eliminated = Eliminate(Model(kB1Header + "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = "
                                                      "test.Clobber(t) s = Neg(a) y1 = Sigmoid(w) y2 = Abs(s) }"));
  EXPECT_TRUE(eliminated.result.constraints.empty());
  ExpectElimination(Model(kB1Header + "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = test.Clobber(t) s = "
                                      "Neg(a) y1 = Sigmoid(w) y2 = Abs(s) }"),
                    {{"t", "KEPT(4, rw-conflict)"}}, kUnchanged);
}

const std::string kA1 =
    "a = Relu(x) t = ai.onnxopt.TensorMove(a) r = Neg(t) w "
    "= test.Clobber(a) y1 = Sigmoid(r) y2 = Abs(w) }";

TEST(CopyElimination, A1_WriterSiblingWithAGivenOrdering) {
  MemoryOptions options;
  options.ordering = {{"r", "w"}};
  ExpectElimination(Model(kTwoOutputs + kA1), {{"t", "DELETED"}},
                    Model(kTwoOutputs + "a = Relu(x) r = Neg(a) w = test.Clobber(a) y1 = "
                                        "Sigmoid(r) y2 = Abs(w) }"),
                    options);
}

TEST(CopyElimination, A2_WriterSiblingWithoutOrdering) {
  ExpectElimination(Model(kTwoOutputs + kA1), {{"t", "KEPT(3, sibling-writes-no-ordering)"}}, kUnchanged);
}

TEST(CopyElimination, A3_OnlyAnIndirectOrdering) {
  MemoryOptions options;
  options.ordering = {{"m", "w"}};
  ExpectElimination(Model(R"(g (float[4] x) => (float[4] y1, float[4] y2, float[4] m) {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      r = Neg(t)
      m = Abs(r)
      w = test.Clobber(a)
      y1 = Sigmoid(r)
      y2 = Abs(w)
    })"),
                    {{"t", "KEPT(3, sibling-writes-no-ordering)"}}, kUnchanged, options);
}

TEST(CopyElimination, A4_BothWrite) {
  MemoryOptions options;
  options.ordering = {{"r", "w"}};
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) t = ai.onnxopt.TensorMove(a) r = test.Clobber(t) w = "
                                        "test.Clobber(a) y1 = Sigmoid(r) y2 = Abs(w) }"),
                    {{"t", "KEPT(3, both-write)"}}, kUnchanged, options);
}

TEST(CopyElimination, A5_SuccessorIsAView) {
  MemoryOptions options;
  options.ordering = {{"r", "w"}};
  ExpectElimination(Model(R"(g (float[4] x) => (float[4] y1, float[4] y2) <int64[1] s = {4}> {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      r = Reshape(t, s)
      w = test.Clobber(a)
      y1 = Sigmoid(r)
      y2 = Abs(w)
    })"),
                    {{"t", "KEPT(3, successor-aliases)"}}, kUnchanged, options);
}

TEST(CopyElimination, A6_SuccessorIsAGraphOutput) {
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) y1 = ai.onnxopt.TensorMove(a) w = "
                                        "test.Clobber(a) y2 = Abs(w) }"),
                    {{"y1", "KEPT(3, no-ordering-possible)"}}, kUnchanged);
}

TEST(CopyElimination, X1_SiblingIsAGraphOutput) {
  ExpectElimination(Model("g (float[4] x) => (float[4] a, float[4] y) { a = Relu(x) t = "
                          "ai.onnxopt.TensorMove(a) y = Sigmoid(t) }"),
                    {{"t", "KEPT(3, sibling-unsupported)"}}, kUnchanged);
}

TEST(CopyElimination, X2_SiblingIsAWrapper) {
  ExpectElimination(Model(R"(g (bool c, float[4] x) => (float[4] y) {
      a = Relu(x)
      u = If(c) <then_branch = tb () => (float[4] z1) { z1 = Neg(a) }, else_branch = eb () => (float[4] z2) { z2 = Abs(a) }>
      t = ai.onnxopt.TensorMove(a)
      y = Add(t, u)
    })"),
                    {{"t", "KEPT(3, sibling-unsupported)"}}, kUnchanged);
}

TEST(CopyElimination, X3_SiblingIsAView) {
  ExpectElimination(Model(R"(g (float[4] x) => (float[4] y) <int64[1] s = {4}> {
      a = Relu(x)
      r = Reshape(a, s)
      t = ai.onnxopt.TensorMove(a)
      y = Add(t, r)
    })"),
                    {{"t", "KEPT(3, sibling-aliases)"}}, kUnchanged);
}

// --- Ordering: cycles and rollback ---

TEST(CopyElimination, Y1_SelfLoop) {
  ExpectElimination(Model(R"(g (float[1] x) => (float[1] y) <int64[1,1] idx = {0}> {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      y = ScatterND(t, idx, a)
    })"),
                    {{"t", "KEPT(3, ordering-cycle)"}}, kUnchanged);
}

TEST(CopyElimination, Y2_SuccessorReachesTheSibling) {
  ExpectElimination(Model(
                        R"(g (float[4] x) => (float[4] y) <int64[1,1] idx = {0}, float[1] upd = {3.0}> {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      w = ScatterND(t, idx, upd)
      s2 = Add(a, w)
      y = Sigmoid(s2)
    })"),
                    {{"t", "KEPT(3, ordering-cycle)"}}, kUnchanged);
}

const std::string kY3 = Model(R"(
  g (float[4] x, float[4] x2, int64[1,1] idx, float[1] u1, float[1] u2) => (float[4] s, float[4] sib2) {
    a = Relu(x)
    b = Relu(x2)
    t1 = ai.onnxopt.TensorMove(a)
    t2 = ai.onnxopt.TensorMove(b)
    w2 = ScatterND(t2, idx, u2)
    s = Add(a, w2)
    w = ScatterND(t1, idx, u1)
    sib2 = Add(b, w)
  })");

TEST(CopyElimination, Y3_CycleThroughALandedConstraintReverse) {
  ExpectElimination(kY3, {{"t1", "KEPT(3, ordering-cycle)"}, {"t2", "DELETED"}}, Model(R"(
    g (float[4] x, float[4] x2, int64[1,1] idx, float[1] u1, float[1] u2) => (float[4] s, float[4] sib2) {
      a = Relu(x)
      b = Relu(x2)
      t1 = ai.onnxopt.TensorMove(a)
      w = ScatterND(t1, idx, u1)
      sib2 = Add(b, w)
      w2 = ScatterND(b, idx, u2)
      s = Add(a, w2)
    })"));
}

TEST(CopyElimination, Y3_CycleThroughALandedConstraintTopological) {
  MemoryOptions options;
  options.visit_order = MemoryOptions::VisitOrder::kTopological;
  ExpectElimination(kY3, {{"t1", "DELETED"}, {"t2", "KEPT(3, ordering-cycle)"}}, Model(R"(
    g (float[4] x, float[4] x2, int64[1,1] idx, float[1] u1, float[1] u2) => (float[4] s, float[4] sib2) {
      a = Relu(x)
      b = Relu(x2)
      t2 = ai.onnxopt.TensorMove(b)
      w2 = ScatterND(t2, idx, u2)
      s = Add(a, w2)
      w = ScatterND(a, idx, u1)
      sib2 = Add(b, w)
    })"),
                    options);
}

const std::string kB1 = Model(kB1Header +
                              "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = ScatterND(t, "
                              "idx, upd) s = Neg(a) y1 = Sigmoid(w) y2 = Abs(s) }");

TEST(CopyElimination, Y4_RollbackAfterLanding) {
  CopyEliminationHooks hooks;
  hooks.after_constraints_landed = [] { return false; };
  const auto eliminated = Eliminate(kB1, {}, hooks);
  EXPECT_EQ(VerdictOf(eliminated, "t"), "KEPT(apply-failed)");
  EXPECT_TRUE(eliminated.result.constraints.empty());
  EXPECT_EQ(eliminated.result.nodes_moved, 0);
  EXPECT_EQ(eliminated.after.graph().SerializeAsString(), eliminated.before.graph().SerializeAsString());
}

TEST(CopyElimination, Y5_RollbackOnADefensiveCycle) {
  CopyEliminationHooks hooks;
  hooks.inject_constraints = [] { return std::vector<std::pair<std::string, std::string>>{{"w", "s"}}; };
  const auto eliminated = Eliminate(kB1, {}, hooks);
  EXPECT_EQ(VerdictOf(eliminated, "t"), "KEPT(apply-failed)");
  EXPECT_TRUE(eliminated.result.constraints.empty());
  EXPECT_EQ(eliminated.after.graph().SerializeAsString(), eliminated.before.graph().SerializeAsString());
}

TEST(CopyElimination, Y6_ConstraintTransferThroughADeletedCopy) {
  MemoryOptions options;
  options.ordering = {{"t2", "w"}};
  const std::string before = Model(R"(g (float[4] x, float[4] x2) => (float[4] n, float[4] w) {
      a = Relu(x)
      t2 = ai.onnxopt.TensorMove(a)
      n = Neg(t2)
      b = Relu(x2)
      w = test.Clobber(b)
    })");
  const auto eliminated = Eliminate(before, options);
  EXPECT_EQ(eliminated.result.constraints, (std::vector<std::pair<std::string, std::string>>{{"a", "w"}}));
  ExpectElimination(before, {{"t2", "DELETED"}}, Model(R"(g (float[4] x, float[4] x2) => (float[4] n, float[4] w) {
      a = Relu(x)
      n = Neg(a)
      b = Relu(x2)
      w = test.Clobber(b)
    })"),
                    options);
}

// --- Control flow ---

TEST(CopyElimination, F1_SourceIsAnIf) {
  ExpectElimination(Model(R"(g (bool c, float[4] x) => (float[4] y) {
      o = If(c) <then_branch = tb () => (float[4] z1) { z1 = Neg(x) }, else_branch = eb () => (float[4] z2) { z2 = Abs(x) }>
      t = ai.onnxopt.TensorMove(o)
      y = Sigmoid(t)
    })"),
                    {{"t", "KEPT(1, control-flow-source)"}}, kUnchanged);
}

TEST(CopyElimination, F2_F3_CopiesInsideABranch) {
  // The pass runs on each body as its own graph: a captured source keeps the
  // copy (F2), a source local to the branch does not (F3).
  RegisterMemoryTestOperators();
  ModelProto model = ParseText(Model(R"(g (bool c, float[4] x) => (float[4] y) {
      a = Relu(x)
      y = If(c) <then_branch = tb () => (float[4] z1) { t = ai.onnxopt.TensorMove(a) z1 = Neg(t) },
                 else_branch = eb () => (float[4] z2) { r = Relu(a) t2 = ai.onnxopt.TensorMove(r) z2 = Neg(t2) }>
    })"));
  builder::GraphBuilder builder(std::move(model));
  builder.InferShapes();
  std::vector<builder::GraphBuilder*> branches = builder.Subgraphs();
  ASSERT_EQ(branches.size(), 2u);
  const CopyEliminationResult then_result = EliminateCopies(*branches[0], false, {});
  const CopyEliminationResult else_result = EliminateCopies(*branches[1], false, {});
  ASSERT_EQ(then_result.verdicts.size(), 1u);
  EXPECT_EQ(VerdictText(then_result.verdicts[0]), "KEPT(1, control-flow-source)");
  ASSERT_EQ(else_result.verdicts.size(), 1u);
  EXPECT_EQ(VerdictText(else_result.verdicts[0]), "DELETED");
  EXPECT_EQ(branches[1]->Graph().node_size(), 2);
}

const std::string kLoopBody =
    R"(<body = body (int64 i, bool cin, float[4] v) => (bool cout, float[4] vout) { cout = Identity(cin) vout = Add(v, one) }>)";

TEST(CopyElimination, F5_CopyFeedingALoopFromAPrivateBuffer) {
  ExpectElimination(Model(R"(g (int64 M, bool c, float[4] v0) => (float[4] vf) {
      one = Constant <value = float {1.0}> ()
      a = Relu(v0)
      t = ai.onnxopt.TensorMove(a)
      vf = Loop(M, c, t) )" +
                          kLoopBody + "}"),
                    {{"t", "DELETED"}}, Model(R"(g (int64 M, bool c, float[4] v0) => (float[4] vf) {
      one = Constant <value = float {1.0}> ()
      a = Relu(v0)
      vf = Loop(M, c, a) )" + kLoopBody + "}"));
}

TEST(CopyElimination, F6_CopyFeedingALoopFromASharedBuffer) {
  ExpectElimination(Model(R"(g (int64 M, bool c, float[4] v0) => (float[4] vf, float[4] n) {
      one = Constant <value = float {1.0}> ()
      a = Relu(v0)
      t = ai.onnxopt.TensorMove(a)
      vf = Loop(M, c, t) )" +
                          kLoopBody + R"(
      n = Neg(a)
    })"),
                    {{"t", "KEPT(4, rw-conflict)"}}, kUnchanged);
}

// --- View op with several outputs on one input ---

TEST(CopyElimination, R1_BothOutputsConnected) {
  ExpectElimination(Model(kTwoOutputs + "a = Relu(x) p, q = test.Fork(a) t = ai.onnxopt.TensorMove(p) y1 = "
                                        "Sigmoid(t) y2 = Neg(q) }"),
                    {{"t", "KEPT(3, alias-fanout)"}}, kUnchanged);
}

TEST(CopyElimination, R2_SecondOutputUnused) {
  ExpectElimination(Simple("a = Relu(x) p, q = test.Fork(a) t = "
                           "ai.onnxopt.TensorMove(p) y = Sigmoid(t)"),
                    {{"t", "DELETED"}}, Simple("a = Relu(x) p, q = test.Fork(a) y = Sigmoid(p)"));
}

// --- Reserved copies and visit order ---

TEST(CopyElimination, V1_V2_V3_ReservedAttributes) {
  // _cannot_be_deleted reserves when non-zero; no_need_constant_folding as soon as present.
  const std::string kept = "KEPT(reserved)";
  for (const auto& [attribute, verdict] :
       std::vector<std::pair<std::string, std::string>>{{"_cannot_be_deleted = 1", kept},
                                                        {"_cannot_be_deleted = 0", "DELETED"},
                                                        {"no_need_constant_folding = 0", kept}}) {
    ExpectElimination(Simple("a = Relu(x) t = ai.onnxopt.TensorMove <" + attribute + "> (a) y = Sigmoid(t)"),
                      {{"t", verdict}}, verdict == kept ? kUnchanged : Simple("a = Relu(x) y = Sigmoid(a)"));
  }
}

TEST(CopyElimination, V4_ReservedIdentityByOption) {
  MemoryOptions options;
  options.keep_copies = {"c"};
  ExpectElimination(kExporterClone, {{"c", "KEPT(reserved)"}}, kUnchanged, options);
}

TEST(CopyElimination, V5_ReservedUpstreamCopy) {
  MemoryOptions options;
  options.input_reuse = {0};
  ExpectElimination(Model(R"(g (float[4] x, int64[1] s) => (float[4] y1, float[4] y2) {
      t1 = ai.onnxopt.TensorMove <_cannot_be_deleted = 1> (x)
      r = Reshape(t1, s)
      t2 = ai.onnxopt.TensorMove(r)
      y1 = Sigmoid(t2)
      y2 = Abs(t1)
    })"),
                    {{"t1", "KEPT(reserved)"}, {"t2", "KEPT(3, fanout-not-direct)"}}, kUnchanged, options);
}

const std::string kV6 = Model(R"(g (float[4] x, int64[1] s) => (float[4] y, float[4] z) {
    t1 = ai.onnxopt.TensorMove(x)
    r = Reshape(t1, s)
    t2 = ai.onnxopt.TensorMove(r)
    y = Sigmoid(t2)
    z = Neg(x)
  })");

TEST(CopyElimination, V6_OrderMatters) {
  MemoryOptions options;
  options.output_reuse_input = {{0, 0}};
  ExpectElimination(kV6, {{"t1", "DELETED"}, {"t2", "DELETED"}},
                    Model(R"(g (float[4] x, int64[1] s) => (float[4] y, float[4] z) {
      r = Reshape(x, s)
      y = Sigmoid(r)
      z = Neg(x)
    })"),
                    options);
  options.visit_order = MemoryOptions::VisitOrder::kTopological;
  ExpectElimination(kV6, {{"t1", "DELETED"}, {"t2", "KEPT(3, fanout-not-direct)"}},
                    Model(R"(g (float[4] x, int64[1] s) => (float[4] y, float[4] z) {
      r = Reshape(x, s)
      t2 = ai.onnxopt.TensorMove(r)
      y = Sigmoid(t2)
      z = Neg(x)
    })"),
                    options);
}

// --- Rule 5 and the symbol table ---

TEST(CopyElimination, L1_UserInputIntoAContiguousInput) {
  MemoryOptions options;
  options.input_reuse = {0};
  ExpectElimination(
      Model(R"(g (float[4] x, float[4] z) => (float[8] y) { t = ai.onnxopt.TensorMove(x) y = test.CatInPlace(t, z) })"),
      {{"t", "KEPT(5, layout-conflict)"}}, kUnchanged, options);
}

TEST(CopyElimination, L2_InitializerIntoAContiguousInput) {
  ExpectElimination(Model(
                        R"(g (float[4] z) => (float[8] y) <float[4] W = {1.0, 2.0, 3.0, 4.0}> {
      t = ai.onnxopt.TensorMove(W)
      y = test.CatInPlace(t, z)
    })"),
                    {{"t", "KEPT(5, layout-conflict)"}}, kUnchanged);
}

TEST(CopyElimination, L3_PrivateBufferIntoAContiguousInput) {
  ExpectElimination(
      Model(
          R"(g (float[4] x, float[4] z) => (float[8] y) { a = Relu(x) t = ai.onnxopt.TensorMove(a) y = test.CatInPlace(t, z) })"),
      {{"t", "DELETED"}},
      Model(R"(g (float[4] x, float[4] z) => (float[8] y) { a = Relu(x) y = test.CatInPlace(a, z) })"));
}

TEST(CopyElimination, L4_OneBufferAtTwoSlotsOfOneBlock) {
  ExpectElimination(
      Model(R"(g (float[4] x) => (float[8] y) { a = Relu(x) t = ai.onnxopt.TensorMove(a) y = test.CatInPlace(a, t) })"),
      {{"t", "KEPT(5, layout-conflict)"}}, kUnchanged);
}

TEST(CopyElimination, M1_SymbolMerge) {
  const std::string before = Model(R"(g (float[4] x) => (float[4] y) <int64[1] s = {4}> {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      r = Reshape(t, s)
      y = Neg(r)
    })");
  const auto eliminated = Eliminate(before);
  builder::GraphBuilder builder{ModelProto(eliminated.after)};
  builder.InferShapes();
  const MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  EXPECT_EQ(graph.SymbolOf("a"), graph.SymbolOf("r"));
  EXPECT_EQ(graph.ValuesOf(graph.SymbolOf("a")), (std::vector<std::string>{"a", "r"}));
  EXPECT_EQ(graph.SymbolOf("t"), -1);
  ExpectElimination(before, {{"t", "DELETED"}}, Model(R"(g (float[4] x) => (float[4] y) <int64[1] s = {4}> {
      a = Relu(x)
      r = Reshape(a, s)
      y = Neg(r)
    })"));
}

// --- Robustness ---

TEST(CopyElimination, UnknownOrderingReferenceIsAnError) {
  MemoryOptions options;
  options.ordering = {{"nope", "y"}};
  EXPECT_THROW(Eliminate(Simple("a = Relu(x) t = ai.onnxopt.TensorMove(a) y = Sigmoid(t)"), options), Error);
}

TEST(CopyElimination, CopyOfAnUndefinedValueIsKept) {
  EXPECT_EQ(VerdictOf(Eliminate(Simple("t = ai.onnxopt.TensorMove(nowhere) y = Sigmoid(x)")), "t"),
            "KEPT(1, no-source)");
}

// --- The work limit (copy_elimination.h) ---

// Four copies of `a`, each read by its own Neg: every evaluation looks at a's 4 uses twice
// (Rule 3's siblings, each against the copy's one successor, and the copies a deletion
// makes pending again) and costs 1 + 8 (a trace of one hop) + 1 (successor) + 8 x 2
// (siblings) + 2 (the two symbols' values) = 28 steps, before and after each deletion (a
// deleted copy's Neg takes its place among a's uses).
const std::string kFourCopiesOfOneValue = Model(R"(
  g (float[4] x) => (float[4] y0, float[4] y1, float[4] y2, float[4] y3) {
    a = Relu(x)
    t0 = ai.onnxopt.TensorMove(a)
    t1 = ai.onnxopt.TensorMove(a)
    t2 = ai.onnxopt.TensorMove(a)
    t3 = ai.onnxopt.TensorMove(a)
    y0 = Neg(t0)
    y1 = Neg(t1)
    y2 = Neg(t2)
    y3 = Neg(t3)
  })");

TEST(CopyElimination, WorkIsCountedAndTheDefaultLimitIsLinearInTheUses) {
  const auto eliminated = Eliminate(kFourCopiesOfOneValue);
  EXPECT_EQ(eliminated.result.work_steps, 4u * 28u);
  // 9 node inputs and 4 graph outputs.
  EXPECT_EQ(eliminated.result.work_limit, kMinWorkSteps + 13 * kWorkStepsPerUse);
  EXPECT_FALSE(eliminated.result.work_limited);
  EXPECT_EQ(eliminated.result.Count(CopyVerdict::Kind::kDeleted), 4u);
}

TEST(CopyElimination, TheWorkLimitKeepsTheCopiesNotDecided) {
  MemoryOptions options;
  options.work_limit = 62;  // two evaluations of 28 steps; not three
  const auto eliminated = Eliminate(kFourCopiesOfOneValue, options);
  EXPECT_TRUE(eliminated.result.work_limited);
  EXPECT_EQ(eliminated.result.work_steps, 56u);
  // The reverse visit order decides t3 and t2; t1's evaluation does not fit; t0 is never
  // reached.
  EXPECT_EQ(VerdictOf(eliminated, "t3"), "DELETED");
  EXPECT_EQ(VerdictOf(eliminated, "t2"), "DELETED");
  EXPECT_EQ(VerdictOf(eliminated, "t1"), "KEPT(work-limit)");
  EXPECT_EQ(eliminated.result.verdicts.size(), 3u);
  EXPECT_EQ(testing::CanonicalGraph(eliminated.after.graph()),
            testing::CanonicalGraph(ParseText(Model(R"(
              g (float[4] x) => (float[4] y0, float[4] y1, float[4] y2, float[4] y3) {
                a = Relu(x)
                t0 = ai.onnxopt.TensorMove(a)
                t1 = ai.onnxopt.TensorMove(a)
                y0 = Neg(t0)
                y1 = Neg(t1)
                y2 = Neg(a)
                y3 = Neg(a)
              })")).graph()));
  const MemoryReport report = [&] {
    MemoryReport r;
    r.elimination = eliminated.result;
    return r;
  }();
  EXPECT_NE(ReportText(report).find("warning: the work limit (62 steps, linear in the graph) ended the pass early"),
            std::string::npos);
  EXPECT_NE(ReportJson(report).find(R"("work_steps":56,"work_limit":62,"work_limited":true)"), std::string::npos);
}

TEST(CopyElimination, ALongPathShowsItsEnds) {
  // 20 Reshapes between the source and the copy: the path names the 8 values nearest to
  // each end.
  std::string body = "v0 = Relu(x)";
  for (int i = 1; i <= 20; ++i) body += " v" + std::to_string(i) + " = Reshape(v" + std::to_string(i - 1) + ", s)";
  const auto eliminated = Eliminate(
      Model("g (float[4] x) => (float[4] y) <int64[1] s = {4}> {" + body + " t = ai.onnxopt.TensorMove(v20) y = Neg(t) }"));
  ASSERT_EQ(eliminated.result.verdicts.size(), 1u);
  EXPECT_EQ(eliminated.result.verdicts[0].path,
            "v0(out:0) --> v1(out:0) --> v2(out:0) --> v3(out:0) --> v4(out:0) --> v5(out:0) --> v6(out:0) --> "
            "v7(out:0) --> (5 more) --> v13(out:0) --> v14(out:0) --> v15(out:0) --> v16(out:0) --> v17(out:0) --> "
            "v18(out:0) --> v19(out:0) --> v20(out:0) --> (in:0) t");
  EXPECT_EQ(VerdictOf(eliminated, "t"), "DELETED");
}

// --- The analysis updated after a removal (MemoryGraph::UpdateAfterCopyRemoval) ---
// Every ExpectElimination above compares each update with a rebuild; these check the
// comparison itself and where an update declines.

// The node list of `builder` without its node whose first output is `output`.
void EraseNode(builder::GraphBuilder& builder, const std::string& output) {
  for (const NodeProto& node : builder.Nodes())
    if (node.output(0) == output) return NodeOrder(builder).Erase(&node);
}

const NodeProto& NodeNamed(const builder::GraphBuilder& builder, const std::string& output) {
  for (const NodeProto& node : builder.Nodes())
    if (node.output(0) == output) return node;
  throw Error("no node " + output);
}

TEST(MemoryGraphUpdate, AnAnalysisNotUpdatedDiffersFromARebuildAndAnUpdatedOneDoesNot) {
  testing::RegisterMemoryTestOperators();
  builder::GraphBuilder builder(ParseText(Model(R"(g (float[4] x) => (float[4] y) <int64[1] s = {4}> {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      r = Reshape(t, s)
      y = Sigmoid(r)
    })")));
  builder.InferShapes();
  MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  const NodeProto* copy = &NodeNamed(builder, "t");
  EXPECT_NE(graph.SymbolOf("a"), graph.SymbolOf("r"));
  builder.RenameUses("t", "a");
  EraseNode(builder, "t");
  const MemoryGraph rebuilt(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  EXPECT_EQ(graph.DifferenceFrom(rebuilt), "the node lists differ");

  ASSERT_TRUE(graph.UpdateAfterCopyRemoval(copy, "a", "t", MemoryGraph::CopyRemoval::kRenameUses));
  EXPECT_EQ(graph.DifferenceFrom(rebuilt), "");
  // The view of the copy's output is a view of its input now: one buffer.
  EXPECT_EQ(graph.SymbolOf("a"), graph.SymbolOf("r"));
  EXPECT_EQ(graph.SymbolOf("t"), -1);
  // Positions keep their order, with a gap where the copy was.
  const NodeProto& reshape = NodeNamed(builder, "r");
  EXPECT_EQ(graph.Position(&reshape), 2u);
  EXPECT_EQ(rebuilt.Position(&reshape), 1u);
  EXPECT_EQ(graph.IndexOf(&reshape), 1u);
}

TEST(MemoryGraphUpdate, AWrongUpdateIsFound) {
  // The pass renames the copy's uses; an update as if it had renamed the producer's output
  // instead defines `t` where a rebuild defines `a`.
  testing::RegisterMemoryTestOperators();
  builder::GraphBuilder builder(ParseText(Simple("a = Relu(x) t = ai.onnxopt.TensorMove(a) y = Sigmoid(t)")));
  builder.InferShapes();
  MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  const NodeProto* copy = &NodeNamed(builder, "t");
  builder.RenameUses("t", "a");
  EraseNode(builder, "t");
  const MemoryGraph rebuilt(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  ASSERT_TRUE(graph.UpdateAfterCopyRemoval(copy, "a", "t", MemoryGraph::CopyRemoval::kRenameProducer));
  EXPECT_EQ(graph.DifferenceFrom(rebuilt), "the definition of 'a'");
}

TEST(MemoryGraphUpdate, AnInstanceBuiltAgainWithItsEditMatchesARebuild) {
  testing::RegisterMemoryTestOperators();
  builder::GraphBuilder builder(ParseText(WithFunctions(
      "g (float[4] x) => (float[4] y) { a = Relu(x) u = local.g(a) y = local.g(u) }", {kCopyThenSigmoid})));
  builder.InferShapes();
  InstanceEdits edits;
  MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions(), {}, {}, &edits);
  ASSERT_EQ(graph.Instances().size(), 2u);
  const MemoryGraph& second = *graph.Instances()[1];
  const std::string key = second.InstanceKey();
  // The second call's copy deleted (its uses renamed), as the pass records it.
  edits[key].push_back({0, BodyEdit::Kind::kRenameUses});
  const MemoryGraph rebuilt(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions(), {}, {}, &edits);
  EXPECT_EQ(graph.DifferenceFrom(rebuilt), "the instance " + Quote(key));

  const MemoryGraph* again = graph.RebuildInstance(second);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->InstanceKey(), key);
  EXPECT_EQ(again->Nodes().size(), 1u);
  EXPECT_EQ(graph.Instances()[0]->Nodes().size(), 2u);  // the first call's instance is left as it was
  EXPECT_EQ(graph.DifferenceFrom(rebuilt), "");
}

TEST(MemoryGraphUpdate, CallsReadingTheCopyGetTheirInstancesBuiltAgain) {
  // An instance holds the names its call reads: renaming the call's input builds it again
  // (a rebuild of the whole analysis for each such copy made a chain of 3 000 copies read
  // by calls take 62 s).
  testing::RegisterMemoryTestOperators();
  builder::GraphBuilder builder(ParseText(WithFunctions(
      "g (float[4] x) => (float[4] y) { a = Relu(x) t = ai.onnxopt.TensorMove(a) y = local.g(t) }",
      {kCopyThenSigmoid})));
  builder.InferShapes();
  MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  MemoryGraph declining(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  ASSERT_EQ(graph.Instances().size(), 1u);
  const MemoryGraph* before = graph.Instances()[0];
  const std::string key = before->InstanceKey();
  const NodeProto* copy = &NodeNamed(builder, "t");
  builder.RenameUses("t", "a");
  EraseNode(builder, "t");
  const MemoryGraph rebuilt(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());

  EXPECT_FALSE(declining.UpdateAfterCopyRemoval(copy, "a", "t", MemoryGraph::CopyRemoval::kRenameUses));
  std::vector<const MemoryGraph*> instances;
  ASSERT_TRUE(graph.UpdateAfterCopyRemoval(copy, "a", "t", MemoryGraph::CopyRemoval::kRenameUses, &instances));
  ASSERT_EQ(instances.size(), 1u);
  EXPECT_EQ(instances[0], graph.Instances()[0]);
  EXPECT_EQ(instances[0]->InstanceKey(), key);
  EXPECT_EQ(graph.DifferenceFrom(rebuilt), "");
  // The pass replaces the instance's candidates: its copy is decided in the new instance.
  ExpectElimination(WithFunctions(
                        "g (float[4] x) => (float[4] y) { a = Relu(x) t = ai.onnxopt.TensorMove(a) y = local.g(t) }",
                        {kCopyThenSigmoid}),
                    {{"t", "DELETED"}, {"y/t", "DELETED"}},
                    WithFunctions("g (float[4] x) => (float[4] y) { a = Relu(x) y = local.g(a) }",
                                  {"g (p) => (q) { q = Sigmoid(p) }"}));
}

TEST(MemoryGraphUpdate, ReadersInNestedGraphsAreLeftToARebuild) {
  testing::RegisterMemoryTestOperators();
  const std::string model = Model(R"(g (float[4] x, bool c) => (float[4] y) {
      a = Relu(x)
      t = ai.onnxopt.TensorMove(a)
      y = If(c) <then_branch = tb () => (float[4] z1) { z1 = Neg(t) }, else_branch = eb () => (float[4] z2) { z2 = Abs(t) }>
    })");
  builder::GraphBuilder builder(ParseText(model));
  builder.InferShapes();
  MemoryGraph graph(builder.Graph(), true, kDefaultOptions, TypeQueryOf(builder), builder.Functions());
  EXPECT_FALSE(graph.UpdateAfterCopyRemoval(&NodeNamed(builder, "t"), "a", "t",
                                            MemoryGraph::CopyRemoval::kRenameUses));
  // The pass rebuilds its analysis then, and deletes the copy, renaming the nested reads.
  ExpectElimination(model, {{"t", "DELETED"}}, Model(R"(g (float[4] x, bool c) => (float[4] y) {
      a = Relu(x)
      y = If(c) <then_branch = tb () => (float[4] z1) { z1 = Neg(a) }, else_branch = eb () => (float[4] z2) { z2 = Abs(a) }>
    })"));
}

}  // namespace
}  // namespace onnxopt::core::memory

namespace onnxopt::core::memory {
namespace {

// The GraphPass wrapper, called the way the driver will call it (graph_pass.h).
TEST(CopyEliminationPass, RunReportsItsEditsToTheDriver) {
  testing::RegisterMemoryTestOperators();
  builder::GraphBuilder builder(
      testing::ParseText(Model(kB1Header + "a = Relu(x) t = ai.onnxopt.TensorMove(a) w = ScatterND(t, idx, upd) "
                                           "s = Neg(a) y1 = Sigmoid(w) y2 = ai.onnxopt.TensorMove(s) }")));
  builder.InferShapes();
  builder::GraphGraph graph(builder);
  builder::PassResult result;
  const CopyEliminationPass pass;
  EXPECT_EQ(pass.Name(), "CopyElimination");
  EXPECT_EQ(pass.Stage(), builder::OptimizationStage::kFinal);
  pass.Run(graph, result);
  EXPECT_EQ(result.counters,
            (std::map<std::string, std::int64_t>{
                {"constraints", 1}, {"copies", 2}, {"deleted", 2}, {"elided", 0}, {"kept", 0}, {"nodes_moved", 2}}));
  // t went by renaming its uses; y2 by renaming its producer's output.
  EXPECT_EQ(result.value_renames, (std::vector<std::pair<std::string, std::string>>{{"s", "y2"}, {"t", "a"}}));
  std::set<std::string> modified;
  for (const NodeProto* node : result.modified_nodes) modified.insert(node->output(0));
  EXPECT_EQ(modified, (std::set<std::string>{"w", "y2"}));
  EXPECT_EQ(
      testing::CanonicalGraph(builder.Graph()),
      testing::CanonicalGraph(
          testing::ParseText(Model(kB1Header + "a = Relu(x) y2 = Neg(a) w = ScatterND(a, idx, upd) y1 = Sigmoid(w) }"))
              .graph()));
}

// The driver's batches record the graph's nodes, not function bodies: the pass
// traces through calls but leaves copies inside bodies alone.
TEST(CopyEliminationPass, TracesThroughCallsButLeavesBodiesAlone) {
  testing::RegisterMemoryTestOperators();
  const std::string functions = "\n" + kFunctionHeader + "\n" + kCopyThenSigmoid + "\n" + kFunctionHeader + "\n" +
                                "f (p) => (q) { q = Relu(p) }";
  builder::GraphBuilder builder(testing::ParseText(
      Model("g (float[4] x) => (float[4] y1, float[4] y2) { u = local.f(x) t = ai.onnxopt.TensorMove(u) "
            "y1 = Sigmoid(t) a = Relu(x) y2 = local.g(a) }") +
      functions));
  builder.InferShapes();
  builder::GraphGraph graph(builder);
  builder::PassResult result;
  CopyEliminationPass().Run(graph, result);
  EXPECT_EQ(result.counters.at("deleted"), 1);
  EXPECT_EQ(result.counters.at("copies"), 1);
  const ModelProto expected = testing::ParseText(
      Model("g (float[4] x) => (float[4] y1, float[4] y2) { u = local.f(x) y1 = Sigmoid(u) a = Relu(x) "
            "y2 = local.g(a) }"));
  EXPECT_EQ(testing::CanonicalGraph(builder.Graph()), testing::CanonicalGraph(expected.graph()));
  EXPECT_EQ(builder.Functions().Get(0).node_size(), 2);  // g keeps its copy
}

}  // namespace
}  // namespace onnxopt::core::memory
