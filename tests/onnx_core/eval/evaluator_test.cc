#include "onnx_core/eval/evaluator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/kernel_registry.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::eval {
namespace {

using onnxopt::testing::ParseText;

Tensor Floats(std::vector<std::int64_t> shape, const std::vector<float>& values) {
  Tensor tensor(TensorProto::FLOAT, std::move(shape));
  std::copy(values.begin(), values.end(), tensor.MutableData<float>());
  return tensor;
}

std::vector<float> Values(const Value& value) {
  const Tensor& tensor = AsTensor(value, "value");
  return std::vector<float>(tensor.Data<float>(), tensor.Data<float>() + tensor.size());
}

// Element-wise f(a, b) over float tensors of one shape.
template <class F>
Kernel Binary(F f) {
  return [f](KernelContext& context) -> std::vector<Value> {
    const Tensor& a = context.TensorInput(0);
    const Tensor& b = context.TensorInput(1);
    if (a.shape() != b.shape()) throw ModelError("shapes " + a.Describe() + " and " + b.Describe() + " differ");
    Tensor out(TensorProto::FLOAT, a.shape());
    for (std::int64_t i = 0; i < a.size(); ++i) out.MutableData<float>()[i] = f(a.Data<float>()[i], b.Data<float>()[i]);
    return {out};
  };
}

// Fake operators of domain "test": Add, Mul, Scale<factor>, Opset (the opset version as
// a scalar), Branch(cond) running then_branch or else_branch.
void RegisterTestKernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterKernel("test", "Add", Binary([](float a, float b) { return a + b; }));
    RegisterKernel("test", "Mul", Binary([](float a, float b) { return a * b; }));
    RegisterKernel("test", "Scale", [](KernelContext& context) -> std::vector<Value> {
      Tensor out = context.TensorInput(0);
      const float factor = context.FloatAttribute("factor").value_or(1.0f);
      for (std::int64_t i = 0; i < out.size(); ++i) out.MutableData<float>()[i] *= factor;
      return {out};
    });
    RegisterKernel("test", "Opset", [](KernelContext& context) -> std::vector<Value> {
      return {Floats({}, {static_cast<float>(context.OpsetVersion())})};
    });
    RegisterKernel("test", "Branch", [](KernelContext& context) -> std::vector<Value> {
      const bool cond = context.TensorInput(0).ToInt64Vector().at(0) != 0;
      return context.RunSubgraph(cond ? "then_branch" : "else_branch", {});
    });
    RegisterKernel("test", "WrongType", [](KernelContext& context) -> std::vector<Value> {
      context.TensorInput(0).Data<double>();
      return {};
    });
    // Runs `body` with its formal input bound to the input.
    RegisterKernel("test", "Apply", [](KernelContext& context) -> std::vector<Value> {
      return context.RunSubgraph("body", {context.Input(0)});
    });
  });
}

class EvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterTestKernels(); }
};

std::string ErrorOf(const ModelProto& model, const ValueMap& inputs) {
  try {
    eval::Run(model, inputs);
  } catch (const ModelError& error) {
    return error.what();
  }
  return "no error";
}

TEST_F(EvaluatorTest, RunsAGraphOfKernels) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 3]>
    g (float[2] x, float[2] w) => (float[2] y, float[] v) {
      t = test.Add (x, w)
      c = Constant <value = float[2] {10, 20}> ()
      u = test.Mul (t, c)
      y = test.Scale <factor = 0.5> (u)
      v = test.Opset ()
    })ONNX");
  const ValueMap outputs = eval::Run(model, {{"x", Floats({2}, {1, 2})}, {"w", Floats({2}, {3, 4})}});
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(Values(outputs.at("y")), (std::vector<float>{20, 60}));
  EXPECT_EQ(Values(outputs.at("v")), (std::vector<float>{3}));
}

TEST_F(EvaluatorTest, InitializersAreDefaultsForInputs) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x, float[2] w) => (float[2] y)
    <float[2] w = {1, 1}, float[2] k = {5, 5}> {
      t = test.Add (x, w)
      y = test.Add (t, k)
    })ONNX");
  EXPECT_EQ(Values(eval::Run(model, {{"x", Floats({2}, {1, 2})}}).at("y")), (std::vector<float>{7, 8}));
  EXPECT_EQ(Values(eval::Run(model, {{"x", Floats({2}, {1, 2})}, {"w", Floats({2}, {0, 0})}}).at("y")),
            (std::vector<float>{6, 7}));
}

