#include "tests/onnx_extensions/patterns/pattern_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/common/json_writer.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

namespace {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::LocalRewriting;
using core::builder::OptimizerOptions;
using core::builder::NumericalClass;
using core::builder::PatternSelection;
using core::eval::Tensor;

void RegisterOperators() {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
}

struct Optimized {
  ModelProto model;
  std::vector<LocalRewriting> records;
  std::size_t applied = 0;  // records of the pattern (not cleanup)
};

Optimized OptimizeWith(const PatternPtr& pattern, ModelProto model) {
  GraphBuilder builder(std::move(model));
  OptimizerOptions options;
  options.registered = PatternSelection::None();
  GraphGraph graph(builder, {pattern}, options);
  Optimized result;
  result.records = graph.Optimize();
  for (const LocalRewriting& record : result.records)
    if (record.pattern.get() == pattern.get()) ++result.applied;
  result.model = std::move(builder).TakeModel();
  return result;
}

std::string AttributeText(const AttributeProto& attr) {
  // The protobuf text of the attribute, minus graph attributes' inner names (rare in
  // pattern tests; compared verbatim).
  return attr.ShortDebugString();
}

class Canonicalizer {
 public:
  explicit Canonicalizer(const GraphProto& graph) {
    for (const auto& input : graph.input()) names_.emplace(input.name(), input.name());
    for (const auto& output : graph.output()) names_.emplace(output.name(), output.name());
  }

  std::string Name(const std::string& name) {
    if (name.empty()) return "";
    auto [it, inserted] = names_.emplace(name, "");
    if (inserted) it->second = "%" + std::to_string(next_++);
    return it->second;
  }

 private:
  std::map<std::string, std::string> names_;
  int next_ = 0;
};

std::string TensorText(const TensorProto& tensor) {
  Tensor value = Tensor::FromProto(tensor);
  std::string text = value.Describe() + "{";
  if (value.elem_type() == TensorProto::STRING) {
    for (std::int64_t i = 0; i < value.size(); ++i) text += (i ? "," : "") + value.Data<std::string>()[i];
  } else {
    const std::vector<double> elements = value.ToDoubleVector();
    for (std::size_t i = 0; i < elements.size(); ++i) text += (i ? "," : "") + std::to_string(elements[i]);
  }
  return text + "}";
}


Tensor RandomTensor(const onnx::TypeProto& type, std::mt19937& rng) {
  if (!type.has_tensor_type()) throw std::runtime_error("pattern tests take tensor inputs only");
  const auto& tensor_type = type.tensor_type();
  std::vector<std::int64_t> shape;
  for (const auto& dim : tensor_type.shape().dim()) shape.push_back(dim.has_dim_value() ? dim.dim_value() : 3);
  Tensor tensor(tensor_type.elem_type(), shape);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  std::uniform_int_distribution<int> small(0, 4);
  for (std::int64_t i = 0; i < tensor.size(); ++i) {
    switch (tensor.elem_type()) {
      case TensorProto::FLOAT: tensor.MutableData<float>()[i] = real(rng); break;
      case TensorProto::DOUBLE: tensor.MutableData<double>()[i] = real(rng); break;
      case TensorProto::FLOAT16: tensor.MutableData<std::uint16_t>()[i] = core::eval::FloatToHalf(real(rng)); break;
      case TensorProto::BFLOAT16:
        tensor.MutableData<std::uint16_t>()[i] = core::eval::FloatToBFloat16(real(rng));
        break;
      case TensorProto::INT32: tensor.MutableData<std::int32_t>()[i] = small(rng); break;
      case TensorProto::UINT8: tensor.MutableData<std::uint8_t>()[i] = static_cast<std::uint8_t>(small(rng) * 60); break;
      case TensorProto::INT64: tensor.MutableData<std::int64_t>()[i] = small(rng); break;
      case TensorProto::INT8: tensor.MutableData<std::int8_t>()[i] = static_cast<std::int8_t>(small(rng) - 2); break;
      case TensorProto::INT16: tensor.MutableData<std::int16_t>()[i] = static_cast<std::int16_t>(small(rng) - 2); break;
      case TensorProto::UINT16: tensor.MutableData<std::uint16_t>()[i] = static_cast<std::uint16_t>(small(rng)); break;
      case TensorProto::UINT32: tensor.MutableData<std::uint32_t>()[i] = static_cast<std::uint32_t>(small(rng)); break;
      case TensorProto::UINT64: tensor.MutableData<std::uint64_t>()[i] = static_cast<std::uint64_t>(small(rng)); break;
      case TensorProto::BOOL: tensor.MutableData<bool>()[i] = small(rng) % 2 == 0; break;
      default: throw std::runtime_error("no random values for element type " + std::to_string(tensor.elem_type()));
    }
  }
  return tensor;
}

// IEEE equality of every element (NaN where NaN; +0 equals -0), exact for non-float types.
bool EqualValues(const Tensor& a, const Tensor& b) {
  if (a.Describe() != b.Describe()) return false;
  const int type = a.elem_type();
  const bool floating = type == TensorProto::FLOAT || type == TensorProto::DOUBLE || type == TensorProto::FLOAT16 ||
                        type == TensorProto::BFLOAT16;
  if (!floating) return a == b;
  const std::vector<double> x = a.ToDoubleVector(), y = b.ToDoubleVector();
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i])))) return false;
  return true;
}

}  // namespace

