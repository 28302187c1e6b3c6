#pragma once
// Fixtures of the declarative-rule tests (T01-T60 of shared/docs/declarative-fusion.md §11).
// Graphs are ONNX text; comparisons use the pattern tests' CanonicalGraph.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/fusion/fusion_pass.h"
#include "onnx_core/ir/onnx_pb.h"
#include "onnx_core/optimizer/local_rewriting.h"
#include "onnx_core/optimizer/report.h"

namespace onnxopt::testing {

using Rules = std::vector<std::shared_ptr<const core::builder::PatternOptimization>>;

// The compiled patterns of one or more passes, as the driver takes them.
Rules Shared(fusion::PatternList compiled);
Rules operator+(Rules a, const Rules& b);

struct RuleRun {
  ModelProto model;
  std::vector<core::builder::LocalRewriting> records;
  std::size_t applied = 0;  // records of the rules (not cleanup)
  core::builder::OptimizationReport report;
  // How often `reason` was given by the rule named `rule` (exact reason text).
  std::size_t NoMatches(std::string_view rule, std::string_view reason) const;
  // Every reason `rule` gave, for failure messages.
  std::string Reasons(std::string_view rule) const;
};

// Optimizes `model` with `rules` alone (no registered pattern), collecting NoMatch reasons.
RuleRun RunRules(const Rules& rules, const ModelProto& model);

// Whether `rule` matches (topologically, MeetRequirements included) at the node producing
// `node_output` of `model`, without the cleanup the driver runs first (which merges
// duplicate nodes and removes Identity nodes); the reason when it does not.
struct DirectMatch {
  bool matched = false;
  std::string reason;
};
DirectMatch MatchAt(const std::shared_ptr<const core::builder::PatternOptimization>& rule, std::string_view model,
                    std::string_view node_output);

// The nodes `rule` emits for its match at the node producing `node_output` (Match, then
// Apply, as the driver calls them); fails the test when it does not match.
std::vector<NodeProto> ApplyAt(const std::shared_ptr<const core::builder::PatternOptimization>& rule,
                               const ModelProto& model, std::string_view node_output);

// `text` parsed, with every node input named `placeholder` made "" (the text syntax has
// no way to write an empty input).
ModelProto ParseWithEmptyInputs(std::string_view text, std::string_view placeholder = "EMPTY");

// The rules rewrite `before` into exactly `after` (CanonicalGraph), and
//  - Replay of the records on `before` reproduces the optimized graph as a protobuf;
//  - the optimized model passes the ONNX checker;
//  - onnxruntime gives the same outputs for both (tests/ort/compare_models.js);
//  - optimizing the result again applies no rule (T32).
// Returns the run for further checks.
RuleRun ExpectRewritten(const Rules& rules, std::string_view before, std::string_view after);
RuleRun ExpectRewritten(const Rules& rules, const ModelProto& before, std::string_view after);

// The rules apply nothing, and the model is what the optimizer without rules makes of it.
RuleRun ExpectUnchanged(const Rules& rules, std::string_view model);

}  // namespace onnxopt::testing
