#include <cstdint>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

const Tensor& Out(const core::eval::ValueMap& out, const std::string& name) {
  return core::eval::AsTensor(out.at(name), name);
}

TEST(IfKernel, RunsTheSelectedBranchWithOuterValues) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 18]>
    g (bool c, float[2] x) => (float[2] y) {
      y = If <then_branch = t () => (float[2] ty) { ty = Add (x, x) },
              else_branch = e () => (float[2] ey) { ey = Mul (x, x) }> (c)
    })ONNX";
  const Tensor x = MakeTensor<float>({2}, {3, -1});
  EXPECT_TENSOR(RunOne(text, {{"c", MakeScalar<bool>(true)}, {"x", x}}), MakeTensor<float>({2}, {6, -2}));
  EXPECT_TENSOR(RunOne(text, {{"c", MakeScalar<bool>(false)}, {"x", x}}), MakeTensor<float>({2}, {9, 1}));
}

TEST(LoopKernel, CarriesValuesAndStacksScanOutputs) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 16]>
    g (int64 m, bool c, float[2] x, float[2] a0) => (float[2] acc, float[3,2] sc) {
      acc, sc = Loop <body = body (int64 i, bool cin, float[2] a) => (bool cout, float[2] an, float[2] s) {
        cout = Identity (cin)
        an = Add (a, x)
        s = Identity (an)
      }> (m, c, a0)
    })ONNX";
  auto out = RunText(text, {{"m", MakeScalar<std::int64_t>(3)},
                            {"c", MakeScalar<bool>(true)},
                            {"x", MakeTensor<float>({2}, {1, 2})},
                            {"a0", MakeTensor<float>({2}, {0, 0})}});
  EXPECT_TENSOR(Out(out, "acc"), MakeTensor<float>({2}, {3, 6}));
  EXPECT_TENSOR(Out(out, "sc"), MakeTensor<float>({3, 2}, {1, 2, 2, 4, 3, 6}));
}

TEST(LoopKernel, StopsWhenTheBodyConditionIsFalse) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 16]>
    g (int64 m, bool c, int64 limit, int64 n0) => (int64 n) {
      n = Loop <body = body (int64 i, bool cin, int64 k) => (bool cout, int64 kn) {
        kn = Add (k, i)
        cout = Less (i, limit)
      }> (m, c, n0)
    })ONNX";
  // Iterations i = 0, 1, 2 (the condition i < 2 turns false after i = 2).
  auto n = RunOne(text, {{"m", MakeScalar<std::int64_t>(10)},
                         {"c", MakeScalar<bool>(true)},
                         {"limit", MakeScalar<std::int64_t>(2)},
                         {"n0", MakeScalar<std::int64_t>(100)}},
                  "n");
  EXPECT_TENSOR(n, MakeScalar<std::int64_t>(103));
}

TEST(LoopKernel, ReturnsEmptyScanOutputsForZeroIterations) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 16]>
    g (int64 m, float[2] a0) => (float[2] acc, float[0] sc) {
      acc, sc = Loop <body = body (int64 i, bool cin, float[2] a) => (bool cout, float[2] an, float[2] s) {
        cout = Identity (cin)
        an = Identity (a)
        s = Identity (a)
      }> (m, , a0)
    })ONNX";
  auto out = RunText(text, {{"m", MakeScalar<std::int64_t>(0)}, {"a0", MakeTensor<float>({2}, {1, 2})}});
  EXPECT_TENSOR(Out(out, "acc"), MakeTensor<float>({2}, {1, 2}));
  EXPECT_EQ(Out(out, "sc").size(), 0);
}

// Runs `text` with the nested graphs limited to `budget` node runs (RunOptions).
core::eval::ValueMap RunWithNestedBudget(const ModelProto& model, const Inputs& inputs, std::uint64_t budget) {
  onnx_kernels::RegisterKernels();
  core::eval::ValueMap values;
  for (const auto& [name, tensor] : inputs) values[name] = tensor;
  core::eval::RunOptions options;
  options.max_nested_node_runs = budget;
  return core::eval::Run(model, values, options);
}
core::eval::ValueMap RunWithNestedBudget(std::string_view text, const Inputs& inputs, std::uint64_t budget) {
  return RunWithNestedBudget(ParseText(text), inputs, budget);
}

