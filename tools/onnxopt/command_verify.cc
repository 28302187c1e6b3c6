// `onnxopt verify MODEL_A MODEL_B`: runs both models with the reference evaluator on the
// same seeded random inputs, with the same evaluation seed, and compares their outputs
// (symmetrically: the verdict does not depend on the order of the models).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_inputs.h"
#include "tools/onnxopt/random_outputs.h"

namespace onnxopt::cli {

namespace {

using core::eval::Tensor;

constexpr const char* kUsageLine =
    "onnxopt verify MODEL_A MODEL_B [--seed S] [--dim NAME=VALUE ...] [--atol A] [--rtol R]";

constexpr const char* kHelp = R"(usage: onnxopt verify MODEL_A MODEL_B [options]

Runs both models with onnxopt's reference evaluator on the same random inputs and
compares the outputs by name. The inputs are drawn like `onnxopt run --random-inputs`
for the inputs MODEL_A needs, then for those only MODEL_B needs; each model receives
the ones it declares. Both models must have the same output names, and for each output
the same kind, type and shape. Floating-point elements a and b match when
  both are NaN, or both are the same infinity, or both are finite and
  |a - b| <= atol + rtol * max(|a|, |b|)
(symmetric in a and b: the order of the models does not change how elements compare).
Integers, bool and strings must be identical.

Random operators (RandomNormal, RandomUniform, Bernoulli, Multinomial, training-mode
Dropout, ...) draw from the node's seed attribute, else from --seed combined with the
node's name (an unnamed node's first output name): a random node that both models have
(same operator, attributes and name) draws the same numbers in both. An output computed
from a random node that only one model has (or has changed) cannot be compared: it is
listed as "not comparable", naming the node, and left out of the verdict.

options:
  --seed S            seed of the random inputs and of the random operators (default 0)
  --dim NAME=VALUE    value of the symbolic dimension NAME (repeatable; default 2)
  --float-range R     range of random floats (default 1)
  --int-max M         bound of random integers (default 16)
  --atol A            absolute tolerance of every floating-point type (default: by type,
                      float and double 1e-4, float16 1e-3, bfloat16 1e-2, float8 and
                      float4 0)
  --rtol R            relative tolerance of every floating-point type (default: by type,
                      float and double 1e-3, float16 2e-3, bfloat16 1.6e-2, float8 and
                      float4 0)

exit codes: 0 every comparable output matches, 5 the outputs differ, 1 usage error,
2 a model is invalid or fails to run (missing kernel, kernel failure), 3 internal error.

examples:
  onnxopt verify model.onnx model.opt.onnx
  onnxopt verify a.onnx b.onnx --seed 3 --dim batch=1 --atol 1e-5 --rtol 0
)";

using core::eval::CompareValues;
using core::eval::Comparison;
using core::eval::IsFloatingPointType;
using core::eval::Tolerance;
using core::eval::ToleranceOf;
using core::eval::ToleranceOptions;

// The element types of the tensors in `value`.
void CollectElementTypes(const core::eval::Value& value, std::set<int>& types) {
  if (const auto* tensor = std::get_if<Tensor>(&value)) types.insert(tensor->elem_type());
  if (const auto* sequence = std::get_if<core::eval::Sequence>(&value))
    for (const Tensor& tensor : *sequence) types.insert(tensor.elem_type());
}

// "float: atol 0.0001, rtol 0.001; float16: ..." for the floating-point types compared.
std::string ToleranceText(const std::set<int>& types, const ToleranceOptions& given) {
  std::string text;
  for (int type : types) {
    if (!IsFloatingPointType(type)) continue;
    const Tolerance tolerance = ToleranceOf(type, given);
    std::string name = core::ir::ElementTypeName(type);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::ostringstream out;
    out << name << ": atol " << tolerance.atol << ", rtol " << tolerance.rtol;
    text += (text.empty() ? "" : "; ") + out.str();
  }
  return text;
}

// The inputs both models need (not initializers), drawn once: MODEL_A's in its order, then
// those only MODEL_B needs. Each model then receives those it declares.
core::eval::ValueMap DrawInputs(const ModelProto& model_a, const ModelProto& model_b, const RandomInputOptions& options,
                                std::map<std::string, std::int64_t>* symbols) {
  ModelProto needed;  // RandomInputs reads the graph inputs only
  std::set<std::string> names;
  for (const ModelProto* model : {&model_a, &model_b}) {
    std::set<std::string> initializers;
    for (const auto& init : model->graph().initializer()) initializers.insert(init.name());
    for (const auto& input : model->graph().input())
      if (!initializers.contains(input.name()) && names.insert(input.name()).second)
        *needed.mutable_graph()->add_input() = input;
  }
  return RandomInputs(needed, options, symbols);
}

