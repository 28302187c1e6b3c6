#pragma once
// Declarative rules: PatternFusionPass (pattern graphs + MeetRequirements + Replacement)
// and DecomposePass (op types + MeetRequirements + Replacement), compiled into ordinary
// PatternOptimization objects, so that the engine's driver runs them with the built-in
// patterns: same priorities and batches, LocalRewriting records, exact Replay, reports.
// Spec: shared/docs/declarative-fusion.md §7.4 and §9; tutorial: docs/declarative-rules.md.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/fusion/matcher.h"
#include "onnx_core/fusion/pattern_graph.h"
#include "onnx_core/optimizer/pattern.h"
#include "onnx_core/optimizer/pattern_alternatives.h"

namespace onnxopt::core::builder {
class GraphGraph;
struct OptimizationReport;
}

namespace onnxopt::fusion {

// When a rule runs (declarative-fusion.md §7.5); each maps to an OptimizationStage.
enum class PassStage { kBeforeShapeInference, kAfterShapeInference, kAfterBuiltinPatterns, kAfterOptimization };
core::builder::OptimizationStage ToOptimizationStage(PassStage stage);
std::string_view PassStageName(PassStage stage);  // "BEFORE_SHAPE_INFERENCE", ...

// What a callback may ask besides the match; valid during one callback.
class PassContext {
 public:
  PassContext(core::builder::GraphGraph& graph, PassStage stage, std::string_view pass_name)
      : graph_(graph), stage_(stage), pass_name_(pass_name) {}
  // Shapes, types and constants of the graph being optimized.
  core::builder::GraphGraph& Graph() const { return graph_; }
  PassStage Stage() const { return stage_; }
  // The imported version of `domain` ("" and "ai.onnx" are one); 0 when not imported.
  std::int64_t Opset(std::string_view domain = "") const;
  std::string_view PassName() const { return pass_name_; }

 private:
  core::builder::GraphGraph& graph_;
  PassStage stage_;
  std::string_view pass_name_;
};

// The match as rules see it: the values and nodes the pattern bound. Valid during one
// callback (it points into the graph).
class MatchResult {
 public:
  MatchResult(const PatternMatcher& matcher, const Binding& binding, core::builder::GraphGraph& graph,
              std::string_view rule);
  std::string_view PatternName() const;
  const Pattern& GetPattern() const { return matcher_.GetPattern(); }
  std::string_view RuleName() const { return rule_; }
  // The node bound to the pattern node labelled `label`; throws std::out_of_range.
  const NodeProto& Node(std::string_view label) const;
  // The matched nodes (constants and placeholders are not nodes), in graph order.
  std::vector<const NodeProto*> MatchedNodes() const;
  const std::string& Input(std::size_t i) const;   // the value bound to placeholder i
  const std::string& Output(std::size_t j) const;  // the value bound to pattern output j
  const std::string& Captured(std::size_t i) const;  // throws std::out_of_range
  const std::string& Captured(std::string_view name) const;
  // The value of the graph constant bound to the pattern constant labelled `label`.
  const TensorProto& ConstantValue(std::string_view label) const;
  // The value bound to the pattern constant labelled `label` (its name).
  const std::string& ConstantName(std::string_view label) const;
  // "matmul_add: MatMul -> 'mm_0', Add -> 'y_0'".
  std::string ToString() const;

 private:
  const PatternMatcher& matcher_;
  const Binding& binding_;
  core::builder::GraphGraph& graph_;
  std::string_view rule_;
  mutable std::map<std::string, TensorProto, std::less<>> constants_;
};

// A replacement graph, built only by ReplacementBuilder.
class ReplacementGraph {
 public:
  const Sketch& Graph() const { return *sketch_; }
  const std::vector<int>& Outputs() const { return outputs_; }

 private:
  friend class ReplacementBuilder;
  ReplacementGraph(std::shared_ptr<const Sketch> sketch, std::vector<int> outputs)
      : sketch_(std::move(sketch)), outputs_(std::move(outputs)) {}
  std::shared_ptr<const Sketch> sketch_;
  std::vector<int> outputs_;
};

// Handed to Replacement(): its inputs mirror the match's boundary inputs (placeholders,
// or a decomposed node's input slots).
class ReplacementBuilder : public SketchBuilder {
 public:
  // `present[i]` tells whether input i has a value (a decomposed node's empty slot has not).
  ReplacementBuilder(std::string rule, std::vector<bool> present);
  std::size_t NumInputs() const { return inputs_.size(); }
  bool Present(std::size_t i) const { return i < present_.size() && present_[i]; }
  // Input i; it may stay unused. Throws BuilderError when i is not below NumInputs().
  ValueRef Input(std::size_t i) const;
  // A constant bound by the match (by its pattern label), reused as it is.
  ValueRef Existing(const MatchResult& match, std::string_view constant_label);
  // A replacement output may be an input (a passthrough).
  ReplacementGraph Build(std::vector<ValueRef> outputs);

