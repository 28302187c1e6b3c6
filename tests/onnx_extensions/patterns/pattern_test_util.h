#pragma once
// The shared fixtures of pattern tests (STYLE.md section 5). Graphs are written in the
// ONNX text syntax and compared structurally: op types, domains, attributes, constants
// and topology must match; names the optimizer generates are ignored.

#include <memory>
#include <string>
#include <string_view>

#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::testing {

using PatternPtr = std::shared_ptr<const core::builder::PatternOptimization>;

// A canonical text of `graph`: values other than graph inputs and outputs are numbered in
// order of definition; node names and doc strings are left out. Equal texts mean the
// same computation written the same way.
std::string CanonicalGraph(const GraphProto& graph);

// Checks that both models give the same outputs on the same random inputs (symbolic
// dims set to 3): equal values for kExact (then `tolerance` must be 0), else within
// `tolerance`. Also used by graph-pass tests, which run their pass directly.
void ExpectSameOutputs(const ModelProto& before, const ModelProto& after, core::builder::NumericalClass numerics,
                       double tolerance = 0);

// Optimizes `before` with `pattern` alone and checks that
//  - the result is exactly `after` (CanonicalGraph), the pattern having been applied;
//  - Replay of the records on `before` gives the same graph;
//  - optimizing the result again applies the pattern no more (convergence);
//  - both graphs give the same outputs on random inputs (evaluator), as the pattern's
//    numerical class promises: an exact pattern gives equal values (IEEE equality, NaN
//    where NaN) and takes no tolerance; the others are compared within `tolerance`
//    (relative and absolute; 0 demands equal values on the inputs of the test).
// Symbolic input dims are set to 3.
void ExpectRewrite(const PatternPtr& pattern, core::builder::NumericalClass numerics, std::string_view before,
                   std::string_view after, double tolerance = 0);
// The same for a `before` model that the ONNX text cannot write (exact local functions,
// node domains, infinities).
void ExpectRewrite(const PatternPtr& pattern, core::builder::NumericalClass numerics, const ModelProto& before,
                   std::string_view after, double tolerance = 0);

// Checks that `pattern` rejects the node whose first output is `node_output` with
// exactly `reason`, and that optimizing `model` with it applies nothing.
void ExpectNoMatch(const PatternPtr& pattern, std::string_view model, std::string_view node_output,
                   std::string_view reason);
// The same for a model built or edited as a proto: one the ONNX text cannot write (an
// omitted input of a variadic list), or a text model at another opset.
void ExpectNoMatch(const PatternPtr& pattern, const ModelProto& model, std::string_view node_output,
                   std::string_view reason);

// How many matches `pattern` alone applies to `model` until nothing matches: patterns that
// merge a whole group at once must not take one iteration per member.
std::size_t ApplicationsUntilConvergence(const PatternPtr& pattern, std::string_view model);

// Checks that `pattern` rejects the node whose first output is `node_output` with exactly
// `reason` (it may match elsewhere in `model`).
void ExpectRejects(const PatternPtr& pattern, std::string_view model, std::string_view node_output,
                   std::string_view reason);
void ExpectRejects(const PatternPtr& pattern, const ModelProto& model, std::string_view node_output,
                   std::string_view reason);

template <class Pattern>
void ExpectRewrite(std::string_view before, std::string_view after, double tolerance = 0) {
  ExpectRewrite(std::make_shared<Pattern>(), Pattern::kNumerics, before, after, tolerance);
}

template <class Pattern>
void ExpectRewrite(const ModelProto& before, std::string_view after, double tolerance = 0) {
  ExpectRewrite(std::make_shared<Pattern>(), Pattern::kNumerics, before, after, tolerance);
}

template <class Pattern>
void ExpectNoMatch(std::string_view model, std::string_view node_output, std::string_view reason) {
  ExpectNoMatch(std::make_shared<Pattern>(), model, node_output, reason);
}

template <class Pattern>
void ExpectNoMatch(const ModelProto& model, std::string_view node_output, std::string_view reason) {
  ExpectNoMatch(std::make_shared<Pattern>(), model, node_output, reason);
}

}  // namespace onnxopt::testing
