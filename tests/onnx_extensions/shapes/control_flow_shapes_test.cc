// Tests of the shape functions of control_flow_shapes.cc: If, Loop, Scan (both forms),
// SequenceMap, sequences and optionals, with symbolic inputs.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Model(int opset, const std::string& signature, const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + signature + " {\n" + body + "\n}";
}

// ---------------------------------------------------------------------------------------
// If

TEST(IfShape, MergesBranchesReadingOuterValues) {
  auto s = InferText(Model(16, "g (bool c, float[N,4] a, float[N,6] b, float[N] v) => (float[] y, float[] z, float[] w)",
                           "y, z, w = If <then_branch = t () => (float[] ty, float[] tz, float[] tw) {\n"
                           "    ty = Identity (a)\n    tz = Identity (a)\n    tw = Identity (a)\n  },\n"
                           "  else_branch = e () => (float[] ey, float[] ez, float[] ew) {\n"
                           "    ey = Identity (b)\n    ez = Relu (a)\n    ew = Identity (v)\n  }> (c)"));
  EXPECT_EQ(s.Get("y"), "float[N,?]");
  EXPECT_EQ(s.Get("z"), "float[N,4]");
  EXPECT_EQ(s.Get("w"), "float?");  // ranks differ
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

TEST(IfShape, ConstantConditionSelectsTheBranch) {
  auto s = InferText(Model(16, "g (float[N,4] a, float[N,6] b) => (float[] y)",
                           "c = Constant <value = bool {1}> ()\n"
                           "y = If <then_branch = t () => (float[] ty) { ty = Identity (a) },\n"
                           "  else_branch = e () => (float[] ey) { ey = Identity (b) }> (c)"));
  EXPECT_EQ(s.Get("y"), "float[N,4]");
}

TEST(IfShape, RefusesBranchTypesThatDisagree) {
  EXPECT_EQ(InferenceRefusal(Model(16, "g (bool c, float[N] a, int64[N] b) => (float[] y)",
                                   "y = If <then_branch = t () => (float[] ty) { ty = Identity (a) },\n"
                                   "  else_branch = e () => (int64[] ey) { ey = Identity (b) }> (c)")),
            "node #0 (If): If-16 branches give output 0 one type; found float[N] in then_branch, int64[N] in "
            "else_branch");
}

TEST(IfShape, RefusesBranchesWithAnotherOutputCount) {
  EXPECT_EQ(InferenceRefusal(Model(16, "g (bool c, float[N] a) => (float[] y)",
                                   "y = If <then_branch = t () => (float[] ty, float[] tz) { ty = Identity (a)\n"
                                   "    tz = Neg (a) },\n"
                                   "  else_branch = e () => (float[] ey) { ey = Neg (a) }> (c)")),
            "node #0 (If): If-16 then_branch has 0 inputs and 1 outputs (one output per output of the node); found 0 "
            "inputs and 2 outputs");
}

TEST(LoopShape, RefusesABodyWithAnotherSignature) {
  EXPECT_EQ(InferenceRefusal(Model(16, "g (float[N,4] x) => (float[] acc)",
                                   "m = Constant <value = int64 {5}> ()\n"
                                   "acc = Loop <body = body (int64 i, bool cond) => (bool co, float[] an) {\n"
                                   "    co = Identity (cond)\n    an = Neg (x)\n  }> (m, , x)")),
            "node #1 (Loop): Loop-16 body has 3 inputs and 2 outputs (the iteration number, the condition and the "
            "carried values in; the condition and the outputs of the node out); found 2 inputs and 2 outputs");
}

TEST(ScanShape, RefusesNumScanInputsOutOfRange) {
  EXPECT_EQ(InferenceRefusal(Model(9, "g (float[4] init, float[S,4] xs) => (float[] f)",
                                   "f = Scan <num_scan_inputs = 3,\n"
                                   "  body = body (float[] st, float[] x) => (float[] st2) {\n"
                                   "    st2 = Add (st, x)\n  }> (init, xs)")),
            "node #0 (Scan): Scan-9 num_scan_inputs is in [1, 2] (the state and scan inputs); found num_scan_inputs 3");
}

// ---------------------------------------------------------------------------------------
// Loop

TEST(LoopShape, CarriedValuesAndScanOutputsWithConstantTripCount) {
  auto s = InferText(Model(16, "g (float[N,4] x) => (float[] acc, float[] sc)",
                           "m = Constant <value = int64 {5}> ()\n"
                           "acc, sc = Loop <body = body (int64 i, bool cond, float[] a) => (bool co, float[] an, "
                           "float[] s) {\n"
                           "    co = Identity (cond)\n    an = Add (a, x)\n    s = Identity (a)\n  }> (m, , x)"));
  EXPECT_EQ(s.Get("acc"), "float[N,4]");
  EXPECT_EQ(s.Get("sc"), "float[5,N,4]");
}

TEST(LoopShape, GrowingCarriedValueLosesTheChangingDim) {
  auto s = InferText(Model(16, "g (int64 m, bool c, float[N,4] x) => (float[] acc, float[] sc)",
                           "acc, sc = Loop <body = body (int64 i, bool cond, float[] a) => (bool co, float[] an, "
                           "float[] s) {\n"
                           "    co = Identity (cond)\n    an = Concat <axis = 0> (a, x)\n    s = Identity (a)\n"
                           "  }> (m, c, x)"));
  EXPECT_EQ(s.Get("acc"), "float[?,4]");
  // The condition may stop the loop early: the number of iterations is unknown.
  EXPECT_EQ(s.Get("sc"), "float[?,?,4]");
}

TEST(LoopShape, SymbolicTripCountWithoutCondition) {
  auto s = InferText(Model(16, "g (float[T,4] x) => (float[] sc)",
                           "shape = Shape (x)\n"
                           "zero = Constant <value = int64 {0}> ()\n"
                           "t = Gather <axis = 0> (shape, zero)\n"
                           "sc = Loop <body = body (int64 i, bool cond) => (bool co, float[] s) {\n"
                           "    co = Identity (cond)\n    s = Identity (x)\n  }> (t, )"));
  EXPECT_EQ(s.Get("sc"), "float[T,T,4]");
}

// ---------------------------------------------------------------------------------------
// Scan

TEST(ScanShape, StatesAndScanOutputs) {
  auto s = InferText(Model(16, "g (float[B,4] init, float[S,B,4] xs, float[B,T,4] ys) => (float[] f, float[] o, float[] p)",
                           "f, o, p = Scan <num_scan_inputs = 2, scan_input_axes = [0, 1], scan_output_axes = [0, -1],\n"
                           "  body = body (float[] st, float[] x, float[] y) => (float[] st2, float[] a, float[] b) {\n"
                           "    st2 = Add (st, x)\n    a = Identity (st2)\n    b = Identity (y)\n  }> (init, xs, ys)"));
  EXPECT_EQ(s.Get("f"), "float[B,4]");
  EXPECT_EQ(s.Get("o"), "float[S,B,4]");
  EXPECT_EQ(s.Get("p"), "float[B,4,S]");
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

TEST(ScanShape, ReportsDifferentSequenceLengths) {
  auto s = InferText(Model(16, "g (float[3,4] xs, float[5,4] ys) => (float[] o)",
                           "o = Scan <num_scan_inputs = 2,\n"
                           "  body = body (float[] x, float[] y) => (float[] a) { a = Add (x, y) }> (xs, ys)"));
  EXPECT_THAT(s.Diagnostics(), Contains(HasSubstr("sequence lengths")));
}

TEST(ScanShape, Opset8HasABatchDim) {
  auto s = InferText(Model(8, "g (int64[B] lens, float[B,4] init, float[B,S,4] xs) => (float[] f, float[] o)",
                           "f, o = Scan <num_scan_inputs = 1,\n"
                           "  body = body (float[] st, float[] x) => (float[] st2, float[] a) {\n"
                           "    st2 = Add (st, x)\n    a = Identity (x)\n  }> (lens, init, xs)"));
  EXPECT_EQ(s.Get("f"), "float[B,4]");
  EXPECT_EQ(s.Get("o"), "float[B,S,4]");
}

// ---------------------------------------------------------------------------------------
// Sequences

TEST(SequenceShape, ConstructInsertAtEraseLength) {
  auto s = InferText(Model(11,
                           "g (float[N,4] a, float[N,4] b, float[M,4] c) => (float[] e)",
                           "s1 = SequenceConstruct (a, b)\n"
                           "s2 = SequenceInsert (s1, c)\n"
                           "e = SequenceAt (s1, zero)\n"
                           "s3 = SequenceErase (s2)\n"
                           "n = SequenceLength (s2)\n"
                           "s4 = SequenceEmpty ()\n"
                           "zero = Constant <value = int64 {0}> ()"));
  EXPECT_EQ(s.Get("s1"), "seq(float[N,4])");
  EXPECT_EQ(s.Get("s2"), "seq(float[?,4])");
  EXPECT_EQ(s.Get("s3"), "seq(float[?,4])");
  EXPECT_EQ(s.Get("n"), "int64[]");
  EXPECT_EQ(s.Get("s4"), "seq(float?)");
}

TEST(SequenceShape, SequenceAtGivesTheElement) {
  auto s = InferText(Model(11, "g (float[N,4] a, float[N,4] b, int64 i) => (float[] e)",
                           "s = SequenceConstruct (a, b)\ne = SequenceAt (s, i)"));
  EXPECT_EQ(s.Get("e"), "float[N,4]");
}

TEST(SequenceShape, SplitToSequenceForms) {
  auto s = InferText(Model(11,
                           "g (float[N,6] x) => (float[] y)",
                           "two = Constant <value = int64 {2}> ()\n"
                           "parts = Constant <value = int64[2] {2, 4}> ()\n"
                           "same = Constant <value = int64[2] {3, 3}> ()\n"
                           "a = SplitToSequence <axis = 1> (x)\n"
                           "b = SplitToSequence <axis = 1, keepdims = 0> (x)\n"
                           "c = SplitToSequence <axis = 1> (x, two)\n"
                           "d = SplitToSequence <axis = 1> (x, parts)\n"
                           "e = SplitToSequence <axis = -1> (x, same)\n"
                           "y = Identity (x)"));
  EXPECT_EQ(s.Get("a"), "seq(float[N,1])");
  EXPECT_EQ(s.Get("b"), "seq(float[N])");
  EXPECT_EQ(s.Get("c"), "seq(float[N,2])");
  EXPECT_EQ(s.Get("d"), "seq(float[N,?])");
  EXPECT_EQ(s.Get("e"), "seq(float[N,3])");
}

// As Split's: sizes that do not add up to a known dim split nothing (the kernel refuses
// them when the node runs; the sequence-at pattern would build such a Split).
TEST(SequenceShape, SplitToSequenceRefusesSizesThatDoNotSplitTheDim) {
  auto split = [](const char* constant) {
    return InferenceRefusal(Model(11, "g (float[N,6] x) => (float[] y)",
                                  std::string("s = Constant <value = ") + constant +
                                      "> ()\nq = SplitToSequence <axis = 1> (x, s)\ny = Identity (x)"));
  };
  EXPECT_EQ(split("int64[2] {2, 4}"), "");
  EXPECT_EQ(split("int64[2] {2, 5}"),
            "node #1 (SplitToSequence): SplitToSequence-11 split sizes add up to the dim split; found split [2,5] "
            "(sum 7) for a dim of 6");
  EXPECT_EQ(split("int64[2] {7, -1}"), "node #1 (SplitToSequence): SplitToSequence-11 split sizes >= 0; found split [7,-1]");
  EXPECT_EQ(split("int64 {0}"), "node #1 (SplitToSequence): SplitToSequence-11 scalar split > 0; found split 0");
  EXPECT_EQ(split("int64 {4}"), "");  // chunks of 4, the last one of 2
}

TEST(SequenceShape, ConcatFromSequence) {
  auto s = InferText(Model(11, "g (float[N,4] a, float[N,4] b) => (float[] c, float[] d)",
                           "s = SequenceConstruct (a, b)\n"
                           "c = ConcatFromSequence <axis = 1> (s)\n"
                           "d = ConcatFromSequence <axis = -1, new_axis = 1> (s)"));
  EXPECT_EQ(s.Get("c"), "float[N,?]");
  EXPECT_EQ(s.Get("d"), "float[N,4,?]");
}

TEST(SequenceShape, SequenceMapAppliesTheBodyToElements) {
  auto s = InferText(Model(17, "g (float[N,4] a, float[N,4] b, float[4] bias) => (float[] y)",
                           "s = SequenceConstruct (a, b)\n"
                           "o = SequenceMap <body = body (float[] e, float[] x) => (float[] r) { r = Add (e, x) }> "
                           "(s, bias)\ny = Identity (a)"));
  EXPECT_EQ(s.Get("o"), "seq(float[N,4])");
}

// ---------------------------------------------------------------------------------------
// Optionals

TEST(OptionalShape, WrapAndUnwrap) {
  auto s = InferText(Model(18, "g (float[N,4] x) => (float[] e, bool h, float[] t)",
                           "o = Optional (x)\ne = OptionalGetElement (o)\nh = OptionalHasElement (o)\n"
                           "t = OptionalGetElement (x)"));
  EXPECT_EQ(s.Get("o"), "optional(float[N,4])");
  EXPECT_EQ(s.Get("e"), "float[N,4]");
  EXPECT_EQ(s.Get("h"), "bool[]");
  EXPECT_EQ(s.Get("t"), "float[N,4]");
}

}  // namespace
}  // namespace onnxopt::testing