 private:
  std::vector<ValueRef> inputs_;
  std::vector<bool> present_;
};

class PatternFusionPass {
 public:
  explicit PatternFusionPass(PatternMatcherConfig config = {}) : config_(config) {}
  virtual ~PatternFusionPass() = default;
  // Called once, when the pass is compiled.
  virtual std::vector<Pattern> Patterns() const = 0;
  // Must be pure: it may be called for a match the driver then skips (overlap).
  virtual bool MeetRequirements(const MatchResult&, PassContext&) const { return true; }
  virtual ReplacementGraph Replacement(const MatchResult& match, ReplacementBuilder& builder,
                                       PassContext& context) const = 0;
  const PatternMatcherConfig& Config() const { return config_; }

 private:
  PatternMatcherConfig config_;
};

class DecomposePass {
 public:
  explicit DecomposePass(std::vector<OpKey> op_types);
  virtual ~DecomposePass() = default;
  virtual bool MeetRequirements(const NodeProto&, PassContext&) const { return true; }
  // The builder's inputs are the node's input slots, positionally (an empty slot is
  // absent and writes "" when used); its outputs must be the node's outputs.
  virtual ReplacementGraph Replacement(const NodeProto& node, ReplacementBuilder& builder,
                                       PassContext& context) const = 0;
  const std::vector<OpKey>& OpTypes() const { return op_types_; }

 private:
  std::vector<OpKey> op_types_;
};

// What a rule's callbacks did and cost (T59), beyond the engine's per-pattern counters.
struct CallbackStats {
  std::size_t topological_matches = 0;     // MeetRequirements calls: matches that passed the boundary rules
  std::size_t boundary_rejections = 0;     // candidates rejected after the walk from the anchor (extension,
                                           // boundary, placement)
  std::size_t requirement_rejections = 0;  // MeetRequirements returned false
  std::size_t replacements = 0;            // Replacement calls
  std::int64_t callback_time_ns = 0;       // in MeetRequirements and Replacement
};

// What both adapters share: the name users select the rule by, its pass and its stage.
class CompiledRule : public core::builder::PatternOptimization {
 public:
  CompiledRule(std::string name, std::string pass_name, PassStage stage, int priority)
      : PatternOptimization(priority), name_(std::move(name)), pass_name_(std::move(pass_name)), stage_(stage) {}
  std::string Name() const final { return name_; }
  const std::string& PassName() const { return pass_name_; }
  core::builder::OptimizationStage Stage() const final { return ToOptimizationStage(stage_); }
  // Over every optimization the rule took part in, from any thread (the engine's report
  // has no room for them; ReportRules joins the two). Compile again for one run's figures.
  virtual CallbackStats Callbacks() const;

 protected:
  // Counts a callback and its time; `accepted` tells a MeetRequirements verdict.
  void CountRequirements(std::int64_t time_ns, bool accepted) const;
  void CountReplacement(std::int64_t time_ns) const;
  void CountBoundaryRejection() const;

  std::string name_;
  std::string pass_name_;
  PassStage stage_;