TEST_F(EvaluatorTest, ChecksInputs) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2, N] x) => (float[2, N] y) { y = test.Scale (x) })ONNX");
  EXPECT_EQ(ErrorOf(model, {}), "missing input 'x'");
  EXPECT_NE(ErrorOf(model, {{"x", Floats({2}, {1, 2})}}).find("declared with rank 2"), std::string::npos);
  EXPECT_NE(ErrorOf(model, {{"x", Floats({3, 1}, {1, 2, 3})}}).find("dimension 0 is declared as 2"), std::string::npos);
  EXPECT_NE(ErrorOf(model, {{"x", Tensor(TensorProto::INT64, {2, 1})}}).find("element type FLOAT"), std::string::npos);
  EXPECT_NE(ErrorOf(model, {{"z", Floats({2, 1}, {1, 2})}, {"x", Floats({2, 1}, {1, 2})}}).find("'z' is not an input"),
            std::string::npos);
  EXPECT_EQ(Values(eval::Run(model, {{"x", Floats({2, 1}, {1, 2})}}).at("y")), (std::vector<float>{1, 2}));
}

TEST_F(EvaluatorTest, MissingKernelNamesTheNode) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.Unknown (x) })ONNX");
  ModelProto named = model;
  named.mutable_graph()->mutable_node(0)->set_name("n1");
  EXPECT_EQ(ErrorOf(named, {{"x", Floats({2}, {1, 2})}}), "no kernel for Unknown (test) in node 'n1'");
}

TEST_F(EvaluatorTest, KernelErrorsNameTheNode) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x, float[3] z) => (float[2] y) { y = test.Add (x, z) })ONNX");
  model.mutable_graph()->mutable_node(0)->set_name("add");
  EXPECT_EQ(ErrorOf(model, {{"x", Floats({2}, {1, 2})}, {"z", Floats({3}, {1, 2, 3})}}),
            "node 'add' (Add): shapes float[2] and float[3] differ");
}

TEST_F(EvaluatorTest, SubgraphsReadEnclosingValues) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (bool[] c, float[2] x) => (float[2] y) {
      t = test.Scale <factor = 2.0> (x)
      y = test.Branch <then_branch = a () => (float[2] ay) { ay = test.Add (t, x) },
                       else_branch = b () => (float[2] by) { by = test.Scale <factor = 3.0> (t) }> (c)
    })ONNX");
  Tensor yes(TensorProto::BOOL, {});
  *yes.MutableData<bool>() = true;
  EXPECT_EQ(Values(eval::Run(model, {{"c", yes}, {"x", Floats({2}, {1, 2})}}).at("y")), (std::vector<float>{3, 6}));
  EXPECT_EQ(Values(eval::Run(model, {{"c", Tensor(TensorProto::BOOL, {})}, {"x", Floats({2}, {1, 2})}}).at("y")),
            (std::vector<float>{6, 12}));
}

TEST_F(EvaluatorTest, ErrorsInSubgraphsNameBothNodes) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (bool[] c, float[2] x, float[3] z) => (float[2] y) {
      y = test.Branch <then_branch = a () => (float[2] ay) { ay = test.Add (z, x) },
                       else_branch = b () => (float[2] by) { by = test.Missing (x) }> (c)
    })ONNX");
  model.mutable_graph()->mutable_node(0)->set_name("branch");
  Tensor yes(TensorProto::BOOL, {});
  *yes.MutableData<bool>() = true;
  const ValueMap inputs{{"c", yes}, {"x", Floats({2}, {1, 2})}, {"z", Floats({3}, {1, 2, 3})}};
  EXPECT_EQ(ErrorOf(model, inputs), "node 'branch' (Branch): node 'ay' (Add): shapes float[3] and float[2] differ");
  ValueMap otherwise = inputs;
  otherwise["c"] = Tensor(TensorProto::BOOL, {});
  EXPECT_EQ(ErrorOf(model, otherwise), "no kernel for Missing (test) in node 'by'");
}

TEST_F(EvaluatorTest, KernelBugsNameTheNode) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.WrongType (x) })ONNX");
  try {
    eval::Run(model, {{"x", Floats({2}, {1, 2})}});
    FAIL() << "expected a BuilderError";
  } catch (const BuilderError& error) {
    EXPECT_TRUE(std::string(error.what()).starts_with("node 'y' (WrongType): Tensor: ")) << error.what();
    EXPECT_NE(std::string(error.where().file_name()).find("tensor"), std::string::npos);
  }
}

TEST_F(EvaluatorTest, SubgraphFormalInputsAreBound) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) {
      k = Constant <value = float[2] {1, 1}> ()
      y = test.Apply <body = a (float[2] p) => (float[2] q) { q = test.Add (p, k) }> (x)
    })ONNX");
  EXPECT_EQ(Values(eval::Run(model, {{"x", Floats({2}, {1, 2})}}).at("y")), (std::vector<float>{2, 3}));
}