// The message of the ModelError RunWithNestedBudget throws; "" and a test failure when it runs.
std::string NestedBudgetError(const ModelProto& model, const Inputs& inputs, std::uint64_t budget) {
  try {
    RunWithNestedBudget(model, inputs, budget);
  } catch (const ModelError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a ModelError";
  return "";
}
std::string NestedBudgetError(std::string_view text, const Inputs& inputs, std::uint64_t budget) {
  return NestedBudgetError(ParseText(text), inputs, budget);
}

// Loops nested in loops multiply their iterations past the per-loop limit: the nested
// graphs of one evaluation share one budget of node runs. Here 3 outer runs of 2 nodes and
// 9 inner runs of 2 nodes: 24.
TEST(LoopKernel, NestedLoopsShareOneBudgetOfNodeRuns) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 18]>
    g (int64 m, bool c, float[1] a0) => (float[1] acc) {
      acc = Loop <body = outer (int64 i, bool cin, float[1] a) => (bool cout, float[1] an) {
        cout = Identity (cin)
        an = Loop <body = inner (int64 j, bool din, float[1] b) => (bool dout, float[1] bn) {
          dout = Identity (din)
          bn = Add (b, a)
        }> (m, cin, a)
      }> (m, c, a0)
    })ONNX";
  const Inputs inputs{{"m", MakeScalar<std::int64_t>(3)}, {"c", MakeScalar<bool>(true)}, {"a0", MakeTensor<float>({1}, {1})}};
  EXPECT_TENSOR(OutputTensor(RunWithNestedBudget(text, inputs, 24), "acc"), MakeTensor<float>({1}, {64}));
  EXPECT_EQ(NestedBudgetError(text, inputs, 23),
            "node 'acc' (Loop): node 'an' (Loop): the nested graphs (If branches, Loop and Scan bodies) would run "
            "more than 23 nodes in one evaluation (22 run so far); a loop that never ends, or loops nested in loops, "
            "do that");
}

// A body without nodes still counts one run: a long loop of them is refused too.
TEST(LoopKernel, EmptyBodiesCountAgainstTheBudget) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 18]>
    g (int64 m, bool c, float v) => (float done) {
      done = Loop <body = empty (int64 i, bool cin, float vin) => (bool cin, float vin) {}> (m, c, v)
    })ONNX";
  const Inputs inputs{
      {"m", MakeScalar<std::int64_t>(1'000'000)}, {"c", MakeScalar<bool>(true)}, {"v", MakeScalar<float>(2)}};
  EXPECT_TENSOR(OutputTensor(RunWithNestedBudget(text, {{"m", MakeScalar<std::int64_t>(100)}, inputs[1], inputs[2]}, 100),
                             "done"),
                MakeScalar<float>(2));
  EXPECT_EQ(NestedBudgetError(text, inputs, 100),
            "node 'done' (Loop): the nested graphs (If branches, Loop and Scan bodies) would run more than 100 "
            "nodes in one evaluation (100 run so far); a loop that never ends, or loops nested in loops, do that");
}

// The sequences a body gets count too (the body copies them): a Loop carrying a sequence
// that grows by one element an iteration copied n^2 / 2 elements in n iterations.
TEST(LoopKernel, SequencesPassedToTheBodyCountAgainstTheBudget) {
  // The text syntax has no sequence types: the body's carried value is declared a tensor,
  // then made a sequence of float[1].
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 18]>
    g (int64 m, bool c, float[1] x) => (int64 n) {
      s0 = SequenceEmpty <dtype = 1> ()
      s = Loop <body = grow (int64 i, bool cin, float[1] sin) => (bool cout, float[1] sout) {
        cout = Identity (cin)
        sout = SequenceInsert (sin, x)
      }> (m, c, s0)
      n = SequenceLength (s)
    })ONNX");
  GraphProto& body = *model.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  for (ValueInfoProto* value : {body.mutable_input(2), body.mutable_output(1)}) {
    const TypeProto element = value->type();
    *value->mutable_type()->mutable_sequence_type()->mutable_elem_type() = element;
  }
  // Iteration i runs 2 nodes and gets i elements: 2 + i / 4 runs, 28 for 10 iterations.
  const Inputs inputs{{"m", MakeScalar<std::int64_t>(10)}, {"c", MakeScalar<bool>(true)}, {"x", MakeTensor<float>({1}, {1})}};
  EXPECT_TENSOR(OutputTensor(RunWithNestedBudget(model, inputs, 28), "n"), MakeScalar<std::int64_t>(10));
  EXPECT_EQ(NestedBudgetError(model, inputs, 27),
            "node 's' (Loop): the nested graphs (If branches, Loop and Scan bodies) would run more than 27 nodes in "
            "one evaluation (24 run so far, 4 elements of a sequence passed in counting as one); a loop that never "
            "ends, or loops nested in loops, do that");
}