 private:
  mutable std::atomic<std::size_t> topological_matches_{0}, boundary_rejections_{0}, requirement_rejections_{0},
      replacements_{0};
  mutable std::atomic<std::int64_t> callback_time_ns_{0};
};

// One pattern of a PatternFusionPass, as an engine pattern named "<pass>/<pattern>".
class DeclarativePattern final : public CompiledRule {
 public:
  DeclarativePattern(std::shared_ptr<const PatternFusionPass> pass, std::string pass_name, Pattern pattern,
                     PassStage stage, int priority);
  std::set<std::string> FastOpType() const override;
  core::builder::MatchResult Match(core::builder::GraphGraph& graph, const NodeProto& candidate) const override;
  // Match, telling where a failed match stopped (kAfterWalk also for a MeetRequirements rejection).
  core::builder::MatchResult Match(core::builder::GraphGraph& graph, const NodeProto& candidate,
                                   MatchFailure& failure) const;
  utils::RepeatedProtoField<NodeProto> Apply(core::builder::GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
  const PatternMatcher& Matcher() const { return matcher_; }

 private:
  std::shared_ptr<const PatternFusionPass> pass_;
  PatternMatcher matcher_;
};

// The patterns of one pass that share an anchor operator, as one engine pattern named
// "<pass>/<pattern>|<pattern>...": Match tries them in the pass's order on each candidate
// (one driver call, one timer) and returns the first match, which names the alternative
// that made it: the driver records and applies that DeclarativePattern, so records keep
// its name ("<pass>/<pattern>"). A failed candidate reports the first alternative's reason.
class DeclarativePatternGroup final : public CompiledRule, public core::builder::PatternAlternatives {
 public:
  DeclarativePatternGroup(std::string pass_name, std::vector<std::shared_ptr<const DeclarativePattern>> alternatives,
                          PassStage stage, int priority);
  std::set<std::string> FastOpType() const override;
  core::builder::MatchResult Match(core::builder::GraphGraph& graph, const NodeProto& candidate) const override;
  // Never called by the driver (it applies the alternative); throws BuilderError.
  utils::RepeatedProtoField<NodeProto> Apply(core::builder::GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
  const std::shared_ptr<const core::builder::PatternOptimization>* FindAlternative(
      const core::builder::PatternOptimization& alternative) const override;
  CallbackStats Callbacks() const override;  // the alternatives' sums
  const std::vector<std::shared_ptr<const core::builder::PatternOptimization>>& Alternatives() const {
    return alternatives_;
  }

 private:
  std::vector<std::shared_ptr<const core::builder::PatternOptimization>> alternatives_;
  std::vector<const DeclarativePattern*> declarative_;  // the same objects, for direct calls
  // For each alternative, an earlier one with the same backward walk (SameWalk), or -1: when
  // that one's walk failed on a candidate, this one is not tried (CastCast's two patterns
  // differ only in their declared outputs).
  std::vector<int> walk_twin_;
};

// A DecomposePass as an engine pattern named after the pass.
class DecomposePatternOptimization final : public CompiledRule {
 public:
  DecomposePatternOptimization(std::shared_ptr<const DecomposePass> pass, std::string name, PassStage stage,
                               int priority);
  std::set<std::string> FastOpType() const override;
  core::builder::MatchResult Match(core::builder::GraphGraph& graph, const NodeProto& candidate) const override;
  utils::RepeatedProtoField<NodeProto> Apply(core::builder::GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;

 private:
  std::shared_ptr<const DecomposePass> pass_;
};

using PatternList = std::vector<std::unique_ptr<core::builder::PatternOptimization>>;

// The engine patterns of the pass (Patterns() is called here, once): one DeclarativePattern
// per Pattern whose anchor operator no other Pattern of the pass has, one
// DeclarativePatternGroup per anchor operator several share (at the first one's place).
PatternList Compile(std::shared_ptr<const PatternFusionPass> pass, std::string pass_name,
                    PassStage stage = PassStage::kAfterShapeInference, int priority = 1);
PatternList Compile(std::shared_ptr<const DecomposePass> pass, std::string pass_name,
                    PassStage stage = PassStage::kAfterShapeInference, int priority = 1);

// The names a compiled pattern appears under in reports and records: its own, and for a
// DeclarativePatternGroup those of its alternatives (the group counts the Match calls, the
// alternative that matched its records and applied rewrites).
std::vector<std::string> ReportedNames(const core::builder::PatternOptimization& compiled);

// One rule's line of the report (T59): the engine's counters of its compiled patterns
// (groups with their alternatives) and its callbacks'.
struct RuleReport {
  std::string pass;
  std::size_t candidates = 0;            // Match calls
  std::size_t topological_matches = 0;   // reached MeetRequirements
  std::size_t boundary_rejections = 0;
  std::size_t requirement_rejections = 0;
  std::size_t overlaps_skipped = 0;      // matched, not applied: claimed by another match, or protected
  std::size_t applied = 0;
  std::int64_t callback_time_ns = 0;
  std::map<std::string, std::size_t> reasons;  // NoMatch reasons (when the report collects them)
};
// By pass, in the order of `compiled`; patterns that are not compiled rules are left out.
std::vector<RuleReport> ReportRules(
    const core::builder::OptimizationReport& report,
    const std::vector<std::shared_ptr<const core::builder::PatternOptimization>>& compiled);

// --- Registration: explicit (no static registrars), idempotent ---------------------------
// Registering a name again with a factory of the same type is a no-op; another factory
// under a registered name throws PatternError.
using FusionPassFactory = std::function<std::unique_ptr<PatternFusionPass>()>;
using DecomposePassFactory = std::function<std::unique_ptr<DecomposePass>()>;
void RegisterFusionPass(std::string name, PassStage stage, FusionPassFactory factory, int priority = 1);
void RegisterDecomposePass(std::string name, PassStage stage, DecomposePassFactory factory, int priority = 1);
// The compiled patterns of the registered passes (of `stage` only, when given), ordered
// by stage, then priority, then pass name: the order the driver tries them in, whatever
// the order of registration.
PatternList CompileRegistered(std::optional<PassStage> stage = std::nullopt);
std::vector<std::string> RegisteredPassNames();

// The nodes that replace a match: `inputs[i]` is the value of replacement input i,
// `outputs[j]` the name replacement output j must keep. Throws BuilderError (naming
// `rule` and both counts) when the output counts differ.
utils::RepeatedProtoField<NodeProto> EmitReplacement(core::builder::GraphGraph& graph, std::string_view rule,
                                                     const ReplacementGraph& replacement,
                                                     const std::vector<std::string>& inputs,
                                                     const std::vector<std::string>& outputs);

}  // namespace onnxopt::fusion
