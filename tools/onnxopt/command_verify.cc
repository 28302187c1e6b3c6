// `onnxopt verify MODEL_A MODEL_B`: runs both models with the reference evaluator on the
// same seeded random inputs, with the same evaluation seed, and compares their outputs
// (symmetrically: the verdict does not depend on the order of the models, except with
// --judge-rounding and --empty-dims, which take MODEL_A as the original).

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
#include "onnx_core/verify/model_comparison.h"

namespace onnxopt::cli {

namespace {


constexpr const char* kUsageLine =
    "onnxopt verify MODEL_A MODEL_B [--seed S] [--dim NAME=VALUE ...] [--atol A] [--rtol R] [--judge-rounding] "
    "[--empty-dims]";

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

With --judge-rounding (MODEL_B is MODEL_A rewritten, as `onnxopt optimize --check`
compares them), an output beyond the tolerances still matches when MODEL_B's is about as
close to a float64 evaluation of MODEL_A as MODEL_A's: rewrites that reorder float
rounding, which the model amplifies (float16 sums over many terms). The line of such an
output starts with "rounding" and gives both errors, in tolerances.

With --empty-dims, when the outputs match, the models are compared again on one
empty-dimension set per symbolic dimension of the inputs (by name, at most 8; not those
--dim gives): that dimension 0, the others as --dim gives them (else 2), the same seed.
Rewrites can hold for every positive size and not for 0 (an empty batch, a decoder's
first token with no past): a -1 in a Reshape target beside a dimension that is 0 at run
time cannot be resolved. MODEL_A is the reference there (the original, MODEL_B its
rewrite): a set with which MODEL_A does not run is skipped, and the verdict says so;
MODEL_B failing to run where MODEL_A runs is a difference.

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
  --judge-rounding    judge outputs beyond the tolerances against a float64 evaluation
                      of MODEL_A (above)
  --empty-dims        also compare with each symbolic dimension 0 in turn (above)

exit codes: 0 every comparable output matches, 5 the outputs differ, 1 usage error,
2 a model is invalid or fails to run (missing kernel, kernel failure), 3 internal error.

examples:
  onnxopt verify model.onnx model.opt.onnx
  onnxopt verify model.onnx model.opt.onnx --judge-rounding   # float16 model, rounding rewrites
  onnxopt verify a.onnx b.onnx --seed 3 --dim batch=1 --atol 1e-5 --rtol 0
  onnxopt verify model.onnx model.opt.onnx --empty-dims       # also batch=0, past=0, ...
)";


int RunVerify(std::vector<std::string> raw_args) {
  const std::vector<std::string> dim_specs = TakeRepeatedOption(raw_args, "--dim");
  Arguments args(raw_args, {"--seed", "--atol", "--rtol", "--float-range", "--int-max"},
                 {"--judge-rounding", "--empty-dims"});
  const auto& models = args.Positional(2, 2);
  const RandomInputOptions options =
      ParseRandomInputOptions(dim_specs, args.Value("--seed"), args.Value("--float-range"), args.Value("--int-max"));
  core::eval::ToleranceOptions tolerances;
  if (auto atol = args.Value("--atol")) tolerances.atol = ParseNonNegativeNumber(*atol, "--atol");
  if (auto rtol = args.Value("--rtol")) tolerances.rtol = ParseNonNegativeNumber(*rtol, "--rtol");

  std::vector<std::string> warnings;
  const ModelProto model_a = core::ir::LoadModel(models[0], {}, &warnings);
  const ModelProto model_b = core::ir::LoadModel(models[1], {}, &warnings);
  core::shapes::ValidateModel(model_a, models[0]);
  core::shapes::ValidateModel(model_b, models[1]);
  for (const auto& warning : warnings) std::cerr << "onnxopt verify: warning: " << warning << "\n";

  const core::verify::Rounding rounding = args.Flag("--judge-rounding") ? core::verify::Rounding::kJudgeAgainstFloat64
                                                                         : core::verify::Rounding::kTolerancesOnly;
  if (!CompareOnRandomInputs(model_a, models[0], model_b, models[1], options, tolerances, std::cout, rounding))
    return kMismatch;
  if (!args.Flag("--empty-dims")) return kOk;
  core::verify::EmptyDimensionRounds rounds = core::verify::PlanEmptyDimensionRounds(model_a, model_b, options);
  if (rounds.dims.empty()) {
    std::cout << "empty dims: no symbolic input dimension to set to 0\n";
    return kOk;
  }
  if (!core::verify::CompareWithEmptyDimensions(rounds, model_a, models[0], model_b, models[1], options, tolerances,
                                                std::cout, rounding)) {
    std::cout << "empty dims: NOT EQUIVALENT with " << rounds.failed << " = 0"
              << (rounds.failed_to_run.empty() ? "" : " (" + models[1] + " fails to run where " + models[0] + " runs)")
              << "\n";
    return kMismatch;
  }
  std::cout << "empty dims: EQUIVALENT on " << core::verify::DescribeEmptyDimensionRounds(rounds, models[0]) << "\n";
  return kOk;
}

}  // namespace

Command VerifyCommand() {
  return {"verify", "check that two models compute the same outputs", kHelp,
          [](const std::vector<std::string>& args) {
            return RunReportingErrors("verify", kUsageLine, [&] { return RunVerify(args); });
          }};
}

}  // namespace onnxopt::cli
