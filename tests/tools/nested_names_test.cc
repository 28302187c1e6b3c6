// Models whose nested graphs reuse names of their enclosing graph where IR.md allows it
// (names not visible in the nested graph: the outputs of the node holding it, and names
// defined after that node), end to end: `run` computes them, `optimize` keeps them
// valid and equivalent (`verify`), whatever cleanup renames or folds.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/eval/npy.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/model_io.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::eval::Tensor;

// As torch's exporter writes Phi-3.5 / Phi-4: each branch defines its output under the
// name of the If's own output. cond_0 is then renamed by cleanup (its Identity to the
// graph output `out` takes it over) and read by the branches of a second If, whose
// outputs are again named like that If's output; `a` (an Identity of x) is renamed to x
// inside all of them, and the two Neg of the first branch are merged.
constexpr const char* kIfOutputNames = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, float[3] x) => (float[3] out, float[3] w) {
    a = Identity (x)
    cond_0 = If (c) <then_branch = t () => (float[3] cond_0) {
                       i = Identity (a)
                       n1 = Neg (i)
                       n2 = Neg (i)
                       cond_0 = Add (n1, n2)
                     },
                     else_branch = e () => (float[3] cond_0) { cond_0 = Abs (a) }>
    w = If (c) <then_branch = t2 () => (float[3] w) { w = Mul (cond_0, a) },
                else_branch = e2 () => (float[3] w) { w = Sub (cond_0, a) }>
    out = Identity (cond_0)
  })ONNX";

// The then-branch defines `b`, which the main graph defines after the If (from `a`,
// through an Identity to the graph output b): taking the output over would move b's
// definition before the If, where the branch would shadow it.
constexpr const char* kNameDefinedLater = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, float[3] x) => (float[3] b, float[3] r) {
    a = Relu (x)
    r = If (c) <then_branch = t () => (float[3] b) { b = Neg (a) },
                else_branch = e () => (float[3] s) { s = Abs (a) }>
    b = Identity (a)
  })ONNX";

// The same with a constant computed after the If: folding it into an initializer would
// make it visible in the branch that defines the name.
constexpr const char* kFoldedNameDefinedLater = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (bool c, float[3] x) => (float[3] k, float[3] r) {
    r = If (c) <then_branch = t () => (float[3] k) { k = Neg (x) },
                else_branch = e () => (float[3] s) { s = Abs (x) }>
    one = Constant <value = float[3] {1, 2, 3}> ()
    k = Add (one, one)
  })ONNX";

class NestedNamesTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const char* text) {
    WriteFile(dir_ / name, core::ir::SerializeDeterministic(ParseText(text)));
    return (dir_ / name).string();
  }

  static CommandResult Onnxopt(std::vector<std::string> args) {
    args.insert(args.begin(), OnnxoptExe().string());
    return RunCommand(args);
  }

  // `onnxopt run MODEL` on c and x; the outputs' values, by name.
  std::vector<float> Run(const std::string& model, bool c, const std::string& output) {
    Tensor cond(TensorProto::BOOL, {});
    cond.MutableData<bool>()[0] = c;
    Tensor x(TensorProto::FLOAT, {3});
    const float values[] = {1, -2, 3};
    for (int i = 0; i < 3; ++i) x.MutableData<float>()[i] = values[i];
    core::eval::WriteNpy(cond, dir_ / "c.npy");
    core::eval::WriteNpy(x, dir_ / "x.npy");
    const std::filesystem::path out = dir_ / "out";
    std::filesystem::remove_all(out);
    const CommandResult result = Onnxopt({"run", model, "--input", "c=" + (dir_ / "c.npy").string(), "--input",
                                          "x=" + (dir_ / "x.npy").string(), "--output-dir", out.string(), "-q"});
    EXPECT_EQ(result.exit_code, 0) << result.output;
    const Tensor tensor = core::eval::ReadNpy(out / (output + ".npy"));
    return std::vector<float>(tensor.Data<float>(), tensor.Data<float>() + tensor.size());
  }

  // Optimizes `model` (default patterns, folding on) and checks the result against it
  // with `verify` on several seeds, so that both branches run.
  std::string OptimizeAndVerify(const std::string& model) {
    const std::string optimized = model + ".opt.onnx";
    const CommandResult result = Onnxopt({"optimize", model, "-o", optimized});
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* seed : {"0", "1", "2", "3"}) {
      const CommandResult verify = Onnxopt({"verify", model, optimized, "--seed", seed});
      EXPECT_EQ(verify.exit_code, 0) << verify.output;
    }
    return optimized;
  }

  TempDir dir_;
};

