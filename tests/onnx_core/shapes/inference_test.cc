// The inference driver, with small fake shape functions registered under the domain
// "test" (the operator shape functions live in onnx_extensions and are tested there).

#include "onnx_core/shapes/inference.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <stdexcept>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/error.h"
#include "onnx_core/shapes/shape_registry.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::shapes {
namespace {

using onnxopt::testing::ParseText;

// --- Fake shape functions ----------------------------------------------------------

std::vector<SymTensor> Same(InferenceContext& context) { return {context.Input(0)}; }

// Elementwise: x + 1 on the elements of a known integer value.
std::vector<SymTensor> AddOne(InferenceContext& context) {
  SymTensor out = context.Input(0);
  if (out.value)
    for (SymDim& element : *out.value) element = element + 1;
  return {out};
}

// Concatenation of two tensors along axis 0.
std::vector<SymTensor> Concat0(InferenceContext& context) {
  const SymTensor& a = context.Input(0);
  const SymTensor& b = context.Input(1);
  if (!a.shape.HasRank() || !b.shape.HasRank() || a.shape.Rank() != b.shape.Rank() || a.shape.Rank() == 0)
    return {SymTensor::Unknown()};
  std::vector<SymDim> dims = a.shape.Dims();
  dims[0] = dims[0] + b.shape[0];
  return {SymTensor::Tensor(a.elem_type, SymShape(std::move(dims)))};
}

// Reshape-like: the shape is the value of input 1; also checks that ConstantInput sees
// the same tensor.
std::vector<SymTensor> ShapeFrom(InferenceContext& context) {
  const SymTensor& shape = context.Input(1);
  if (!shape.value) return {SymTensor::Tensor(context.Input(0).elem_type, SymShape::UnknownRank())};
  if (context.ConstantInput(1) == nullptr) context.Diagnose("no constant input");
  return {SymTensor::Tensor(context.Input(0).elem_type, SymShape(*shape.value))};
}

std::vector<SymTensor> Throw(InferenceContext&) { throw ModelError("malformed attribute"); }
std::vector<SymTensor> ThrowStd(InferenceContext&) { throw std::out_of_range("vector::at"); }
std::vector<SymTensor> OneOutput(InferenceContext& context) { return {context.Input(0)}; }
std::vector<SymTensor> Fresh(InferenceContext& context) {
  return {SymTensor::Tensor(TensorProto::INT64, SymShape({context.FreshSymbol()}))};
}
std::vector<SymTensor> Opset(InferenceContext& context) {
  return {SymTensor::IntValues(TensorProto::INT64, {SymDim(context.OpsetVersion())})};
}
// float[n] where n is the INT attribute "n" (type-checked).
std::vector<SymTensor> AttrN(InferenceContext& context) {
  std::optional<std::int64_t> n = context.IntAttribute("n");
  if (!n) return {SymTensor::Unknown()};
  return {SymTensor::Tensor(TensorProto::FLOAT, SymShape({SymDim(*n)}))};
}
// If-like: the outputs of then_branch.
std::vector<SymTensor> Branch(InferenceContext& context) { return context.InferSubgraph("then_branch", {}); }
// Loop-like: body(iteration, cond, state) => (cond, state); returns the final state.
std::vector<SymTensor> Loop(InferenceContext& context) {
  std::vector<SymTensor> body_inputs = {SymTensor::Tensor(TensorProto::INT64, SymShape::Scalar()),
                                        SymTensor::Tensor(TensorProto::BOOL, SymShape::Scalar()),
                                        context.Input(2)};
  std::vector<SymTensor> out = context.InferSubgraph("body", body_inputs);
  if (out.size() != 2) return {SymTensor::Unknown()};
  return {out[1]};
}

void RegisterFakes() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterShapeFunction("test", "Same", Same);
    RegisterShapeFunction("test", "AddOne", AddOne);
    RegisterShapeFunction("test", "Concat0", Concat0);
    RegisterShapeFunction("test", "ShapeFrom", ShapeFrom);
    RegisterShapeFunction("test", "Throw", Throw);
    RegisterShapeFunction("test", "ThrowStd", ThrowStd);
    RegisterShapeFunction("test", "OneOutput", OneOutput);
    RegisterShapeFunction("test", "Fresh", Fresh);
    RegisterShapeFunction("test", "Opset", Opset);
    RegisterShapeFunction("test", "AttrN", AttrN);
    RegisterShapeFunction("test", "Branch", Branch);
    RegisterShapeFunction("test", "Loop", Loop);
  });
}

class InferenceTest : public ::testing::Test {
 protected:
  void SetUp() override { RegisterFakes(); }

  // Infers `text` and returns the context.
  ShapesContext& Infer(std::string_view text) {
    model_ = ParseText(text);
    InferGraph(model_, model_.graph(), context_);
    return context_;
  }
  std::string Of(std::string_view name) const {
    const SymTensor* value = context_.Find(name);
    return value ? value->ToString() : "<none>";
  }