std::string CanonicalGraph(const GraphProto& graph) {
  Canonicalizer names(graph);
  std::string text;
  for (const auto& input : graph.input()) text += "input " + input.name() + "\n";
  for (const auto& init : graph.initializer()) text += "initializer " + names.Name(init.name()) + " = " + TensorText(init) + "\n";
  for (const NodeProto& node : graph.node()) {
    std::string line;
    for (const std::string& output : node.output()) line += names.Name(output) + " ";
    line += "= " + (node.domain().empty() ? "" : node.domain() + ".") + node.op_type() + "<";
    std::vector<std::string> attributes;
    for (const AttributeProto& attr : node.attribute()) attributes.push_back(AttributeText(attr));
    std::sort(attributes.begin(), attributes.end());
    for (const std::string& attr : attributes) line += attr + ";";
    line += ">(";
    for (const std::string& input : node.input()) line += names.Name(input) + ",";
    text += line + ")\n";
  }
  for (const auto& output : graph.output()) text += "output " + output.name() + "\n";
  return text;
}

namespace {

void WriteFile(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string JsonString(std::string_view text) {
  std::string json;
  AppendJsonString(json, text);
  return json;
}

// With ONNXOPT_EXPORT_REWRITES=FOLDER, every comparison of ExpectSameOutputs also writes its
// two models, the random inputs and what the evaluator computed on `before` into
// FOLDER/<suite>.<test>.<n>/, for tests/ort/compare_rewrites.js: onnxruntime, an
// implementation independent of ours, judges the rewrite again (a pattern and our kernels
// could share a misreading of the spec) and our evaluator on the original graph.
void ExportForOnnxruntime(const ModelProto& before, const ModelProto& after, const core::eval::ValueMap& inputs,
                          const core::eval::ValueMap& expected, NumericalClass numerics, double tolerance) {
  const char* folder = std::getenv("ONNXOPT_EXPORT_REWRITES");
  if (!folder || !*folder) return;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "outside-a-test";
  for (char& c : name)
    if (c == '/') c = '_';
  static std::map<std::string, int> comparisons;  // per test: several comparisons get .0, .1...
  const std::filesystem::path dir =
      std::filesystem::path(folder) / (name + "." + std::to_string(comparisons[name]++));
  std::filesystem::create_directories(dir);
  WriteFile(dir / "before.onnx", before.SerializeAsString());
  WriteFile(dir / "after.onnx", after.SerializeAsString());
  // Tensors as raw little-endian files with their type and dims in case.json.
  auto tensors = [&](const core::eval::ValueMap& values, std::string_view prefix) {
    std::string json = "[";
    int index = 0;
    for (const auto& [value_name, value] : values) {
      const auto* tensor = std::get_if<Tensor>(&value);
      if (!tensor || tensor->elem_type() == TensorProto::STRING) continue;
      const std::string file = std::string(prefix) + std::to_string(index++) + ".bin";
      WriteFile(dir / file, std::string_view(reinterpret_cast<const char*>(tensor->RawData()), tensor->ByteSize()));
      json += std::string(json.size() > 1 ? "," : "") + "{\"name\":" + JsonString(value_name) +
              ",\"elem_type\":" + std::to_string(tensor->elem_type()) + ",\"dims\":[";
      for (std::size_t d = 0; d < tensor->rank(); ++d) json += (d ? "," : "") + std::to_string(tensor->shape()[d]);
      json += "],\"file\":" + JsonString(file) + "}";
    }
    return json + "]";
  };
  std::ostringstream tolerance_text;
  tolerance_text << tolerance;
  WriteFile(dir / "case.json", "{\"test\":" + JsonString(name) + ",\"numerics\":" +
                                   JsonString(core::builder::NumericalClassName(numerics)) +
                                   ",\"tolerance\":" + tolerance_text.str() + ",\"inputs\":" + tensors(inputs, "input_") +
                                   ",\"expected\":" + tensors(expected, "expected_") + "}\n");
}

}  // namespace

void ExpectSameOutputs(const ModelProto& before, const ModelProto& after, NumericalClass numerics, double tolerance) {
  if (numerics == NumericalClass::kExact) {
    ASSERT_EQ(tolerance, 0) << "an exact pattern is compared without tolerance";
  }
  std::mt19937 rng(1234);
  core::eval::ValueMap inputs;
  for (const auto& input : before.graph().input()) {
    bool is_initializer = false;
    for (const auto& init : before.graph().initializer()) is_initializer |= init.name() == input.name();
    if (!is_initializer) inputs.insert_or_assign(input.name(), RandomTensor(input.type(), rng));
  }
  const core::eval::ValueMap expected = core::eval::Run(before, inputs);
  const core::eval::ValueMap actual = core::eval::Run(after, inputs);
  ExportForOnnxruntime(before, after, inputs, expected, numerics, tolerance);
  for (const auto& output : before.graph().output()) {
    if (const auto* sequence = std::get_if<std::vector<Tensor>>(&expected.at(output.name()))) {
      // A sequence output: the same tensors, compared exactly (tolerances are for tensors).
      ASSERT_EQ(tolerance, 0) << "output " << output.name() << " is a sequence";
      const auto* other = std::get_if<std::vector<Tensor>>(&actual.at(output.name()));
      ASSERT_NE(other, nullptr) << "output " << output.name() << " is a sequence before, not after";
      ASSERT_EQ(sequence->size(), other->size()) << "output " << output.name();
      for (std::size_t i = 0; i < sequence->size(); ++i)
        EXPECT_TRUE(EqualValues((*sequence)[i], (*other)[i])) << "output " << output.name() << "[" << i << "] differs";
      continue;
    }
    const Tensor& want = std::get<Tensor>(expected.at(output.name()));
    const Tensor& got = std::get<Tensor>(actual.at(output.name()));
    ASSERT_EQ(want.Describe(), got.Describe()) << "output " << output.name();
    if (tolerance == 0) {
      EXPECT_TRUE(EqualValues(want, got)) << "output " << output.name() << " differs";
      continue;
    }
    const std::vector<double> a = want.ToDoubleVector(), b = got.ToDoubleVector();
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_LE(std::abs(a[i] - b[i]), tolerance * (1 + std::abs(a[i]))) << "output " << output.name() << "[" << i << "]";
  }
}

void ExpectRewrite(const PatternPtr& pattern, NumericalClass numerics, std::string_view before, std::string_view after,
                   double tolerance) {
  ExpectRewrite(pattern, numerics, ParseText(before), after, tolerance);
}

void ExpectRewrite(const PatternPtr& pattern, NumericalClass numerics, const ModelProto& original,
                   std::string_view after, double tolerance) {
  RegisterOperators();
  const ModelProto expected = ParseText(after);
  Optimized optimized = OptimizeWith(pattern, original);
  EXPECT_GT(optimized.applied, 0u) << pattern->Name() << " did not fire";
  EXPECT_EQ(CanonicalGraph(optimized.model.graph()), CanonicalGraph(expected.graph()));

  const GraphProto replayed = core::builder::Replay(original, optimized.records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(optimized.model.graph()))
      << "Replay does not reproduce the optimized graph";

  Optimized again = OptimizeWith(pattern, optimized.model);
  EXPECT_EQ(again.applied, 0u) << pattern->Name() << " fires again on its own result";

  ExpectSameOutputs(original, optimized.model, numerics, tolerance);
}

void ExpectRejects(const PatternPtr& pattern, const ModelProto& model, std::string_view node_output,
                   std::string_view reason) {
  RegisterOperators();
  GraphBuilder builder{ModelProto(model)};
  builder.InferShapes();
  OptimizerOptions options;
  options.registered = PatternSelection::None();
  GraphGraph graph(builder, {pattern}, options);
  const NodeProto* node = graph.NodeBefore(node_output);
  ASSERT_NE(node, nullptr) << "no node produces '" << node_output << "'";
  const core::builder::MatchResult match = pattern->Match(graph, *node);
  EXPECT_FALSE(match) << "it matched: " << match.ToString();
  EXPECT_EQ(match.no_match.reason, reason);
}

void ExpectRejects(const PatternPtr& pattern, std::string_view model, std::string_view node_output,
                   std::string_view reason) {
  ExpectRejects(pattern, ParseText(model), node_output, reason);
}

void ExpectNoMatch(const PatternPtr& pattern, const ModelProto& model, std::string_view node_output,
                   std::string_view reason) {
  ExpectRejects(pattern, model, node_output, reason);
  EXPECT_EQ(OptimizeWith(pattern, model).applied, 0u);
}

void ExpectNoMatch(const PatternPtr& pattern, std::string_view model, std::string_view node_output,
                   std::string_view reason) {
  ExpectNoMatch(pattern, ParseText(model), node_output, reason);
}

std::size_t ApplicationsUntilConvergence(const PatternPtr& pattern, std::string_view model) {
  RegisterOperators();
  return OptimizeWith(pattern, ParseText(model)).applied;
}

}  // namespace onnxopt::testing