TEST_F(NestedNamesTest, RunsBranchesNamingTheirOutputLikeTheIf) {
  const std::string model = Write("if_names.onnx", kIfOutputNames);
  EXPECT_EQ(Run(model, true, "out"), (std::vector<float>{-2, 4, -6}));
  EXPECT_EQ(Run(model, true, "w"), (std::vector<float>{-2, -8, -18}));
  EXPECT_EQ(Run(model, false, "out"), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(Run(model, false, "w"), (std::vector<float>{0, 4, 0}));
}

TEST_F(NestedNamesTest, OptimizesBranchesNamingTheirOutputLikeTheIf) {
  const std::string model = Write("if_names.onnx", kIfOutputNames);
  const std::string optimized = OptimizeAndVerify(model);
  const ModelProto result = core::ir::LoadModel(optimized);  // checks the graph
  for (const NodeProto& node : result.graph().node())
    EXPECT_NE(node.op_type(), "Identity") << "cleanup did not run";
  EXPECT_EQ(Run(optimized, true, "out"), (std::vector<float>{-2, 4, -6}));
  EXPECT_EQ(Run(optimized, false, "w"), (std::vector<float>{0, 4, 0}));
}

TEST_F(NestedNamesTest, KeepsANameDefinedLaterWhereItWas) {
  const std::string model = Write("later.onnx", kNameDefinedLater);
  const std::string optimized = OptimizeAndVerify(model);
  EXPECT_NO_THROW(core::ir::LoadModel(optimized));
  EXPECT_EQ(Run(optimized, true, "r"), (std::vector<float>{-1, 0, -3}));
  EXPECT_EQ(Run(optimized, true, "b"), (std::vector<float>{1, 0, 3}));
}

TEST_F(NestedNamesTest, DoesNotFoldIntoANameANestedGraphDefines) {
  const std::string model = Write("folded.onnx", kFoldedNameDefinedLater);
  const std::string optimized = OptimizeAndVerify(model);
  EXPECT_NO_THROW(core::ir::LoadModel(optimized));
  EXPECT_EQ(Run(optimized, true, "r"), (std::vector<float>{-1, 2, -3}));
  EXPECT_EQ(Run(optimized, false, "k"), (std::vector<float>{2, 4, 6}));
}

TEST_F(NestedNamesTest, RefusesTrueShadowingNamingTheRule) {
  const std::string model = Write("shadow.onnx", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool c, float[3] x) => (float[3] y) {
      t = Neg (x)
      y = If (c) <then_branch = b () => (float[3] t) { t = Relu (x) },
                  else_branch = e () => (float[3] s) { s = Neg (x) }>
    })ONNX");
  for (const std::string command : {"optimize", "run", "info"}) {
    std::vector<std::string> args = {command, model};
    if (command == "optimize") args.insert(args.end(), {"-o", (dir_ / "out.onnx").string()});
    if (command == "run") args.push_back("--random-inputs");
    const CommandResult result = Onnxopt(args);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("value 't' defined by node #0 (Relu) in graph 'b' shadows the value of graph 'g' "
                                 "visible there (IR.md: a nested graph must not redefine a name visible in it"),
              std::string::npos)
        << result.output;
  }
}

}  // namespace
}  // namespace onnxopt::testing