core::eval::ValueMap InputsOf(const ModelProto& model, const core::eval::ValueMap& drawn) {
  core::eval::ValueMap inputs;
  for (const auto& input : model.graph().input())
    if (auto it = drawn.find(input.name()); it != drawn.end()) inputs.insert(*it);
  return inputs;
}

int RunVerify(std::vector<std::string> raw_args) {
  const std::vector<std::string> dim_specs = TakeRepeatedOption(raw_args, "--dim");
  Arguments args(raw_args, {"--seed", "--atol", "--rtol", "--float-range", "--int-max"}, {});
  const auto& models = args.Positional(2, 2);
  const RandomInputOptions options =
      ParseRandomInputOptions(dim_specs, args.Value("--seed"), args.Value("--float-range"), args.Value("--int-max"));
  ToleranceOptions tolerances;
  if (auto atol = args.Value("--atol")) tolerances.atol = ParseNonNegativeNumber(*atol, "--atol");
  if (auto rtol = args.Value("--rtol")) tolerances.rtol = ParseNonNegativeNumber(*rtol, "--rtol");

  std::vector<std::string> warnings;
  const ModelProto model_a = core::ir::LoadModel(models[0], {}, &warnings);
  const ModelProto model_b = core::ir::LoadModel(models[1], {}, &warnings);
  core::shapes::ValidateModel(model_a, models[0]);
  core::shapes::ValidateModel(model_b, models[1]);
  for (const auto& warning : warnings) std::cerr << "onnxopt verify: warning: " << warning << "\n";

  std::map<std::string, std::int64_t> symbols;
  const core::eval::ValueMap drawn = DrawInputs(model_a, model_b, options, &symbols);
  if (!symbols.empty()) {
    std::cout << "symbolic dims:";
    for (const auto& [name, value] : symbols) std::cout << " " << name << "=" << value;
    std::cout << "\n";
  }

  auto run = [&](const ModelProto& model, const std::string& path) {
    // Both models draw from one evaluation seed: random nodes they share draw alike.
    core::eval::SetEvaluationSeed(options.seed);
    try {
      return core::eval::Run(model, InputsOf(model, drawn));
    } catch (const ModelError& error) {
      throw ModelError(path + ": " + error.what());
    }
  };
  const core::eval::ValueMap out_a = run(model_a, models[0]);
  const core::eval::ValueMap out_b = run(model_b, models[1]);

  // Output -> why it cannot be compared.
  std::map<std::string, std::string> random;
  for (const auto& [output, node] : OutputsOfUnsharedRandomNodes(model_a, model_b))
    random.emplace(output, node + ", which only " + models[0] + " has");
  for (const auto& [output, node] : OutputsOfUnsharedRandomNodes(model_b, model_a))
    random.emplace(output, node + ", which only " + models[1] + " has");

  bool all_ok = true;
  std::size_t compared = 0, not_comparable = 0;
  std::set<int> types;
  std::set<std::string> names_b;
  for (const auto& output : model_b.graph().output()) names_b.insert(output.name());
  for (const auto& output : model_a.graph().output()) {
    if (!names_b.erase(output.name())) {
      std::cout << "MISMATCH " << output.name() << ": not an output of " << models[1] << "\n";
      all_ok = false;
      continue;
    }
    if (auto it = random.find(output.name()); it != random.end()) {
      std::cout << "not comparable " << output.name() << " (depends on random " << it->second << ")\n";
      ++not_comparable;
      continue;
    }
    const core::eval::Value& a = out_a.at(output.name());
    const core::eval::Value& b = out_b.at(output.name());
    CollectElementTypes(a, types);
    const Comparison result = CompareValues(a, b, tolerances);
    ++compared;
    std::cout << (result.ok ? "ok       " : "MISMATCH ") << output.name() << " max_abs_diff=" << std::setprecision(4)
              << result.max_abs_diff;
    if (!result.ok) std::cout << " (" << result.reason << ")";
    std::cout << "\n";
    all_ok = all_ok && result.ok;
  }
  for (const auto& name : names_b) {
    std::cout << "MISMATCH " << name << ": not an output of " << models[0] << "\n";
    all_ok = false;
  }
  const std::string tolerance_text = ToleranceText(types, tolerances);
  std::cout << (all_ok ? "EQUIVALENT" : "NOT EQUIVALENT") << " (seed " << options.seed
            << (tolerance_text.empty() ? "" : ", " + tolerance_text) << ")\n";
  if (not_comparable > 0)
    std::cout << "not compared: " << not_comparable << " of " << not_comparable + compared
              << " common outputs depend on random nodes that only one model has; the verdict covers the other "
              << compared << "\n";
  return all_ok ? kOk : kMismatch;
}

}  // namespace

Command VerifyCommand() {
  return {"verify", "check that two models compute the same outputs", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("verify", kUsageLine, [&] { return RunVerify(args); });
          }};
}

}  // namespace onnxopt::cli
