#include "tests/onnx_core/memory/memory_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <mutex>
#include <random>
#include <set>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/kernel_registry.h"
#include "onnx_core/memory/inplace_run.h"
#include "onnx_core/memory/memory_graph.h"
#include "onnx_core/memory/memory_plan.h"
#include "onnx_core/memory/memory_traits.h"
#include "onnx_core/shapes/shape_registry.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/memory/register_memory_traits.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

namespace {

using core::eval::Tensor;
using core::eval::Value;
using core::memory::CopyEliminationResult;
using core::memory::MemoryGraph;
using core::memory::MemoryOptions;
using core::memory::OpMemoryTraits;
using core::shapes::InferenceContext;
using core::shapes::SymTensor;

OpMemoryTraits Traits(std::vector<std::pair<int, int>> aliases, std::vector<int> clobbers,
                      std::vector<int> continuous) {
  return OpMemoryTraits{std::move(aliases), {}, std::move(clobbers), std::move(continuous)};
}

void RegisterTestOperator(const char* op, OpMemoryTraits traits, core::shapes::ShapeFunction shapes,
                          core::eval::Kernel kernel) {
  core::memory::RegisterOpMemoryTraits(
      "test", op,
      {"", [traits](const NodeProto&, const core::memory::ElementTypeQuery&) { return std::optional(traits); }});
  core::shapes::RegisterShapeFunction("test", op, std::move(shapes));
  core::eval::RegisterKernel("test", op, std::move(kernel));
}

std::vector<Value> Clobber(core::eval::KernelContext& ctx) {
  const Tensor& input = ctx.TensorInput(0);
  Tensor doubled(input.elem_type(), input.shape());
  for (std::int64_t i = 0; i < input.size(); ++i) doubled.MutableData<float>()[i] = 2 * input.Data<float>()[i];
  // The scratch use: the input's buffer (shared by every value viewing it) is
  // overwritten.
  Tensor shared = input;
  for (std::int64_t i = 0; i < shared.size(); ++i)
    shared.MutableData<float>()[i] = std::numeric_limits<float>::quiet_NaN();
  return {doubled};
}

std::vector<Value> CatInPlace(core::eval::KernelContext& ctx) {
  const Tensor& a = ctx.TensorInput(0);
  const Tensor& b = ctx.TensorInput(1);
  Tensor result(a.elem_type(), {a.size() + b.size()});
  std::memcpy(result.MutableRawData(), a.RawData(), a.ByteSize());
  std::memcpy(result.MutableRawData() + a.ByteSize(), b.RawData(), b.ByteSize());
  return {result};
}

core::eval::ValueMap RandomInputs(const GraphProto& graph) {
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  core::eval::ValueMap inputs;
  for (const auto& input : graph.input()) {
    std::vector<std::int64_t> shape;
    for (const auto& dim : input.type().tensor_type().shape().dim()) shape.push_back(dim.dim_value());
    Tensor tensor(input.type().tensor_type().elem_type(), shape);
    for (std::int64_t i = 0; i < tensor.size(); ++i) {
      switch (tensor.elem_type()) {
        case TensorProto::FLOAT:
          tensor.MutableData<float>()[i] = real(rng);
          break;
        case TensorProto::BOOL:
          tensor.MutableData<bool>()[i] = true;
          break;
        default:
          break;  // integers stay zero: valid indices, shapes copied from the
                  // input
      }
    }
    inputs.insert_or_assign(input.name(), std::move(tensor));
  }
  return inputs;
}

void ExpectSameValues(const core::eval::ValueMap& want, const core::eval::ValueMap& got, const GraphProto& graph,
                      const std::string& what) {
  for (const auto& output : graph.output()) {
    const Tensor& a = std::get<Tensor>(want.at(output.name()));
    const Tensor& b = std::get<Tensor>(got.at(output.name()));
    EXPECT_TRUE(a == b) << what << ": output " << output.name() << " differs";
  }
}

// The evaluator can run the graph (no numerical check otherwise, e.g. a
// custom-domain operator without a kernel).
bool HasEveryKernel(const GraphProto& graph) {
  for (const NodeProto& node : graph.node())
    if (core::eval::FindKernel(node.domain(), node.op_type()) == nullptr) {
      std::cout << "no kernel for " << node.op_type() << ": no numerical check\n";
      return false;
    }
  return true;
}

// Writers whose in-place write is unsafe in `model`'s main graph, by first
// output name.
std::set<std::string> UnsafeWrites(const ModelProto& model, const MemoryOptions& options) {
  core::builder::GraphBuilder builder{ModelProto(model)};
  builder.InferShapes();
  const MemoryGraph graph(builder.Graph(), true, options, core::memory::TypeQueryOf(builder),
                          builder.Functions());
  std::set<std::string> unsafe;
  for (const auto& write : core::memory::CheckInPlaceWrites(graph, options))
    if (!write.violation.empty()) unsafe.insert(write.node->output(0));
  return unsafe;
}

void RegisterTestOperators();

}  // namespace

void RegisterMemoryTestOperators() {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  onnx_memory::RegisterMemoryTraits();
  static std::once_flag once;
  std::call_once(once, RegisterTestOperators);
}

