// Comparing two models' outputs on random inputs (onnxopt verify, optimize --check).

#include "onnx_core/verify/model_comparison.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <optional>
#include <set>
#include <sstream>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/random_seed.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_core/verify/float64_reference.h"
#include "onnx_core/verify/random_outputs.h"

namespace onnxopt::core::verify {

namespace {

using eval::CompareValues;
using eval::Comparison;
using eval::IsFloatingPointType;
using eval::Tensor;
using eval::Tolerance;
using eval::ToleranceOf;
using eval::ToleranceOptions;

// The element types of the tensors in `value`.
void CollectElementTypes(const eval::Value& value, std::set<int>& types) {
  if (const auto* tensor = std::get_if<Tensor>(&value)) types.insert(tensor->elem_type());
  if (const auto* sequence = std::get_if<eval::Sequence>(&value))
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

// The inputs both models need (not initializers), as graph inputs of an otherwise empty
// model: MODEL_A's in its order, then those only MODEL_B needs.
ModelProto NeededInputs(const ModelProto& model_a, const ModelProto& model_b) {
  ModelProto needed;  // RandomInputs reads the graph inputs only
  std::set<std::string> names;
  for (const ModelProto* model : {&model_a, &model_b}) {
    std::set<std::string> initializers;
    for (const auto& init : model->graph().initializer()) initializers.insert(init.name());
    for (const auto& input : model->graph().input())
      if (!initializers.contains(input.name()) && names.insert(input.name()).second)
        *needed.mutable_graph()->add_input() = input;
  }
  return needed;
}

// The inputs both models need, drawn once (each model then receives those it declares),
// after a line giving the symbolic dimensions' values.
eval::ValueMap DrawInputs(const ModelProto& model_a, const ModelProto& model_b, const RandomInputOptions& options,
                          std::ostream& out) {
  std::map<std::string, std::int64_t> symbols;
  eval::ValueMap drawn = RandomInputs(NeededInputs(model_a, model_b), options, &symbols);
  if (!symbols.empty()) {
    out << "symbolic dims:";
    for (const auto& [name, value] : symbols) out << " " << name << "=" << value;
    out << "\n";
  }
  return drawn;
}

eval::ValueMap InputsOf(const ModelProto& model, const eval::ValueMap& drawn) {
  eval::ValueMap inputs;
  for (const auto& input : model.graph().input())
    if (auto it = drawn.find(input.name()); it != drawn.end()) inputs.insert(*it);
  return inputs;
}

// Runs `model` on the inputs of `drawn` it declares. Both models draw from one evaluation
// seed: random nodes they share draw alike.
eval::ValueMap RunOn(const ModelProto& model, const eval::ValueMap& drawn, std::uint32_t seed) {
  eval::SetEvaluationSeed(seed);
  return eval::Run(model, InputsOf(model, drawn));
}

// One draw of inputs and what each model computed from it.
struct Round {
  eval::ValueMap drawn;
  eval::ValueMap out_a;
  eval::ValueMap out_b;
};

// Compares the outputs of a round by name, prints one line per output and the verdict,
// and returns whether every comparable output matches (CompareOnRandomInputs).
bool CompareOutputs(const ModelProto& model_a, const std::string& name_a, const ModelProto& model_b,
                    const std::string& name_b, const Round& round, const RandomInputOptions& options,
                    const ToleranceOptions& tolerances, std::ostream& out, Rounding rounding) {
  // Output -> why it cannot be compared.
  std::map<std::string, std::string> random;
  for (const auto& [output, node] : OutputsOfUnsharedRandomNodes(model_a, model_b))
    random.emplace(output, node + ", which only " + name_a + " has");
  for (const auto& [output, node] : OutputsOfUnsharedRandomNodes(model_b, model_a))
    random.emplace(output, node + ", which only " + name_b + " has");

  // The float64 evaluation of model_a (float64_reference.h), made when an output differs.
  std::optional<eval::ValueMap> exact;
  std::string no_exact;
  auto exact_outputs = [&]() -> const eval::ValueMap* {
    if (exact || !no_exact.empty()) return exact ? &*exact : nullptr;
    if (std::optional<ModelProto> promoted = PromoteToFloat64(model_a, &no_exact)) {
      eval::SetEvaluationSeed(options.seed);
      try {
        exact = eval::Run(*promoted, ToFloat64(InputsOf(model_a, round.drawn)));
      } catch (const Error& error) {
        no_exact = std::string("it does not run: ") + error.what();
      }
    }
    return exact ? &*exact : nullptr;
  };

  bool all_ok = true;
  std::size_t compared = 0, not_comparable = 0, within_rounding = 0;
  std::set<int> types;
  std::set<std::string> names_b;
  for (const auto& output : model_b.graph().output()) names_b.insert(output.name());
  for (const auto& output : model_a.graph().output()) {
    if (!names_b.erase(output.name())) {
      out << "MISMATCH " << output.name() << ": not an output of " << name_b << "\n";
      all_ok = false;
      continue;
    }
    if (auto it = random.find(output.name()); it != random.end()) {
      out << "not comparable " << output.name() << " (depends on random " << it->second << ")\n";
      ++not_comparable;
      continue;
    }
    const eval::Value& a = round.out_a.at(output.name());
    const eval::Value& b = round.out_b.at(output.name());
    CollectElementTypes(a, types);
    const Comparison result = CompareValues(a, b, tolerances);
    ++compared;
    std::optional<RoundingVerdict> verdict;
    if (!result.ok && rounding == Rounding::kJudgeAgainstFloat64)
      if (const eval::ValueMap* reference = exact_outputs())
        if (auto it = reference->find(output.name()); it != reference->end())
          verdict = AsAccurateAs(b, a, it->second, tolerances);
    const bool rounded = verdict && verdict->as_accurate;
    out << (result.ok ? "ok       " : rounded ? "rounding " : "MISMATCH ") << output.name();
    if (result.elements_compared) out << " max_abs_diff=" << std::setprecision(4) << result.max_abs_diff;
    if (!result.ok) out << " (" << result.reason << ")";
    out << "\n";
    if (verdict && verdict->original_error && verdict->candidate_error)
      out << "         against the float64 evaluation of " << name_a << ", in tolerances (largest, root mean square): "
          << name_a << " " << verdict->original_error->largest << ", " << verdict->original_error->rms << "; "
          << name_b << " " << verdict->candidate_error->largest << ", " << verdict->candidate_error->rms
          << (rounded ? ": as accurate" : ": less accurate") << "\n";
    else if (!result.ok && rounding == Rounding::kJudgeAgainstFloat64 && !no_exact.empty())
      out << "         no float64 evaluation of " << name_a << " to judge rounding: " << no_exact << "\n";
    within_rounding += rounded ? 1 : 0;
    all_ok = all_ok && (result.ok || rounded);
  }
  for (const auto& name : names_b) {
    out << "MISMATCH " << name << ": not an output of " << name_a << "\n";
    all_ok = false;
  }
  const std::string tolerance_text = ToleranceText(types, tolerances);
  out << (all_ok ? "EQUIVALENT" : "NOT EQUIVALENT") << " (seed " << options.seed
            << (tolerance_text.empty() ? "" : ", " + tolerance_text) << ")\n";
  if (within_rounding > 0)
    out << "within rounding: " << within_rounding
        << (within_rounding == 1 ? " output differs" : " outputs differ")
        << " beyond the tolerances, but no farther from the float64 evaluation of " << name_a << " than "
        << name_a << "'s own: rounding the model amplifies\n";
  if (not_comparable > 0)
    out << "not compared: " << not_comparable << " of " << not_comparable + compared
              << " common outputs depend on random nodes that only one model has; the verdict covers the other "
              << compared << "\n";
  return all_ok;
}

// "a, b and c".
std::string JoinNames(const std::vector<std::string>& names, const std::string& suffix = "") {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i] + suffix;
  return text;
}

}  // namespace

bool CompareOnRandomInputs(const ModelProto& model_a, const std::string& name_a, const ModelProto& model_b,
                           const std::string& name_b, const RandomInputOptions& options,
                           const ToleranceOptions& tolerances, std::ostream& out, Rounding rounding) {
  Round round;
  round.drawn = DrawInputs(model_a, model_b, options, out);
  auto run = [&](const ModelProto& model, const std::string& name) {
    try {
      return RunOn(model, round.drawn, options.seed);
    } catch (const ModelError& error) {
      throw ModelError(name + ": " + error.what());
    }
  };
  round.out_a = run(model_a, name_a);
  round.out_b = run(model_b, name_b);
  return CompareOutputs(model_a, name_a, model_b, name_b, round, options, tolerances, out, rounding);
}

EmptyDimensionRounds PlanEmptyDimensionRounds(const ModelProto& model_a, const ModelProto& model_b,
                                              const RandomInputOptions& options, std::size_t max_rounds) {
  const ModelProto needed = NeededInputs(model_a, model_b);
  std::set<std::string> names;
  for (const auto& input : needed.graph().input())
    for (const auto& dim : input.type().tensor_type().shape().dim())
      if (dim.has_dim_param() && !dim.dim_param().empty() && !options.dims.contains(dim.dim_param()))
        names.insert(dim.dim_param());
  EmptyDimensionRounds rounds;
  for (const std::string& name : names) (rounds.dims.size() < max_rounds ? rounds.dims : rounds.left_out).push_back(name);
  return rounds;
}

bool CompareWithEmptyDimensions(EmptyDimensionRounds& rounds, const ModelProto& model_a, const std::string& name_a,
                                const ModelProto& model_b, const std::string& name_b,
                                const RandomInputOptions& options, const ToleranceOptions& tolerances,
                                std::ostream& out, Rounding rounding) {
  for (const std::string& dim : rounds.dims) {
    RandomInputOptions empty = options;
    empty.dims[dim] = 0;
    out << "empty-dimension set " << dim << " = 0:\n";
    Round round;
    round.drawn = DrawInputs(model_a, model_b, empty, out);
    try {
      round.out_a = RunOn(model_a, round.drawn, options.seed);
    } catch (const ModelError& error) {
      out << "skipped: " << name_a << " does not run with " << dim << " = 0: " << error.what() << "\n";
      rounds.skipped.push_back(dim);
      continue;
    }
    try {
      round.out_b = RunOn(model_b, round.drawn, options.seed);
    } catch (const ModelError& error) {
      out << "FAILS " << name_b << " with " << dim << " = 0, where " << name_a << " runs: " << error.what() << "\n";
      rounds.failed = dim;
      rounds.failed_to_run = error.what();
      return false;
    }
    if (!CompareOutputs(model_a, name_a, model_b, name_b, round, options, tolerances, out, rounding)) {
      rounds.failed = dim;
      return false;
    }
  }
  return true;
}

std::string DescribeEmptyDimensionFailure(const EmptyDimensionRounds& rounds, const std::string& name_a,
                                          const std::string& name_b) {
  const std::string with = " with " + rounds.failed + " = 0";
  if (!rounds.failed_to_run.empty()) return name_b + " fails to run" + with + ", where " + name_a + " runs";
  return name_b + "'s outputs differ from " + name_a + "'s" + with;
}

std::string DescribeEmptyDimensionRounds(const EmptyDimensionRounds& rounds, const std::string& reference) {
  if (rounds.dims.empty()) return {};
  std::string text = rounds.skipped.empty() ? std::to_string(rounds.dims.size())
                                            : std::to_string(rounds.counted()) + " of " + std::to_string(rounds.dims.size());
  text += rounds.dims.size() == 1 ? " empty-dimension set" : " empty-dimension sets";
  std::string notes;
  if (!rounds.skipped.empty())
    notes = JoinNames(rounds.skipped, "=0") + (rounds.skipped.size() == 1 ? " does" : " do") + " not run in " +
            reference;
  if (!rounds.left_out.empty())
    notes += (notes.empty() ? "" : "; ") + std::string("at most ") + std::to_string(rounds.dims.size()) +
             " symbolic dims are tried: " + JoinNames(rounds.left_out) +
             (rounds.left_out.size() == 1 ? " was" : " were") + " left out";
  return notes.empty() ? text : text + " (" + notes + ")";
}

}  // namespace onnxopt::core::verify