  ModelProto model_;
  ShapesContext context_;
};

// --- Registry ----------------------------------------------------------------------

TEST(ShapeRegistry, RejectsASecondRegistrationAndNormalizesTheDomain) {
  RegisterFakes();
  EXPECT_THROW(RegisterShapeFunction("test", "Same", Same), BuilderError);
  RegisterShapeFunction("", "RegistryProbeOp", Same);
  EXPECT_THROW(RegisterShapeFunction("ai.onnx", "RegistryProbeOp", Same), BuilderError);
  EXPECT_NE(FindShapeFunction("ai.onnx", "RegistryProbeOp"), nullptr);
  EXPECT_NE(FindShapeFunction("", "RegistryProbeOp"), nullptr);
  EXPECT_EQ(FindShapeFunction("test", "RegistryProbeOp"), nullptr);
  EXPECT_GE(RegisteredShapeFunctionCount(), 13u);
}

// --- Sources of knowledge ------------------------------------------------------------

TEST_F(InferenceTest, InputsWithDimParamGiveSymbols) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 3] x, float[seq, 3] y, float[2, ?] z) => (float[?, 3] c) {
      c = test.Concat0 (x, y)
      d = test.Same (z)
    })ONNX");
  EXPECT_EQ(Of("x"), "float[batch,3]");
  EXPECT_EQ(Of("c"), "float[batch+seq,3]");
  EXPECT_EQ(Of("d"), "float[2,?]");
  EXPECT_TRUE(context_.Diagnostics().empty());
}

TEST_F(InferenceTest, InitializersAndConstantsGiveValues) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 6] x) => (float[?, ?, ?] y) <int64[2] init = {5, 8}> {
      shape = Constant <value = int64[3] {4, 3, -1}> ()
      y = test.ShapeFrom (x, shape)
      plus = test.AddOne (shape)
      w = test.ShapeFrom (x, init)
      s = Constant <value_int = 7> ()
    })ONNX");
  EXPECT_EQ(Of("shape"), "int64[3] = [4,3,-1]");
  EXPECT_EQ(Of("plus"), "int64[3] = [5,4,0]");
  EXPECT_EQ(Of("y"), "float[4,3,-1]");
  EXPECT_EQ(Of("init"), "int64[2] = [5,8]");
  EXPECT_EQ(Of("w"), "float[5,8]");
  EXPECT_EQ(Of("s"), "int64[] = [7]");
  ASSERT_NE(context_.FindConstant("shape"), nullptr);
  EXPECT_EQ(context_.FindConstant("plus"), nullptr);
  EXPECT_TRUE(context_.Diagnostics().empty()) << context_.Diagnostics()[0].message;
}

TEST_F(InferenceTest, InputThatIsAlsoAnInitializerKeepsItsDeclaredTypeAndNoValue) {
  model_ = ParseText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 9, "test" : 1]>
    g (int64[n] k) => (int64[?] y) { y = test.Same (k) })ONNX");
  TensorProto* init = model_.mutable_graph()->add_initializer();
  init->set_name("k");
  init->set_data_type(TensorProto::INT64);
  init->add_dims(2);
  init->add_int64_data(1);
  init->add_int64_data(2);
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(Of("k"), "int64[n]");
  EXPECT_EQ(Of("y"), "int64[n]");
  EXPECT_EQ(context_.FindConstant("k"), nullptr);
}

TEST_F(InferenceTest, ExternalAndSparseInitializersGiveShapes) {
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.Same (x) })ONNX");
  TensorProto* external = model_.mutable_graph()->add_initializer();
  external->set_name("ext");
  external->set_data_type(TensorProto::INT64);
  external->add_dims(3);
  external->set_data_location(TensorProto::EXTERNAL);
  auto* entry = external->add_external_data();
  entry->set_key("location");
  entry->set_value("weights.bin");
  SparseTensorProto* sparse = model_.mutable_graph()->add_sparse_initializer();
  sparse->add_dims(10);
  sparse->add_dims(20);
  sparse->mutable_values()->set_name("sp");
  sparse->mutable_values()->set_data_type(TensorProto::FLOAT);
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(Of("ext"), "int64[3]");
  EXPECT_EQ(Of("sp"), "float[10,20]");
  EXPECT_EQ(context_.FindConstant("ext"), nullptr);
}