namespace {

void RegisterTestOperators() {
  auto same_as_input = [](InferenceContext& ctx) { return std::vector<SymTensor>{ctx.Input(0)}; };
  RegisterTestOperator("Clobber", Traits({}, {0}, {}), same_as_input, Clobber);
  RegisterTestOperator(
      "Fork", Traits({{0, 0}, {1, 0}}, {}, {}),
      [](InferenceContext& ctx) {
        return std::vector<SymTensor>{ctx.Input(0), ctx.Input(0)};
      },
      [](core::eval::KernelContext& ctx) {
        return std::vector<Value>{ctx.Input(0), ctx.Input(0)};
      });
  RegisterTestOperator(
      "CatInPlace", Traits({}, {}, {0, 1}),
      [](InferenceContext& ctx) {
        return std::vector<SymTensor>{SymTensor::Tensor(ctx.Input(0).elem_type, core::shapes::SymShape())};
      },
      CatInPlace);
}

}  // namespace

Eliminated Eliminate(std::string_view text, const MemoryOptions& options,
                     const core::memory::CopyEliminationHooks& hooks) {
  RegisterMemoryTestOperators();
  Eliminated eliminated;
  eliminated.before = ParseText(text);
  core::builder::GraphBuilder builder{ModelProto(eliminated.before)};
  builder.InferShapes();
  // Every update of the pass's analysis is compared with a rebuild.
  core::memory::CopyEliminationHooks checked = hooks;
  checked.check_incremental = true;
  eliminated.result = core::memory::EliminateCopies(builder, true, options, checked);
  eliminated.after = std::move(builder).TakeModel();
  return eliminated;
}

std::string CanonicalFunctions(const ModelProto& model) {
  std::string text;
  for (const FunctionProto& function : model.functions()) {
    text += function.domain() + "." + function.name() + " (";
    for (const std::string& input : function.input()) text += input + " ";
    text += ") => (";
    for (const std::string& output : function.output()) text += output + " ";
    text += ") {\n";
    for (const NodeProto& node : function.node()) text += "  " + node.ShortDebugString() + "\n";
    text += "}\n";
  }
  return text;
}

std::string VerdictOf(const Eliminated& eliminated, std::string_view copy) {
  for (const auto& verdict : eliminated.result.verdicts)
    if (verdict.copy == copy) return core::memory::VerdictText(verdict);
  return "no verdict";
}

void ExpectElimination(std::string_view before, const std::map<std::string, std::string>& verdicts,
                       std::string_view after, const MemoryOptions& options) {
  const Eliminated eliminated = Eliminate(before, options);
  std::map<std::string, std::string> actual;
  for (const auto& verdict : eliminated.result.verdicts) actual[verdict.copy] = core::memory::VerdictText(verdict);
  EXPECT_EQ(actual, verdicts);
  const ModelProto expected = after.empty() ? eliminated.before : ParseText(after);
  EXPECT_EQ(CanonicalGraph(eliminated.after.graph()), CanonicalGraph(expected.graph()));
  EXPECT_EQ(CanonicalFunctions(eliminated.after), CanonicalFunctions(expected));

  // A necessary copy was not removed: every write that was safe stays safe.
  std::set<std::string> unsafe_before = UnsafeWrites(eliminated.before, options);
  for (const auto& [from, to] : eliminated.result.value_renames)
    if (unsafe_before.erase(from) > 0) unsafe_before.insert(to);
  for (const std::string& writer : UnsafeWrites(eliminated.after, options))
    EXPECT_TRUE(unsafe_before.contains(writer)) << "the pass made the in-place write of " << writer << " unsafe";

  if (HasEveryKernel(eliminated.before.graph())) {
    const core::eval::ValueMap inputs = RandomInputs(eliminated.before.graph());
    const core::eval::ValueMap functional = core::eval::Run(eliminated.before, inputs);
    ExpectSameValues(functional, core::eval::Run(eliminated.after, inputs), eliminated.before.graph(), "functional");
    // The plan after the pass, executed in place.
    const core::eval::RunOptions in_place = core::memory::InPlaceRunOptions(eliminated.after, options);
    ExpectSameValues(functional, core::eval::Run(eliminated.after, inputs, in_place), eliminated.before.graph(),
                     "in place");
  }

  // Converged: a second run deletes nothing more (the copies named by
  // `ordering` may be gone).
  core::builder::GraphBuilder again{ModelProto(eliminated.after)};
  again.InferShapes();
  MemoryOptions second_options = options;
  second_options.ordering.clear();
  const CopyEliminationResult second = core::memory::EliminateCopies(again, true, second_options);
  EXPECT_EQ(second.Count(core::memory::CopyVerdict::Kind::kDeleted), 0u);
  const ModelProto second_model = std::move(again).TakeModel();
  EXPECT_EQ(CanonicalGraph(second_model.graph()), CanonicalGraph(eliminated.after.graph()));
  EXPECT_EQ(CanonicalFunctions(second_model), CanonicalFunctions(eliminated.after));
}

}  // namespace onnxopt::testing