TEST(ScanKernel, ComputesCumulativeSumsInBothDirections) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 16]>
    g (float[2] s0, float[3,2] xs) => (float[2] s, float[3,2] ys) {
      s, ys = Scan <num_scan_inputs = 1, scan_input_directions = [DIR],
                    body = body (float[2] st, float[2] row) => (float[2] sn, float[2] out) {
        sn = Add (st, row)
        out = Identity (sn)
      }> (s0, xs)
    })ONNX";
  const Inputs in = {{"s0", MakeTensor<float>({2}, {0, 0})}, {"xs", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}};
  std::string forward = text, reverse = text;
  forward.replace(forward.find("DIR"), 3, "0");
  reverse.replace(reverse.find("DIR"), 3, "1");
  auto f = RunText(forward, in);
  EXPECT_TENSOR(Out(f, "s"), MakeTensor<float>({2}, {9, 12}));
  EXPECT_TENSOR(Out(f, "ys"), MakeTensor<float>({3, 2}, {1, 2, 4, 6, 9, 12}));
  auto r = RunText(reverse, in);
  EXPECT_TENSOR(Out(r, "ys"), MakeTensor<float>({3, 2}, {5, 6, 8, 10, 9, 12}));
}

TEST(SequenceKernels, BuildInsertEraseAndConcatenate) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 16]>
    g (float[1,2] a, float[1,2] b, float[1,2] c, int64 p, int64 z) => (float[1,2] last, int64 n, float[2,2] cat, float[2,1,2] st, float[1,2] first) {
      s1 = SequenceConstruct (a, b)
      s2 = SequenceInsert (s1, c)
      last = SequenceAt (s2, p)
      n = SequenceLength (s2)
      s3 = SequenceErase (s2)
      cat = ConcatFromSequence <axis = 0> (s3)
      st = ConcatFromSequence <axis = 0, new_axis = 1> (s3)
      s4 = SequenceErase (s3, p)
      s5 = SequenceInsert (s4, c, z)
      first = SequenceAt (s5, z)
    })ONNX";
  auto out = RunText(text, {{"a", MakeTensor<float>({1, 2}, {1, 2})},
                            {"b", MakeTensor<float>({1, 2}, {3, 4})},
                            {"c", MakeTensor<float>({1, 2}, {5, 6})},
                            {"p", MakeScalar<std::int64_t>(-1)},
                            {"z", MakeScalar<std::int64_t>(0)}});
  EXPECT_TENSOR(Out(out, "last"), MakeTensor<float>({1, 2}, {5, 6}));
  EXPECT_TENSOR(Out(out, "n"), MakeScalar<std::int64_t>(3));
  EXPECT_TENSOR(Out(out, "cat"), MakeTensor<float>({2, 2}, {1, 2, 3, 4}));
  EXPECT_TENSOR(Out(out, "st"), MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4}));
  EXPECT_TENSOR(Out(out, "first"), MakeTensor<float>({1, 2}, {5, 6}));
}