FunctionProto ScaledAdd() {
  // ScaledAdd<alpha>(a, b) = Scale<factor=@alpha>(Add(a, b)); reads Opset in its own import.
  FunctionProto function;
  function.set_name("ScaledAdd");
  function.set_domain("local");
  function.add_input("a");
  function.add_input("b");
  function.add_output("out");
  function.add_output("version");
  function.add_attribute("alpha");
  NodeProto* add = function.add_node();
  add->set_op_type("Add");
  add->set_domain("test");
  add->add_input("a");
  add->add_input("b");
  add->add_output("s");
  NodeProto* scale = function.add_node();
  scale->set_op_type("Scale");
  scale->set_domain("test");
  scale->add_input("s");
  scale->add_output("out");
  AttributeProto* factor = scale->add_attribute();
  factor->set_name("factor");
  factor->set_type(AttributeProto::FLOAT);
  factor->set_ref_attr_name("alpha");
  NodeProto* opset = function.add_node();
  opset->set_op_type("Opset");
  opset->set_domain("test");
  opset->add_output("version");
  OperatorSetIdProto* import = function.add_opset_import();
  import->set_domain("test");
  import->set_version(7);
  return function;
}

TEST_F(EvaluatorTest, LocalFunctionsSubstituteAttributes) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1, "local" : 1]>
    g (float[2] x, float[2] w) => (float[2] y, float[2] z, float[] v) {
      y, v = local.ScaledAdd <alpha = 2.0> (x, w)
      z, unused = local.ScaledAdd (x, w)
    })ONNX");
  *model.add_functions() = ScaledAdd();
  const ValueMap outputs = eval::Run(model, {{"x", Floats({2}, {1, 2})}, {"w", Floats({2}, {3, 4})}});
  EXPECT_EQ(Values(outputs.at("y")), (std::vector<float>{8, 12}));
  // Without the attribute the reference is dropped: Scale's default factor 1.
  EXPECT_EQ(Values(outputs.at("z")), (std::vector<float>{4, 6}));
  EXPECT_EQ(Values(outputs.at("v")), (std::vector<float>{7}));  // the function's opset import
}

TEST_F(EvaluatorTest, LocalFunctionAttributeDefault) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 18, "test" : 1, "local" : 1]>
    g (float[2] x, float[2] w) => (float[2] y) { y, v = local.ScaledAdd (x, w) })ONNX");
  FunctionProto function = ScaledAdd();
  AttributeProto alpha;
  alpha.set_name("alpha");
  alpha.set_type(AttributeProto::FLOAT);
  alpha.set_f(10.0f);
  function.mutable_unknown_fields()->AddLengthDelimited(11, alpha.SerializeAsString());  // attribute_proto
  *model.add_functions() = function;
  EXPECT_EQ(Values(eval::Run(model, {{"x", Floats({2}, {1, 2})}, {"w", Floats({2}, {3, 4})}}).at("y")),
            (std::vector<float>{40, 60}));
}

TEST_F(EvaluatorTest, RecursiveFunctionIsAnError) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[2] x) => (float[2] y) { y = local.Loop (x) })ONNX");
  FunctionProto function;
  function.set_name("Loop");
  function.set_domain("local");
  function.add_input("a");
  function.add_output("b");
  NodeProto* call = function.add_node();
  call->set_op_type("Loop");
  call->set_domain("local");
  call->add_input("a");
  call->add_output("b");
  *model.add_functions() = function;
  // One message, naming the outermost call once (not one prefix per level of calls).
  EXPECT_EQ(ErrorOf(model, {{"x", Floats({2}, {1, 2})}}),
            "node 'y' (Loop): local function 'Loop' calls itself (directly or through other functions); recursive "
            "calls cannot be evaluated");
}

TEST_F(EvaluatorTest, DeepCallChainIsRefusedWithOneMessage) {
  const ModelProto model = onnxopt::testing::CallChainModel(40, 1, "test", "Scale");
  EXPECT_EQ(ErrorOf(model, {{"x", Floats({2}, {1, 2})}}),
            "node 'y' (F0): calls of local functions nest 40 deep from 'F0', more than the limit of 32");
  // 32 levels are allowed.
  const ModelProto allowed = onnxopt::testing::CallChainModel(32, 1, "test", "Scale");
  EXPECT_EQ(Values(eval::Run(allowed, {{"x", Floats({2}, {1, 2})}}).at("y")), (std::vector<float>{1, 2}));
}

TEST_F(EvaluatorTest, CallChainsRunningTooManyNodesAreRefusedBeforeRunning) {
  // 30 levels, each function calling the next twice: 2^29 leaves. Refused at once.
  const ModelProto model = onnxopt::testing::CallChainModel(30, 2, "test", "Scale");
  const auto start = std::chrono::steady_clock::now();
  const std::string error = ErrorOf(model, {{"x", Floats({2}, {1, 2})}});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  EXPECT_EQ(error,
            "node 'y' (F0): calling local function 'F0' would run 1610612734 nodes once its nested calls are "
            "expanded, more than the 1000000 nodes that calls of local functions may run in one evaluation (0 run so "
            "far)");
  // Within the limit (2^9 leaves), it runs.
  const ModelProto small = onnxopt::testing::CallChainModel(10, 2, "test", "Scale");
  EXPECT_EQ(Values(eval::Run(small, {{"x", Floats({2}, {1, 2})}}).at("y")), (std::vector<float>{1, 2}));
}

