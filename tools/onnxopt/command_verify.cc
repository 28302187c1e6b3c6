// `onnxopt verify MODEL_A MODEL_B`: runs both models with the reference evaluator on the
// same seeded random inputs and compares their outputs.

#include <cmath>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/shapes/model_validity.h"
#include "tools/onnxopt/cli.h"
#include "tools/onnxopt/model_inputs.h"

namespace onnxopt::cli {

namespace {

using core::eval::Tensor;

constexpr const char* kUsageLine =
    "onnxopt verify MODEL_A MODEL_B [--seed S] [--dim NAME=VALUE ...] [--atol A] [--rtol R]";

constexpr const char* kHelp = R"(usage: onnxopt verify MODEL_A MODEL_B [options]

Runs both models with onnxopt's reference evaluator on the same random inputs (drawn
from MODEL_A's inputs like `onnxopt run --random-inputs`; MODEL_B receives the ones it
declares) and compares the outputs by name. Numbers match when
|a - b| <= atol + rtol * |b| (a from MODEL_A, b from MODEL_B); NaN matches NaN,
infinities must be equal; integers, bool and strings must be identical; types and
shapes must be equal, and both models must have the same output names.

options:
  --seed S            seed of the random inputs (default 0)
  --dim NAME=VALUE    value of the symbolic dimension NAME (repeatable; default 2)
  --float-range R     range of random floats (default 1)
  --int-max M         bound of random integers (default 16)
  --atol A            absolute tolerance (default 1e-4)
  --rtol R            relative tolerance (default 1e-3)

exit codes: 0 every output matches, 5 the outputs differ, 1 usage error, 2 a model is
invalid or fails to run (missing kernel, kernel failure), 3 internal error.

examples:
  onnxopt verify model.onnx model.opt.onnx
  onnxopt verify a.onnx b.onnx --seed 3 --dim batch=1 --atol 1e-5 --rtol 0
)";

struct Comparison {
  bool ok = true;
  double max_abs_diff = 0;
  std::string reason;
};

Comparison CompareTensors(const Tensor& a, const Tensor& b, double atol, double rtol) {
  Comparison result;
  if (a.elem_type() != b.elem_type() || a.shape() != b.shape()) {
    result.ok = false;
    result.reason = a.Describe() + " vs " + b.Describe();
    return result;
  }
  if (a.elem_type() == TensorProto::STRING) {
    const std::string* x = a.Data<std::string>();
    const std::string* y = b.Data<std::string>();
    for (std::int64_t i = 0; i < a.size(); ++i)
      if (x[i] != y[i]) {
        result.ok = false;
        result.reason = "strings differ at " + std::to_string(i);
        return result;
      }
    return result;
  }
  const std::vector<double> x = a.ToDoubleVector();
  const std::vector<double> y = b.ToDoubleVector();
  const bool exact = a.elem_type() != TensorProto::FLOAT && a.elem_type() != TensorProto::DOUBLE &&
                     a.elem_type() != TensorProto::FLOAT16 && a.elem_type() != TensorProto::BFLOAT16;
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == y[i] || (std::isnan(x[i]) && std::isnan(y[i]))) continue;
    const double diff = std::abs(x[i] - y[i]);
    result.max_abs_diff = std::isnan(diff) ? INFINITY : std::max(result.max_abs_diff, diff);
    if (exact || !(diff <= atol + rtol * std::abs(y[i]))) {
      if (bad++ == 0) first = static_cast<std::int64_t>(i);
    }
  }
  if (bad) {
    std::ostringstream out;
    out << bad << "/" << x.size() << " elements differ, first at " << first << ": " << x[static_cast<std::size_t>(first)]
        << " vs " << y[static_cast<std::size_t>(first)];
    result.ok = false;
    result.reason = out.str();
  }
  return result;
}

