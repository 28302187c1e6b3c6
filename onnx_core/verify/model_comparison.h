#pragma once
// Comparing two models' outputs on random inputs: the core of `onnxopt verify`, also run
// by `onnxopt optimize --check` and onnxopt.optimize(check=N) in Python.

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "onnx_core/eval/value_comparison.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/verify/random_inputs.h"

namespace onnxopt::core::verify {

// Runs both models with the reference evaluator on one draw of random inputs
// (options.seed; the inputs either model needs, each model receiving those it declares)
// and one evaluation seed, compares the outputs by name (onnxopt verify --help gives the
// rules), prints one line per output and the verdict to `out`, and returns whether every
// comparable output matches. `name_a` and `name_b` name the models in messages. A model
// that fails to run throws ModelError naming it.
//
// With Rounding::kJudgeAgainstFloat64 (model_b is model_a rewritten), an output that
// differs beyond the tolerances still matches when model_b's is as accurate as model_a's
// against a float64 evaluation of model_a (float64_reference.h: rewrites that reorder
// float rounding, amplified by the model); the line says so, with both errors.
enum class Rounding { kTolerancesOnly, kJudgeAgainstFloat64 };
bool CompareOnRandomInputs(const ModelProto& model_a, const std::string& name_a, const ModelProto& model_b,
                           const std::string& name_b, const RandomInputOptions& options,
                           const eval::ToleranceOptions& tolerances, std::ostream& out,
                           Rounding rounding = Rounding::kTolerancesOnly);

// Empty-dimension rounds: one comparison per symbolic dimension of the inputs, with that
// dimension 0 (an empty batch, `past_sequence_length = 0` on a decoder's first token) and
// the others as `options` gives them, seed options.seed. They find rewrites that hold for
// every positive size but not for 0, such as a -1 written into a Reshape target beside a
// dimension that is 0 at run time, which random inputs with every dimension 2 never see.
// model_a is the reference (the original): a round counts only where model_a runs.
inline constexpr std::size_t kMaxEmptyDimensionRounds = 8;

struct EmptyDimensionRounds {
  std::vector<std::string> dims;      // the dimensions to set to 0, one round each, sorted
  std::vector<std::string> left_out;  // beyond the cap: not tried
  std::vector<std::string> skipped;   // model_a does not run with this dimension 0
  std::string failed;                 // the round that differs (the rounds stop there); empty if none
  std::string failed_to_run;          // in that round, model_b's error when model_b fails to run

  std::size_t counted() const { return dims.size() - skipped.size(); }
};

// The rounds to make: the symbolic dimension names (dim_param) of the graph inputs either
// model needs, sorted by name, but those `options.dims` fixes; past `max_rounds`, the
// names are left out.
EmptyDimensionRounds PlanEmptyDimensionRounds(const ModelProto& model_a, const ModelProto& model_b,
                                              const RandomInputOptions& options,
                                              std::size_t max_rounds = kMaxEmptyDimensionRounds);

// Makes the rounds of `rounds.dims` in order, filling `skipped` (model_a throws
// ModelError: that round is skipped, the line says why) and `failed` (model_b differs or
// throws ModelError where model_a runs; the rounds stop). Prints each round as
// CompareOnRandomInputs does, after a line naming the dimension. Returns whether no round
// failed.
bool CompareWithEmptyDimensions(EmptyDimensionRounds& rounds, const ModelProto& model_a, const std::string& name_a,
                                const ModelProto& model_b, const std::string& name_b,
                                const RandomInputOptions& options, const eval::ToleranceOptions& tolerances,
                                std::ostream& out, Rounding rounding = Rounding::kTolerancesOnly);

// "2 of 3 empty-dimension sets (batch=0 does not run in the original)", for the verdicts of
// passed rounds: how many counted, which were skipped (`reference` names model_a) and which
// names were left out. Empty when there were no rounds to make.
std::string DescribeEmptyDimensionRounds(const EmptyDimensionRounds& rounds, const std::string& reference);

// The round that failed, for a verdict: "the optimized model's outputs differ from the
// original's with batch = 0", or "the optimized model fails to run with batch = 0, where the
// original runs" (`name_a` "the original", `name_b` "the optimized model").
std::string DescribeEmptyDimensionFailure(const EmptyDimensionRounds& rounds, const std::string& name_a,
                                          const std::string& name_b);

}  // namespace onnxopt::core::verify
