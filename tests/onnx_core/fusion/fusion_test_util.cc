#include "tests/onnx_core/fusion/fusion_test_util.h"

#include <gtest/gtest.h>
#include <onnx/checker.h>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/pattern_alternatives.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {

using core::builder::GraphBuilder;
using core::builder::GraphGraph;
using core::builder::OptimizerOptions;
using core::builder::PatternSelection;

namespace {

void ExpectSameOnOnnxruntime(const ModelProto& before, const ModelProto& after) {
  TempDir dir;
  WriteFile(dir / "before.onnx", before.SerializeAsString());
  WriteFile(dir / "after.onnx", after.SerializeAsString());
  const CommandResult run =
      RunCommand({"/usr/bin/env", "node", (SourceDir() / "tests/ort/compare_models.js").string(),
                  (dir / "before.onnx").string(), (dir / "after.onnx").string()},
                 CommandLimits{120, 0});
  EXPECT_EQ(run.exit_code, 0) << "onnxruntime outputs differ:\n" << run.output;
}

}  // namespace

Rules Shared(fusion::PatternList compiled) {
  Rules rules;
  for (auto& pattern : compiled) rules.push_back(std::move(pattern));
  return rules;
}

Rules operator+(Rules a, const Rules& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::size_t RuleRun::NoMatches(std::string_view rule, std::string_view reason) const {
  std::size_t count = 0;
  for (const auto& entry : report.no_matches)
    if (entry.pattern == rule && entry.reason == reason) count += entry.count;
  return count;
}

std::string RuleRun::Reasons(std::string_view rule) const {
  std::string text;
  for (const auto& entry : report.no_matches)
    if (entry.pattern == rule) text += entry.reason + " x" + std::to_string(entry.count) + "\n";
  return text;
}

RuleRun RunRules(const Rules& rules, const ModelProto& model) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  GraphBuilder builder{ModelProto(model)};
  OptimizerOptions options;
  options.registered = PatternSelection::None();
  options.collect_no_match = true;
  GraphGraph graph(builder, rules, options);
  RuleRun run;
  run.records = graph.Optimize(-1, &run.report);
  // A group's records name the alternative that matched (fusion::DeclarativePatternGroup).
  auto made_by = [](const core::builder::LocalRewriting& record, const core::builder::PatternOptimization& rule) {
    if (record.pattern.get() == &rule) return true;
    const auto* group = dynamic_cast<const core::builder::PatternAlternatives*>(&rule);
    return group && group->FindAlternative(*record.pattern);
  };
  for (const auto& record : run.records)
    for (const auto& rule : rules)
      if (made_by(record, *rule)) ++run.applied;
  run.model = std::move(builder).TakeModel();
  return run;
}

namespace {

// Calls `use(graph, node)` with a GraphGraph over `model` (shapes inferred) holding `rule`
// alone, and the node producing `node_output`.
template <class Use>
auto WithRuleAt(const std::shared_ptr<const core::builder::PatternOptimization>& rule, ModelProto model,
                std::string_view node_output, Use use) {
  onnx_shapes::RegisterShapeFunctions();
  GraphBuilder builder{std::move(model)};
  builder.InferShapes();
  OptimizerOptions options;
  options.registered = PatternSelection::None();
  GraphGraph graph(builder, {rule}, options);
  const NodeProto* node = graph.NodeBefore(node_output);
  if (!node) throw std::runtime_error("no node produces '" + std::string(node_output) + "'");
  return use(graph, *node);
}

}  // namespace

DirectMatch MatchAt(const std::shared_ptr<const core::builder::PatternOptimization>& rule, std::string_view model,
                    std::string_view node_output) {
  return WithRuleAt(rule, ParseWithEmptyInputs(model), node_output, [&](GraphGraph& graph, const NodeProto& node) {
    const core::builder::MatchResult match = rule->Match(graph, node);
    return DirectMatch{static_cast<bool>(match), std::string(match.no_match.reason)};
  });
}

std::vector<NodeProto> ApplyAt(const std::shared_ptr<const core::builder::PatternOptimization>& rule,
                               const ModelProto& model, std::string_view node_output) {
  return WithRuleAt(rule, model, node_output, [&](GraphGraph& graph, const NodeProto& node) {
    const core::builder::MatchResult match = rule->Match(graph, node);
    EXPECT_TRUE(match) << match.ToString();
    if (!match) return std::vector<NodeProto>{};
    const utils::RepeatedProtoField<NodeProto> emitted = rule->Apply(graph, match.nodes);
    return std::vector<NodeProto>(emitted.begin(), emitted.end());
  });
}

ModelProto ParseWithEmptyInputs(std::string_view text, std::string_view placeholder) {
  ModelProto model = ParseText(text);
  for (NodeProto& node : *model.mutable_graph()->mutable_node())
    for (std::string& input : *node.mutable_input())
      if (input == placeholder) input.clear();
  return model;
}

RuleRun ExpectRewritten(const Rules& rules, std::string_view before, std::string_view after) {
  return ExpectRewritten(rules, ParseText(before), after);
}

RuleRun ExpectRewritten(const Rules& rules, const ModelProto& original, std::string_view after) {
  const ModelProto expected = ParseText(after);
  RuleRun run = RunRules(rules, original);
  EXPECT_GT(run.applied, 0u) << "no rule fired";
  EXPECT_EQ(CanonicalGraph(run.model.graph()), CanonicalGraph(expected.graph()));
  const GraphProto replayed = core::builder::Replay(original, run.records);
  EXPECT_EQ(core::ir::SerializeDeterministic(replayed), core::ir::SerializeDeterministic(run.model.graph()))
      << "Replay does not reproduce the optimized graph";
  // onnx 1.12's checker knows the operators up to opset 17.
  bool checkable = true;
  for (const auto& opset : run.model.opset_import()) checkable &= opset.version() <= 17;
  if (checkable) {
    EXPECT_NO_THROW(onnx::checker::check_model(run.model));
  }
  EXPECT_EQ(RunRules(rules, run.model).applied, 0u) << "a rule fires again on its own result";
  ExpectSameOnOnnxruntime(original, run.model);
  return run;
}

RuleRun ExpectUnchanged(const Rules& rules, std::string_view model) {
  const ModelProto original = ParseText(model);
  RuleRun run = RunRules(rules, original);
  EXPECT_EQ(run.applied, 0u) << "a rule fired";
  const RuleRun plain = RunRules({}, original);
  EXPECT_EQ(core::ir::SerializeDeterministic(run.model), core::ir::SerializeDeterministic(plain.model));
  return run;
}

}  // namespace onnxopt::testing