Comparison CompareValues(const core::eval::Value& a, const core::eval::Value& b, double atol, double rtol) {
  if (a.index() != b.index()) return {false, 0, "different kinds of value (tensor, sequence, absent optional)"};
  if (const auto* ta = std::get_if<Tensor>(&a)) return CompareTensors(*ta, std::get<Tensor>(b), atol, rtol);
  if (const auto* sa = std::get_if<core::eval::Sequence>(&a)) {
    const auto& sb = std::get<core::eval::Sequence>(b);
    if (sa->size() != sb.size())
      return {false, 0, "sequences of " + std::to_string(sa->size()) + " and " + std::to_string(sb.size()) + " tensors"};
    Comparison total;
    for (std::size_t i = 0; i < sa->size(); ++i) {
      Comparison one = CompareTensors((*sa)[i], sb[i], atol, rtol);
      total.max_abs_diff = std::max(total.max_abs_diff, one.max_abs_diff);
      if (!one.ok && total.ok) total = {false, total.max_abs_diff, "element " + std::to_string(i) + ": " + one.reason};
    }
    return total;
  }
  return {};
}

int RunVerify(std::vector<std::string> raw_args) {
  const std::vector<std::string> dim_specs = TakeRepeatedOption(raw_args, "--dim");
  Arguments args(raw_args, {"--seed", "--atol", "--rtol", "--float-range", "--int-max"}, {});
  const auto& models = args.Positional(2, 2);
  const RandomInputOptions options =
      ParseRandomInputOptions(dim_specs, args.Value("--seed"), args.Value("--float-range"), args.Value("--int-max"));
  const double atol = args.Value("--atol") ? ParseNonNegativeNumber(*args.Value("--atol"), "--atol") : 1e-4;
  const double rtol = args.Value("--rtol") ? ParseNonNegativeNumber(*args.Value("--rtol"), "--rtol") : 1e-3;

  std::vector<std::string> warnings;
  const ModelProto model_a = core::ir::LoadModel(models[0], {}, &warnings);
  const ModelProto model_b = core::ir::LoadModel(models[1], {}, &warnings);
  core::shapes::ValidateModel(model_a, models[0]);
  core::shapes::ValidateModel(model_b, models[1]);
  for (const auto& warning : warnings) std::cerr << "onnxopt verify: warning: " << warning << "\n";

  std::map<std::string, std::int64_t> symbols;
  const core::eval::ValueMap inputs_a = RandomInputs(model_a, options, &symbols);
  core::eval::ValueMap inputs_b;
  std::set<std::string> initializers_b;
  for (const auto& init : model_b.graph().initializer()) initializers_b.insert(init.name());
  for (const auto& input : model_b.graph().input()) {
    if (auto it = inputs_a.find(input.name()); it != inputs_a.end()) inputs_b.insert(*it);
    else if (!initializers_b.contains(input.name()))
      throw ModelError("input '" + input.name() + "' of " + models[1] + " is not an input of " + models[0]);
  }
  if (!symbols.empty()) {
    std::cout << "symbolic dims:";
    for (const auto& [name, value] : symbols) std::cout << " " << name << "=" << value;
    std::cout << "\n";
  }

  auto run = [](const ModelProto& model, const core::eval::ValueMap& inputs, const std::string& path) {
    try {
      return core::eval::Run(model, inputs);
    } catch (const ModelError& error) {
      throw ModelError(path + ": " + error.what());
    }
  };
  const core::eval::ValueMap out_a = run(model_a, inputs_a, models[0]);
  const core::eval::ValueMap out_b = run(model_b, inputs_b, models[1]);

  bool all_ok = true;
  std::set<std::string> names_b;
  for (const auto& output : model_b.graph().output()) names_b.insert(output.name());
  for (const auto& output : model_a.graph().output()) {
    if (!names_b.erase(output.name())) {
      std::cout << "MISMATCH " << output.name() << ": not an output of " << models[1] << "\n";
      all_ok = false;
      continue;
    }
    const Comparison result = CompareValues(out_a.at(output.name()), out_b.at(output.name()), atol, rtol);
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
  std::cout << (all_ok ? "EQUIVALENT" : "NOT EQUIVALENT") << " (seed " << options.seed << ", atol " << atol
            << ", rtol " << rtol << ")\n";
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