// A graph (float[2,3] x) => (float[2,3] y) adding x to the sparse initializer w of
// dims `dims` holding 5 at linear position 1 and 6 at position 5.
ModelProto SparseInitializerModel(std::vector<std::int64_t> dims) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2,3] x) => (float[2,3] y) { y = test.Add (x, w) })ONNX");
  SparseTensorProto& sparse = *model.mutable_graph()->add_sparse_initializer();
  for (std::int64_t dim : dims) sparse.add_dims(dim);
  TensorProto& values = *sparse.mutable_values();
  values.set_name("w");
  values.set_data_type(TensorProto::FLOAT);
  values.add_dims(2);
  values.add_float_data(5);
  values.add_float_data(6);
  TensorProto& indices = *sparse.mutable_indices();
  indices.set_data_type(TensorProto::INT64);
  indices.add_dims(2);
  indices.add_int64_data(1);
  indices.add_int64_data(5);
  return model;
}

TEST_F(EvaluatorTest, SparseInitializersAreMadeDense) {
  const ValueMap outputs = eval::Run(SparseInitializerModel({2, 3}), {{"x", Floats({2, 3}, {1, 1, 1, 1, 1, 1})}});
  EXPECT_EQ(Values(outputs.at("y")), (std::vector<float>{1, 6, 1, 1, 1, 7}));
}

TEST_F(EvaluatorTest, SparseConstantTooLargeIsRefusedBeforeItIsBuilt) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g () => (float[?] y) { y = test.Scale (c) })ONNX");
  NodeProto& constant = *model.mutable_graph()->add_node();
  model.mutable_graph()->mutable_node()->SwapElements(0, 1);
  constant.set_op_type("Constant");
  constant.set_name("c");
  constant.add_output("c");
  AttributeProto& attr = *constant.add_attribute();
  attr.set_name("sparse_value");
  attr.set_type(AttributeProto::SPARSE_TENSOR);
  SparseTensorProto& sparse = *attr.mutable_sparse_tensor();
  sparse.add_dims(std::int64_t{1} << 40);
  sparse.mutable_values()->set_data_type(TensorProto::FLOAT);
  sparse.mutable_values()->add_dims(0);
  sparse.mutable_indices()->set_data_type(TensorProto::INT64);
  sparse.mutable_indices()->add_dims(0);
  const std::string error = ErrorOf(model, {});
  EXPECT_EQ(error.rfind("node 'c' (Constant): sparse tensor: its dense form needs 4398046511104 bytes", 0), 0u)
      << error;
}

TEST_F(EvaluatorTest, SparseInitializerTooLargeOrMalformedIsNamed) {
  const std::string too_large =
      ErrorOf(SparseInitializerModel({std::int64_t{1} << 40, 3}), {{"x", Floats({2, 3}, {1, 1, 1, 1, 1, 1})}});
  EXPECT_NE(too_large.find("sparse tensor 'w': its dense form needs 13194139533312 bytes"), std::string::npos)
      << too_large;
  EXPECT_NE(too_large.find("more than the limit on tensor sizes"), std::string::npos) << too_large;
  const std::string out_of_range = ErrorOf(SparseInitializerModel({2, 2}), {{"x", Floats({2, 3}, {1, 1, 1, 1, 1, 1})}});
  EXPECT_EQ(out_of_range, "sparse tensor 'w': its indices are out of range, of the wrong type or of the wrong shape");
}

TEST_F(EvaluatorTest, RunNodesAddsOutputsToKnown) {
  const ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) {
      t = test.Scale <factor = 3.0> (x)
      y = test.Add (t, x)
    })ONNX");
  ValueMap known{{"x", Floats({2}, {1, 2})}};
  RunNodes(model, {&model.graph().node(0), &model.graph().node(1)}, known);
  EXPECT_EQ(Values(known.at("t")), (std::vector<float>{3, 6}));
  EXPECT_EQ(Values(known.at("y")), (std::vector<float>{4, 8}));
}

TEST_F(EvaluatorTest, AttributeHelpersCheckTypes) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.Scale <factor = 3> (x) })ONNX");
  EXPECT_NE(ErrorOf(model, {{"x", Floats({2}, {1, 2})}}).find("attribute 'factor' is INT, expected FLOAT"),
            std::string::npos);
}

}  // namespace
}  // namespace onnxopt::core::eval