// Shape functions read integer constants (shapes, axes, split sizes: any length) and
// others only as scalars or one value per axis: a float weight is not copied.
TEST_F(InferenceTest, KeepsIntegerConstantsAndFloatOnesOfOneValuePerAxis) {
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.Same (x) })ONNX");
  auto add = [&](const std::string& name, int type, std::int64_t count, int element_bytes) {
    TensorProto* tensor = model_.mutable_graph()->add_initializer();
    tensor->set_name(name);
    tensor->set_data_type(type);
    tensor->add_dims(count);
    tensor->set_raw_data(std::string(static_cast<std::size_t>(count * element_bytes), '\0'));
    return tensor;
  };
  const TensorProto* split = add("split", TensorProto::INT64, 1000, 8);
  const TensorProto* scales = add("scales", TensorProto::FLOAT, ShapesContext::kMaxKeptRank, 4);
  const TensorProto* weight = add("weight", TensorProto::FLOAT, ShapesContext::kMaxKeptRank + 1, 4);
  const TensorProto* half = add("half", TensorProto::FLOAT16, 2, 2);
  const TensorProto* large = add("large", TensorProto::INT8, ShapesContext::kMaxConstantBytes + 1, 1);
  EXPECT_TRUE(ShapesContext::KeepsConstant(*split));
  EXPECT_TRUE(ShapesContext::KeepsConstant(*scales));
  EXPECT_FALSE(ShapesContext::KeepsConstant(*weight));
  EXPECT_TRUE(ShapesContext::KeepsConstant(*half));
  EXPECT_FALSE(ShapesContext::KeepsConstant(*large));

  InferGraph(model_, model_.graph(), context_);
  EXPECT_NE(context_.FindConstant("split"), nullptr);
  EXPECT_NE(context_.FindConstant("scales"), nullptr);
  EXPECT_EQ(context_.FindConstant("weight"), nullptr);
  EXPECT_EQ(context_.FindConstant("large"), nullptr);
  EXPECT_EQ(Of("weight"), "float[65]");  // its type and shape all the same
  EXPECT_EQ(Of("large"), "int8[65537]");
}

TEST_F(InferenceTest, OpsetVersionComesFromTheModel) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 3]>
    g (float[2] x) => (int64[1] v) { v = test.Opset (x) })ONNX");
  EXPECT_EQ(Of("v"), "int64[1] = [3]");
}

TEST_F(InferenceTest, ValueInfoIsNotTrusted) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[7] y) <float[9] u> {
      u = Unknown.Op (x)
      y = test.Same (u)
    })ONNX");
  EXPECT_EQ(Of("u"), SymTensor::Unknown().ToString());
  EXPECT_EQ(Of("y"), SymTensor::Unknown().ToString());
}

// --- Failures give unknown outputs -------------------------------------------------------

TEST_F(InferenceTest, UnknownOperatorGivesUnknownOutputs) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "other" : 1]>
    g (float[2] x) => (float[2] y) {
      a, b = other.Mystery (x)
      y = Relu (a)
    })ONNX");
  for (const char* name : {"a", "b", "y"}) {
    ASSERT_NE(context_.Find(name), nullptr) << name;
    EXPECT_EQ(context_.Find(name)->kind, SymTensor::Kind::kUnknown) << name;
  }
  EXPECT_TRUE(context_.Diagnostics().empty());
}

TEST_F(InferenceTest, ThrowingShapeFunctionGivesDiagnosticAndUnknown) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] z) {
      y = test.Throw (x)
      z = test.ThrowStd (x)
      w = test.Same (x)
    })ONNX");
  EXPECT_EQ(context_.Find("y")->kind, SymTensor::Kind::kUnknown);
  EXPECT_EQ(context_.Find("z")->kind, SymTensor::Kind::kUnknown);
  EXPECT_EQ(Of("w"), "float[2]");
  ASSERT_EQ(context_.Diagnostics().size(), 2u);
  EXPECT_EQ(context_.Diagnostics()[0].node, "#0 (Throw)");
  EXPECT_EQ(context_.Diagnostics()[0].op_type, "Throw");
  EXPECT_NE(context_.Diagnostics()[0].message.find("malformed attribute"), std::string::npos);
  EXPECT_EQ(context_.Diagnostics()[1].node, "#1 (ThrowStd)");
  EXPECT_NE(context_.Diagnostics()[1].message.find("vector::at"), std::string::npos);
}

TEST_F(InferenceTest, ShapesAboveTheKeptRankAreLeftWithoutRank) {
  // Each value keeps its rank in dims: a rank of 10 000 through 10 000 nodes took 1.6 GB.
  auto ones = [](std::size_t rank) {
    std::string dims;
    for (std::size_t i = 0; i < rank; ++i) dims += i == 0 ? "1" : ",1";
    return dims;
  };
  const std::size_t kept = ShapesContext::kMaxKeptRank;
  Infer("<ir_version: 8, opset_import: [\"\" : 18, \"test\" : 1]>\n"
        "g (float[" + ones(kept) + "] x, float[" + ones(kept + 1) + "] big) => (float y) {\n"
        "  a = test.Same (x)\n"
        "  b = test.Same (big)\n"
        "}");
  EXPECT_EQ(context_.Find("a")->shape.Rank(), kept);
  for (const char* name : {"big", "b"}) {
    EXPECT_EQ(context_.Find(name)->kind, SymTensor::Kind::kTensor) << name;
    EXPECT_EQ(Of(name), "float?") << name;
  }
  ASSERT_EQ(context_.Diagnostics().size(), 1u) << "the input only: b inherits an unknown rank";
  EXPECT_EQ(context_.Diagnostics()[0].node, "value 'big'");
  EXPECT_EQ(context_.Diagnostics()[0].message,
            "a shape of 65 dims, more than the 64 inference keeps: its rank is left unknown");
}

