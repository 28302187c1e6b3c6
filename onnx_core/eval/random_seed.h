#pragma once
// Seeds of the random-generator operators (RandomNormal, RandomUniform, their *Like forms,
// Bernoulli, Multinomial, training-mode Dropout, com.microsoft's dropouts).
//
// A node whose `seed` attribute is set draws from that seed, as the spec asks. A node
// without one draws from the evaluation seed combined with its name (RandomSeedName): one
// evaluation is reproducible, and two models evaluated with the same evaluation seed
// (`onnxopt verify` runs both sides with one) draw the same numbers in the nodes they share
// by name. Kernels build their own generator from the seed they get here.

#include <cstdint>
#include <string_view>

#include "onnx_core/eval/kernel_registry.h"

namespace onnxopt::core::eval {

// The evaluation seed, process-wide (default 0). `onnxopt run --seed` and `verify` set it.
void SetEvaluationSeed(std::uint64_t seed);
std::uint64_t EvaluationSeed();

// The name a node without a seed attribute draws from: the node's name, else its first
// output's. The node's name first: an optimizer keeps it where it renames the outputs
// (removing `y = Identity(d)` makes the Dropout compute `y`).
std::string_view RandomSeedName(const NodeProto& node);

// The seed for the node of `ctx`: its `seed` attribute (INT, or FLOAT as in RandomNormal,
// whose value's bits are used) when present, else a hash of the evaluation seed and
// RandomSeedName.
std::uint64_t NodeRandomSeed(const KernelContext& ctx);

}  // namespace onnxopt::core::eval