TEST(SequenceKernels, SplitToSequenceAndBack) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 16]>
    g (float[3,2] x, int64 k) => (float[3,2] same, float[6,1] t, int64 n) {
      rows = SplitToSequence <axis = 0, keepdims = 0> (x)
      same = ConcatFromSequence <axis = 0, new_axis = 1> (rows)
      cols = SplitToSequence <axis = 1> (x)
      t = ConcatFromSequence <axis = 0> (cols)
      parts = SplitToSequence (x, k)
      n = SequenceLength (parts)
    })ONNX";
  const Tensor x = MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = RunText(text, {{"x", x}, {"k", MakeScalar<std::int64_t>(2)}});
  EXPECT_TENSOR(Out(out, "same"), x);
  EXPECT_TENSOR(Out(out, "t"), MakeTensor<float>({6, 1}, {1, 3, 5, 2, 4, 6}));
  EXPECT_TENSOR(Out(out, "n"), MakeScalar<std::int64_t>(2));
}

TEST(OptionalKernels, WrapAndUnwrapValues) {
  const char* text = R"ONNX(
    <ir_version: 10, opset_import: ["" : 18]>
    g (float[2] x) => (bool has, bool none, float[2] y) {
      o = Optional (x)
      has = OptionalHasElement (o)
      none = OptionalHasElement ()
      y = OptionalGetElement (o)
    })ONNX";
  const Tensor x = MakeTensor<float>({2}, {1, 2});
  auto out = RunText(text, {{"x", x}});
  EXPECT_TENSOR(Out(out, "has"), MakeScalar<bool>(true));
  EXPECT_TENSOR(Out(out, "none"), MakeScalar<bool>(false));
  EXPECT_TENSOR(Out(out, "y"), x);
}

// Tensors held at once count 256 bytes each against the limit on tensor sizes: 4097 of
// them are above a limit of 1 MiB, which every tensor below fits. A sequence of 10^8
// one-byte tensors split from 100 MB took over 20 GB.
constexpr std::uint64_t kOneMiB = 1 << 20;

TEST(SequenceKernels, SplitToSequenceCountsItsTensorsAgainstTheLimit) {
  const core::ir::ScopedTensorLimit limit(kOneMiB, "the test's limit");
  const Inputs in = {{"x", Tensor(TensorProto::UINT8, {4097})}, {"one", MakeScalar<std::int64_t>(1)},
                     {"ones", MakeTensor<std::int64_t>({4097}, std::vector<std::int64_t>(4097, 1))}};
  const std::string signature = "(uint8[4097] x, int64 one, int64[4097] ones) => (int64 n)";
  for (const char* split : {"SplitToSequence <keepdims = 0> (x)", "SplitToSequence (x, one)", "SplitToSequence (x, ones)"}) {
    SCOPED_TRACE(split);
    EXPECT_EQ(ModelErrorOf(GraphText(18, signature, std::string("s = ") + split + "\nn = SequenceLength (s)"), in),
              "node 's' (SplitToSequence): a sequence of 4097 tensors needs 1048832 bytes (1.0 MiB), more than the "
              "test's limit of 1048576 bytes (1.0 MiB)");
  }
  EXPECT_TENSOR(RunOne(GraphText(18, "(uint8[4096] x) => (int64 n)", "s = SplitToSequence (x)\nn = SequenceLength (s)"),
                       {{"x", Tensor(TensorProto::UINT8, {4096})}}, "n"),
                MakeScalar<std::int64_t>(4096));
}

TEST(LoopKernel, CountsTheSlicesOfItsScanOutputsAgainstTheLimit) {
  // A body without nodes: 2^24 iterations were allowed, each giving a slice per output.
  const core::ir::ScopedTensorLimit limit(kOneMiB, "the test's limit");
  EXPECT_EQ(ModelErrorOf(GraphText(18, "(int64 m, bool c) => (int64[4097] ys)",
                                   "ys = Loop <body = empty (int64 i, bool cin) => (bool cin, int64 i) {}> (m, c)"),
                         {{"m", MakeScalar<std::int64_t>(4097)}, {"c", MakeScalar<bool>(true)}}),
            "node 'ys' (Loop): the 4097 x 1 slices of the scan outputs needs 1048832 bytes (1.0 MiB), more than the "
            "test's limit of 1048576 bytes (1.0 MiB)");
}