TEST_F(InferenceTest, WrongOutputCountGivesDiagnosticAndUnknown) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] a) {
      a, b = test.OneOutput (x)
      c, , d = test.Same (x)
    })ONNX");
  EXPECT_EQ(context_.Find("a")->kind, SymTensor::Kind::kUnknown);
  EXPECT_EQ(context_.Find("b")->kind, SymTensor::Kind::kUnknown);
  ASSERT_EQ(context_.Diagnostics().size(), 2u);
  EXPECT_NE(context_.Diagnostics()[0].message.find("returned 1 outputs, the node has 2"), std::string::npos);
  EXPECT_NE(context_.Diagnostics()[1].message.find("returned 1 outputs, the node has 3"), std::string::npos);
  EXPECT_EQ(context_.Find(""), nullptr);
}

TEST_F(InferenceTest, AttributeOfTheWrongTypeIsADiagnostic) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] a) {
      a = test.AttrN <n = 4> (x)
      b = test.AttrN <n = 4.5> (x)
      c = test.AttrN (x)
    })ONNX");
  EXPECT_EQ(Of("a"), "float[4]");
  EXPECT_EQ(context_.Find("b")->kind, SymTensor::Kind::kUnknown);
  EXPECT_EQ(context_.Find("c")->kind, SymTensor::Kind::kUnknown);
  ASSERT_EQ(context_.Diagnostics().size(), 1u);
  EXPECT_NE(context_.Diagnostics()[0].message.find("attribute 'n' is FLOAT, expected INT"), std::string::npos);
}

TEST_F(InferenceTest, DiagnosticsOfNestedNodesNameTheirPath) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) {
      y = test.Branch (x) <then_branch = g1 () => (float[2] o) { o = test.Throw (x) }>
    })ONNX");
  ASSERT_EQ(context_.Diagnostics().size(), 1u);
  EXPECT_EQ(context_.Diagnostics()[0].node, "#0 (Branch)/then_branch/#0 (Throw)");
}

// --- Fresh symbols -------------------------------------------------------------------

TEST_F(InferenceTest, FreshSymbolsAreUniqueAcrossNestedGraphsAndAvoidModelSymbols) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[unk__0] x) => (int64[?] a) {
      a = test.Fresh (x)
      b = test.Branch (x) <then_branch = g1 () => (int64[?] o) { o = test.Fresh (x) }>
      c = test.Fresh (x)
    })ONNX");
  const std::string a = Of("a"), b = Of("b"), c = Of("c");
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_NE(a, c);
  for (const std::string& text : {a, b, c}) {
    EXPECT_EQ(text.find("unk__"), std::string::npos) << text;
    EXPECT_NE(text.find("?"), 0u) << text;
  }
}

// --- Nested graphs -------------------------------------------------------------------

TEST_F(InferenceTest, SubgraphSeesTheEnclosingScope) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 4] x) => (float[?, 4] y) {
      k = Constant <value = int64[2] {2, 2}> ()
      y = test.Branch (x) <then_branch = g1 () => (float[?, ?] o) {
        t = test.Concat0 (x, x)
        o = test.ShapeFrom (t, k)
      }>
    })ONNX");
  EXPECT_EQ(Of("y"), "float[2,2]");
  EXPECT_TRUE(context_.Diagnostics().empty()) << context_.Diagnostics()[0].message;
  const GraphProto& branch = model_.graph().node(1).attribute(0).g();
  const ShapesContext* nested = context_.FindNested(branch);
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->Find("t")->ToString(), "float[2*batch,4]");
  EXPECT_EQ(context_.Find("t"), nullptr);
}

TEST_F(InferenceTest, LoopBodyGetsTheCallersInputsAndDeclaredTypesFillTheGaps) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (int64 n, bool c, float[batch, 4] s, float[2] z) => (float[?, ?] y) {
      y = test.Loop (n, c, s) <body = b (int64 i, bool cond, float[?, 4] state) => (bool co, float[?, 4] so) {
        co = test.Same (cond)
        so = test.Same (state)
      }>
      w = test.Loop (n, c, z) <body = b2 (int64 i, bool cond, float[m] state) => (bool co, float[m] so) {
        co = test.Same (cond)
        so = test.Same (state)
      }>
      u = test.Loop (n, c, missing) <body = b3 (int64 i, bool cond, float[k, 3] state) => (bool co, float[k, 3] so) {
        co = test.Same (cond)
        so = test.Same (state)
      }>
    })ONNX");
  EXPECT_EQ(Of("y"), "float[batch,4]");
  EXPECT_EQ(Of("w"), "float[2]");  // the caller's knowledge wins
  EXPECT_EQ(Of("u"), "float[k,3]");  // unknown from the caller: the declared type
}

TEST_F(InferenceTest, ContradictingDeclaredTypeOfASubgraphInputIsADiagnostic) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (int64 n, bool c, float[batch, 4] s) => (float[?, ?] y) {
      y = test.Loop (n, c, s) <body = b (int64 i, bool cond, float[?, 5] state) => (bool co, float[?, 5] so) {
        co = test.Same (cond)
        so = test.Same (state)
      }>
    })ONNX");
  EXPECT_EQ(Of("y"), "float[batch,4]");
  ASSERT_FALSE(context_.Diagnostics().empty());
  EXPECT_NE(context_.Diagnostics()[0].message.find("input 'state'"), std::string::npos)
      << context_.Diagnostics()[0].message;
  EXPECT_EQ(context_.Diagnostics()[0].node, "#0 (Loop)");
}

TEST_F(InferenceTest, GraphsOfUnknownOperatorsAreInferredFromTheirDeclaredInputs) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1, "other" : 1]>
    g (float[batch, 4] x) => (float[?] y) {
      y = other.Mystery (x) <body = b (float[n] v) => (float[n] w) {
        w = test.Concat0 (v, v)
      }>
    })ONNX");
  const ShapesContext* nested = context_.FindNested(model_.graph().node(0).attribute(0).g());
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->Find("w")->ToString(), "float[2*n]");
  EXPECT_EQ(context_.Find("y")->kind, SymTensor::Kind::kUnknown);
}

// --- Local functions -------------------------------------------------------------------

// A local function "local.Twice <n>(a) => (b)": b = AttrN<n = @n>(Concat0(a, a)) when
// `attr` is set, else b = Concat0(a, a).
FunctionProto TwiceFunction(bool attr) {
  ModelProto holder = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] a) => (float[4] b) {
      t = test.Concat0 (a, a)
      b = test.Same (t)
    })ONNX");
  FunctionProto function;
  function.set_name("Twice");
  function.set_domain("local");
  function.add_input("a");
  function.add_output("b");
  *function.mutable_node() = holder.graph().node();
  auto* opset = function.add_opset_import();
  opset->set_domain("test");
  opset->set_version(5);
  if (attr) {
    function.add_attribute("n");
    NodeProto& second = *function.mutable_node(1);
    second.set_op_type("AttrN");
    AttributeProto* ref = second.add_attribute();
    ref->set_name("n");
    ref->set_type(AttributeProto::INT);
    ref->set_ref_attr_name("n");
  }
  return function;
}

TEST_F(InferenceTest, LocalFunctionIsInstantiatedWithTheCallsInputs) {
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1, "local" : 1]>
    g (float[seq] x, float[3] z) => (float[?] y) {
      y = local.Twice (x)
      w = local.Twice (z)
    })ONNX");
  *model_.add_functions() = TwiceFunction(false);
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(Of("y"), "float[2*seq]");
  EXPECT_EQ(Of("w"), "float[6]");
  EXPECT_EQ(context_.Find("t"), nullptr);  // body values stay in the body
}

TEST_F(InferenceTest, LocalFunctionSubstitutesTheCallsAttributes) {
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1, "local" : 1]>
    g (float[seq] x) => (float[?] y) {
      y = local.Twice <n = 11> (x)
      w = local.Twice <n = 12> (x)
      u = local.Twice (x)
    })ONNX");
  *model_.add_functions() = TwiceFunction(true);
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(Of("y"), "float[11]");
  EXPECT_EQ(Of("w"), "float[12]");
  // Without the attribute, the body's reference is dropped (AttrN gives unknown).
  EXPECT_EQ(context_.Find("u")->kind, SymTensor::Kind::kUnknown);
  // The function's own opset import binds its body.
  FunctionProto& function = *model_.mutable_functions(0);
  function.mutable_node(1)->set_op_type("Opset");
  ShapesContext again;
  InferGraph(model_, model_.graph(), again);
  EXPECT_EQ(again.Find("y")->ToString(), "int64[1] = [5]");
}

TEST_F(InferenceTest, LocalFunctionAttributeDefaultAndOverload) {
  model_ = ParseText(R"ONNX(
    <ir_version: 10, opset_import: ["" : 18, "test" : 1, "local" : 1]>
    g (float[seq] x) => (float[?] y) {
      y = local.Twice (x)
      w = local.Twice (x)
    })ONNX");
  FunctionProto plain = TwiceFunction(true);
  AttributeProto default_n;
  default_n.set_name("n");
  default_n.set_type(AttributeProto::INT);
  default_n.set_i(21);
  plain.mutable_unknown_fields()->AddLengthDelimited(11, default_n.SerializeAsString());  // attribute_proto
  FunctionProto overloaded = TwiceFunction(false);
  overloaded.mutable_unknown_fields()->AddLengthDelimited(13, "v2");  // overload
  *model_.add_functions() = plain;
  *model_.add_functions() = overloaded;
  model_.mutable_graph()->mutable_node(1)->mutable_unknown_fields()->AddLengthDelimited(8, "v2");
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(Of("y"), "float[21]");
  EXPECT_EQ(Of("w"), "float[2*seq]");
}