TEST(ScanKernel, CountsTheSlicesOfItsOutputsAgainstTheLimit) {
  const core::ir::ScopedTensorLimit limit(kOneMiB, "the test's limit");
  EXPECT_EQ(ModelErrorOf(GraphText(16, "(uint8[4097] xs) => (uint8[4097] ys)",
                                   "ys = Scan <num_scan_inputs = 1, body = pass (uint8 x) => (uint8 x) {}> (xs)"),
                         {{"xs", Tensor(TensorProto::UINT8, {4097})}}),
            "node 'ys' (Scan): the 4097 x 1 slices of the scan outputs needs 1048832 bytes (1.0 MiB), more than the "
            "test's limit of 1048576 bytes (1.0 MiB)");
}

// Opset 8's Scan slices every state and scan input per batch entry of the first scan
// input. Runs Scan(, s0, xs) (no sequence_lens, which the text syntax cannot omit first)
// with s0 of `state_shape` and xs of `scan_shape`.
core::eval::ValueMap RunBatchedScan(const std::string& state_shape, const std::string& scan_shape,
                                    const Inputs& inputs) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 4, opset_import: ["" : 8]>
    g (int64[1] lens, float)ONNX" + state_shape + " s0, bool" + scan_shape + R"ONNX( xs) => (float[B,1] s, bool ys) {
      s, ys = Scan <num_scan_inputs = 1, body = pass (float[1] st, bool[1] x) => (float[1] st, bool[1] x) {}> (lens, s0, xs)
    })ONNX");
  model.mutable_graph()->mutable_node(0)->set_input(0, "");
  model.mutable_graph()->mutable_input()->DeleteSubrange(0, 1);
  onnx_kernels::RegisterKernels();
  core::eval::ValueMap values;
  for (const auto& [name, t] : inputs) values[name] = t;
  return core::eval::Run(model, values);
}

std::string BatchedScanError(const std::string& state_shape, const std::string& scan_shape, const Inputs& inputs) {
  try {
    RunBatchedScan(state_shape, scan_shape, inputs);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScanKernel, Opset8CountsItsBatchEntriesAgainstTheLimit) {
  // 4097 batch entries of one step, each giving a tensor per state and output.
  const core::ir::ScopedTensorLimit limit(kOneMiB, "the test's limit");
  EXPECT_EQ(BatchedScanError("[4097,1]", "[4097,1,1]",
                             {{"s0", Tensor(TensorProto::FLOAT, {4097, 1})}, {"xs", Tensor(TensorProto::BOOL, {4097, 1, 1})}}),
            "node 's' (Scan): the 4097 x 2 results of the batch entries needs 2097664 bytes (2.0 MiB), more than the "
            "test's limit of 1048576 bytes (1.0 MiB)");
}

TEST(ScanKernel, Opset8WithoutStepsLoopsOverNoBatchEntry) {
  // Scan inputs [2^24, 0, 1] (allowed as the rows of an empty tensor): the body never
  // runs, so no run of it bounded the loop over the batch entries, which sliced and
  // restacked each (4 s and 1.7 GB for 10^7 of them; above the limit here).
  const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 30, "the test's limit");
  const std::int64_t batch = std::int64_t{1} << 24;
  Tensor s0(TensorProto::FLOAT, {batch, 1});
  s0.MutableData<float>()[batch - 1] = 7;
  const auto out = RunBatchedScan("[16777216,1]", "[16777216,0,1]",
                                  {{"s0", s0}, {"xs", Tensor(TensorProto::BOOL, {batch, 0, 1})}});
  EXPECT_EQ(Out(out, "s"), s0);
  EXPECT_EQ(Out(out, "ys").shape(), (std::vector<std::int64_t>{batch, 0, 1}));
}

TEST(ScanKernel, Opset8RefusesStatesWithoutTheBatchEntries) {
  // The state was sliced at entries it does not have: a read past its data.
  EXPECT_EQ(BatchedScanError("[1,1]", "[2,1,1]",
                             {{"s0", Tensor(TensorProto::FLOAT, {1, 1})}, {"xs", Tensor(TensorProto::BOOL, {2, 1, 1})}}),
            "node 's' (Scan): state float[1,1] must have the 2 batch entries of the scan inputs");
}

}  // namespace
}  // namespace onnxopt::testing