TEST_F(InferenceTest, RecursiveLocalFunctionGivesUnknown) {
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float[seq] x) => (float[?] y) { y = local.Loop (x) })ONNX");
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
  *model_.add_functions() = function;
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(context_.Find("y")->kind, SymTensor::Kind::kUnknown);
  // One diagnostic, on the outermost call.
  ASSERT_EQ(context_.Diagnostics().size(), 1u);
  EXPECT_EQ(context_.Diagnostics()[0].message,
            "local function 'Loop' calls itself (directly or through other functions): recursive calls are not "
            "inferred: outputs unknown");
  EXPECT_EQ(context_.Diagnostics()[0].node, "#0 (Loop)");
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(InferenceTest, CallChainIsInferredOncePerCallSignature) {
  // 30 levels, each function calling the next twice: 2^29 calls of the last one
  // expanded, 60 bodies inferred.
  model_ = onnxopt::testing::CallChainModel(30, 2, "test", "Same");
  const auto start = std::chrono::steady_clock::now();
  InferGraph(model_, model_.graph(), context_);
  EXPECT_LT(SecondsSince(start), 1.0);
  EXPECT_EQ(Of("y"), "float[2]");
  EXPECT_TRUE(context_.Diagnostics().empty());
}

TEST_F(InferenceTest, DeepCallChainGivesOneDiagnostic) {
  model_ = onnxopt::testing::CallChainModel(40, 1, "test", "Same");
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(context_.Find("y")->kind, SymTensor::Kind::kUnknown);
  ASSERT_EQ(context_.Diagnostics().size(), 1u);
  EXPECT_EQ(context_.Diagnostics()[0].message,
            "calls of local functions nest 40 deep from 'F0', more than the limit of 32: outputs unknown");
  EXPECT_EQ(context_.Diagnostics()[0].node, "#0 (F0)");
}

TEST_F(InferenceTest, ReusedBodiesGetFreshSymbolsOfTheirOwn) {
  // G's output is a run-time size (a fresh symbol): two calls with the same signature
  // share the inference of the body, not the symbol.
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1, "local" : 1]>
    g (float[2] x) => (int64[?] a, int64[?] b) {
      a = local.G (x)
      b = local.G (x)
      c = test.Concat0 (a, b)
    })ONNX");
  FunctionProto& function = *model_.add_functions();
  function.set_name("G");
  function.set_domain("local");
  function.add_input("x");
  function.add_output("y");
  function.add_output("z");
  *function.mutable_opset_import() = model_.opset_import();
  NodeProto& fresh = *function.add_node();
  fresh.set_domain("test");
  fresh.set_op_type("Fresh");
  fresh.add_input("x");
  fresh.add_output("y");
  NodeProto& thrower = *function.add_node();  // diagnosed once: the body is inferred once
  thrower.set_domain("test");
  thrower.set_op_type("Throw");
  thrower.add_input("y");
  thrower.add_output("z");
  InferGraph(model_, model_.graph(), context_);
  const std::string a = Of("a"), b = Of("b");
  EXPECT_EQ(a.rfind("int64[unk__", 0), 0u) << a;
  EXPECT_EQ(b.rfind("int64[unk__", 0), 0u) << b;
  EXPECT_NE(a, b);
  const std::string a_dim = a.substr(6, a.size() - 7), b_dim = b.substr(6, b.size() - 7);
  EXPECT_EQ(Of("c"), "int64[" + SymDim::Parse(a_dim + "+" + b_dim).ToString() + "]");
  ASSERT_EQ(context_.Diagnostics().size(), 1u);
  EXPECT_EQ(context_.Diagnostics()[0].node, "#0 (G)/#1 (Throw)");
}

TEST_F(InferenceTest, CallsOfDistinctSignaturesStopAtTheNodeLimit) {
  // The leaf makes a fresh symbol, so that every call has a signature of its own: 2^29
  // distinct calls. Inference stops at its limit with one diagnostic.
  model_ = onnxopt::testing::CallChainModel(30, 2, "test", "Fresh");
  const auto start = std::chrono::steady_clock::now();
  InferGraph(model_, model_.graph(), context_);
  EXPECT_LT(SecondsSince(start), 10.0);
  EXPECT_EQ(context_.Find("y")->kind, SymTensor::Kind::kUnknown);
  std::size_t limit_diagnostics = 0;
  for (const ShapeDiagnostic& diagnostic : context_.Diagnostics())
    if (diagnostic.message.find("nodes of local function bodies, its limit: the outputs of this call and of every "
                                "later call of a local function are unknown") != std::string::npos)
      ++limit_diagnostics;
  EXPECT_EQ(limit_diagnostics, 1u);
  EXPECT_EQ(context_.Diagnostics().size(), 1u);
}

TEST_F(InferenceTest, SparseConstantsGiveTheirShapeAndSmallOnesTheirValue) {
  model_ = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[2] x) => (float[2] y) { y = test.Same (x) })ONNX");
  SparseTensorProto& small = *model_.mutable_graph()->add_sparse_initializer();
  small.add_dims(3);
  small.mutable_values()->set_name("s");
  small.mutable_values()->set_data_type(TensorProto::INT64);
  small.mutable_values()->add_dims(1);
  small.mutable_values()->add_int64_data(7);
  small.mutable_indices()->set_data_type(TensorProto::INT64);
  small.mutable_indices()->add_dims(1);
  small.mutable_indices()->add_int64_data(1);
  // A Constant whose dense form would take 4 TiB: its shape is known, nothing is densified.
  NodeProto& constant = *model_.mutable_graph()->add_node();
  constant.set_op_type("Constant");
  constant.add_output("c");
  AttributeProto& attr = *constant.add_attribute();
  attr.set_name("sparse_value");
  attr.set_type(AttributeProto::SPARSE_TENSOR);
  SparseTensorProto& huge = *attr.mutable_sparse_tensor();
  huge.add_dims(std::int64_t{1} << 40);
  huge.mutable_values()->set_data_type(TensorProto::FLOAT);
  huge.mutable_values()->add_dims(0);
  huge.mutable_indices()->set_data_type(TensorProto::INT64);
  huge.mutable_indices()->add_dims(0);
  InferGraph(model_, model_.graph(), context_);
  EXPECT_EQ(Of("s"), "int64[3] = [0,7,0]");
  ASSERT_NE(context_.FindConstant("s"), nullptr);
  EXPECT_EQ(Of("c"), "float[1099511627776]");
  EXPECT_EQ(context_.FindConstant("c"), nullptr);
  EXPECT_TRUE(context_.Diagnostics().empty());
}

// --- Incremental inference --------------------------------------------------------------

TEST_F(InferenceTest, InferNodesUsesWhatIsKnown) {
  Infer(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 4] x) => (float[?, 4] y) { y = test.Same (x) })ONNX");
  NodeProto first;
  first.set_domain("test");
  first.set_op_type("Concat0");
  first.add_input("x");
  first.add_input("y");
  first.add_output("n1");
  NodeProto second;
  second.set_domain("test");
  second.set_op_type("Concat0");
  second.add_input("n1");
  second.add_input("x");
  second.add_output("n2");
  InferNodes(model_, {&first, &second}, context_);
  EXPECT_EQ(Of("n1"), "float[2*batch,4]");
  EXPECT_EQ(Of("n2"), "float[3*batch,4]");
}

TEST_F(InferenceTest, LargeChainIsInferredInLinearTime) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 4] x) => (float[?, 4] y) { y = test.Same (x) })ONNX");
  auto& nodes = *model.mutable_graph()->mutable_node();
  constexpr int kNodes = 100000;
  nodes.Reserve(kNodes);
  for (int i = 1; i < kNodes; ++i) {
    NodeProto* node = nodes.Add();
    node->set_domain("test");
    node->set_op_type(i % 2 ? "Same" : "AddOne");
    node->add_input(nodes.Get(i - 1).output(0));
    node->add_output("value_with_a_long_name_" + std::to_string(i));
  }
  const auto start = std::chrono::steady_clock::now();
  ShapesContext context;
  InferGraph(model, model.graph(), context);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(context.Find("value_with_a_long_name_99999")->ToString(), "float[batch,4]");
  EXPECT_LT(seconds, 5.0);
}

// --- GraphBuilder ----------------------------------------------------------------------

TEST_F(InferenceTest, GraphBuilderInfersAndWritesValueInfo) {
  builder::GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 4] x, float[seq, 4] z) => (float[] y, float[?, 4] out) <float[1] c> {
      c = test.Concat0 (x, z)
      y = test.Same (c)
      out = test.Same (c)
      u = other.Mystery (x)
      b = test.Branch (x) <then_branch = g1 () => (float[?, ?] o) { o = test.Concat0 (c, x) }>
    })ONNX"));
  EXPECT_EQ(builder.Shapes(), nullptr);
  EXPECT_EQ(builder.GetShape("c"), nullptr);
  builder.InferShapes();
  ASSERT_NE(builder.GetShape("c"), nullptr);
  EXPECT_EQ(builder.GetShape("c")->ToString(), "float[batch+seq,4]");
  EXPECT_TRUE(builder.HasShape("c"));
  EXPECT_TRUE(builder.HasType("c"));
  EXPECT_EQ(builder.GetType("c"), TensorProto::FLOAT);
  EXPECT_EQ(builder.GetShape("u"), nullptr);
  EXPECT_FALSE(builder.HasShape("u"));
  EXPECT_EQ(builder.GetType("u"), 0);
  EXPECT_EQ(builder.GetShape("nothing"), nullptr);

  std::vector<builder::GraphBuilder*> nested = builder.Subgraphs();
  ASSERT_EQ(nested.size(), 1u);
  ASSERT_NE(nested[0]->GetShape("o"), nullptr);
  EXPECT_EQ(nested[0]->GetShape("o")->ToString(), "float[2*batch+seq,4]");
  EXPECT_NE(nested[0]->GetShape("x"), nullptr);  // enclosing values are visible
  nested[0]->InferShapes();                        // a nested builder re-infers its own graph
  ASSERT_NE(nested[0]->GetShape("o"), nullptr);
  EXPECT_EQ(nested[0]->GetShape("o")->ToString(), "float[2*batch+seq,4]");
  EXPECT_EQ(nested[0]->Shapes()->Parent(), builder.Shapes());

  builder.WriteValueInfo();
  const GraphProto& graph = builder.Graph();
  ASSERT_EQ(graph.value_info_size(), 2);  // c (replaced) and b; u is unknown
  EXPECT_EQ(graph.value_info(0).name(), "c");
  const auto& shape = graph.value_info(0).type().tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).dim_param(), "batch+seq");
  EXPECT_EQ(shape.dim(1).dim_value(), 4);
  EXPECT_EQ(graph.value_info(1).name(), "b");
  // Graph outputs: a declared shape is kept; a missing one is filled in.
  ASSERT_EQ(graph.output(0).type().tensor_type().shape().dim_size(), 2);
  EXPECT_EQ(graph.output(0).type().tensor_type().shape().dim(0).dim_param(), "batch+seq");
  EXPECT_EQ(graph.output(1).type().tensor_type().shape().dim(0).dim_value(), 0);
  EXPECT_FALSE(graph.output(1).type().tensor_type().shape().dim(0).has_dim_param());
  const GraphProto& branch = graph.node(4).attribute(0).g();
  ASSERT_EQ(branch.value_info_size(), 0);  // its only node output is a graph output
  ASSERT_EQ(branch.output(0).type().tensor_type().shape().dim_size(), 2);
  EXPECT_FALSE(branch.output(0).type().tensor_type().shape().dim(0).has_dim_param());
}

// Adds the initializer new_shape = int64[2] {8, -1}, as a rewrite would.
void AddNewShapeInitializer(builder::GraphBuilder& builder) {
  TensorProto* init = builder.Initializers().Add();
  init->set_name("new_shape");
  init->set_data_type(TensorProto::INT64);
  init->add_dims(2);
  init->add_int64_data(8);
  init->add_int64_data(-1);
}

TEST_F(InferenceTest, GraphBuilderInfersNewNodesIncrementally) {
  builder::GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 4] x) => (float[?, 4] y) { y = test.Same (x) })ONNX"));
  builder.InferShapes();
  AddNewShapeInitializer(builder);
  NodeProto* node = builder.Nodes().Add();
  node->set_domain("test");
  node->set_op_type("ShapeFrom");
  node->add_input("y");
  node->add_input("new_shape");
  node->add_output("r");
  builder.InferShapesOf({node});
  ASSERT_NE(builder.GetShape("r"), nullptr);
  EXPECT_EQ(builder.GetShape("r")->ToString(), "float[8,-1]");
  EXPECT_TRUE(builder.Shapes()->Diagnostics().empty());
}

// A rewrite gives `y` a producer whose shape inference knows: `z`, which reads y and was
// inferred before, learns it too, and the builder reports z as refined (the optimizer's
// match cache then looks at z's readers again).
TEST_F(InferenceTest, ReadersOfAValueKnownBetterAfterARewriteLearnIt) {
  builder::GraphBuilder builder(ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "test" : 1]>
    g (float[batch, 4] x, int64[2] s) => (float[?, ?] z) {
      y = test.ShapeFrom (x, s)
      z = test.OneOutput (y)
    })ONNX"));
  builder.InferShapes();
  EXPECT_EQ(builder.GetShape("z")->ToString(), "float?");
  AddNewShapeInitializer(builder);
  builder.Nodes().Mutable(0)->set_input(1, "new_shape");
  builder.InferShapesOf({&builder.Nodes().Get(0)});
  EXPECT_EQ(builder.GetShape("y")->ToString(), "float[8,-1]");
  EXPECT_EQ(builder.GetShape("z")->ToString(), "float[8,-1]");
  EXPECT_EQ(builder.TakeRefinedValues(), std::vector<std::string>{"z"});
  EXPECT_TRUE(builder.TakeRefinedValues().empty());
  EXPECT_TRUE(builder.LessKnownThanFreshInference().empty());
}

}  // namespace
}  // namespace onnxopt::core::shapes
