// Stages, registration and replay across stages: T51-T53 of
// shared/docs/declarative-fusion.md §11.
#include <gtest/gtest.h>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/shapes/inference.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_core/fusion/test_rules.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using fusion::PassStage;


TEST(DeclarativeStages, T51_ShapesAreKnownAfterShapeInferenceOnly) {
  // AddZero's MeetRequirements needs the shapes of x and y.
  ExpectUnchanged(Shared(fusion::Compile(std::make_shared<AddZero>(), "AddZero", PassStage::kBeforeShapeInference)),
                  kAddZeroModel);
  ExpectRewritten(Shared(fusion::Compile(std::make_shared<AddZero>(), "AddZero", PassStage::kAfterShapeInference)),
                  kAddZeroModel, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) { u = Relu(a) })");
}

// T51, last sentence: Add(x, y) => Sub(x, Neg(y)) (equal bit for bit) adds a Neg with a new
// output and a Sub that takes y's name; after every stage both have their inferred shapes.
TEST(DeclarativeStages, T51_AddedNodesHaveInferredShapesAfterEveryStage) {
  onnx_shapes::RegisterShapeFunctions();
  for (PassStage stage : {PassStage::kBeforeShapeInference, PassStage::kAfterShapeInference,
                          PassStage::kAfterBuiltinPatterns, PassStage::kAfterOptimization}) {
    SCOPED_TRACE(std::string(fusion::PassStageName(stage)));
    const auto pass = std::make_shared<LambdaPass>(
        [] {
          PatternBuilder b("add");
          auto x = b.Input();
          auto y = b.Input();
          return std::vector<Pattern>{b.Build({b.Op("Add", {x, y})})};
        },
        [](const MatchResult&, ReplacementBuilder& rb) {
          return rb.Build({rb.Op("Sub", {rb.Input(0), rb.Op("Neg", {rb.Input(1)})})});
        });
    const Rules rules = Shared(fusion::Compile(pass, "AddToSubNeg", stage));
    core::builder::GraphBuilder builder{ParseText(R"(
      <ir_version: 8, opset_import: ["" : 17]>
      g (float[2,3] a, float[3] b) => (float[2,3] u) { y = Add(a, b)
 u = Relu(y) })")};
    core::builder::OptimizerOptions options;
    options.registered = core::builder::PatternSelection::None();
    core::builder::GraphGraph graph(builder, rules, options);
    const std::vector<core::builder::LocalRewriting> records = graph.Optimize();
    std::vector<std::string> shapes;
    for (const auto& record : records)
      if (record.Name() == "AddToSubNeg/add")
        for (const NodeProto& node : record.added_nodes) {
          const core::shapes::SymTensor* shape = builder.GetShape(node.output(0));
          shapes.push_back(node.op_type() + " " + (shape ? shape->ToString() : "unknown"));
        }
    EXPECT_EQ(shapes, (std::vector<std::string>{"Neg float[3]", "Sub float[2,3]"}));
  }
}

// A rule on Relu whose MeetRequirements logs its rule's name and rejects.
class LoggingRule final : public fusion::PatternFusionPass {
 public:
  explicit LoggingRule(std::shared_ptr<std::vector<std::string>> log) : log_(std::move(log)) {}
  std::vector<Pattern> Patterns() const override {
    PatternBuilder b("relu");
    return {b.Build({b.Op("Relu", {b.Input()})})};
  }
  bool MeetRequirements(const MatchResult& m, PassContext&) const override {
    log_->push_back(std::string(m.RuleName()));
    return false;
  }
  ReplacementGraph Replacement(const MatchResult&, ReplacementBuilder& rb, PassContext&) const override {
    return rb.Build({rb.Input(0)});
  }

 private:
  std::shared_ptr<std::vector<std::string>> log_;
};

TEST(DeclarativeStages, T52_OrderFollowsStagesThenPriorityThenName) {
  auto log = std::make_shared<std::vector<std::string>>();
  auto factory = [log] { return std::make_unique<LoggingRule>(log); };
  // Registered in an order unrelated to the expected one.
  fusion::RegisterFusionPass("T52_final", PassStage::kAfterOptimization, factory);
  fusion::RegisterFusionPass("T52_main_b", PassStage::kAfterShapeInference, factory);
  fusion::RegisterFusionPass("T52_after_patterns", PassStage::kAfterBuiltinPatterns, factory);
  fusion::RegisterFusionPass("T52_main_a", PassStage::kAfterShapeInference, factory);
  fusion::RegisterFusionPass("T52_before", PassStage::kBeforeShapeInference, factory);
  fusion::RegisterFusionPass("T52_before", PassStage::kBeforeShapeInference, factory);  // idempotent
  EXPECT_THROW(fusion::RegisterFusionPass("T52_before", PassStage::kBeforeShapeInference,
                                          [] { return std::make_unique<AddZero>(); }),
               fusion::PatternError);
  Rules rules;
  for (auto& pattern : fusion::CompileRegistered())
    if (pattern->Name().rfind("T52_", 0) == 0) rules.push_back(std::move(pattern));
  RunRules(rules, ParseText(R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3] a) => (float[3] y) { y = Relu(a) })"));
  EXPECT_EQ(*log, (std::vector<std::string>{"T52_before/relu", "T52_main_a/relu", "T52_main_b/relu",
                                             "T52_after_patterns/relu", "T52_final/relu"}));
}

// Neg(Neg(x)) => x, before shape inference.
Rules NegNegBeforeShapeInference() {
  return Shared(fusion::Compile(
      std::make_shared<LambdaPass>(
          [] {
            PatternBuilder b("neg_neg");
            return std::vector<Pattern>{b.Build({b.Op("Neg", {b.Op("Neg", {b.Input()})})})};
          },
          [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); }),
      "NegNeg", PassStage::kBeforeShapeInference));
}

TEST(DeclarativeStages, T53_ReplayAcrossStages) {
  // Neg(Neg(x)) => x before shape inference, MatMul + Add => Gemm after it.
  const Rules neg_neg = NegNegBeforeShapeInference();
  RuleRun run = ExpectRewritten(neg_neg + GemmRules(), R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[4,8] a, float[8,16] w, float[16] c) => (float[4,16] y) {
      n1 = Neg(a)
      n2 = Neg(n1)
      t = MatMul(n2, w)
      y = Add(t, c)
    })",
                                R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[4,8] a, float[8,16] w, float[16] c) => (float[4,16] y) { y = Gemm(a, w, c) })");
  std::size_t neg_batch = 0, gemm_batch = 0;
  for (const auto& record : run.records) {
    if (record.Name() == "NegNeg/neg_neg") neg_batch = record.iteration;
    if (record.Name() == "MatMulAddToGemm/matmul_add") gemm_batch = record.iteration;
  }
  EXPECT_LT(neg_batch, gemm_batch) << "the stages' batches are distinct";
}

// T21 at the first stage: a rule of kBeforeShapeInference reaches the graphs nested in If
// branches too, before any shape is inferred.
TEST(DeclarativeStages, T21_TheFirstStageRunsInNestedGraphs) {
  const Rules neg_neg = NegNegBeforeShapeInference();
  RuleRun run = ExpectRewritten(neg_neg, R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[3] a) => (float[3] y) {
      y = If(c) <then_branch = then_g () => (float[3] t) {
                   b = Abs(a)
                   n1 = Neg(b)
                   t = Neg(n1)
                 },
                 else_branch = else_g () => (float[3] e) { e = Relu(a) }>
    })",
                                R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (bool c, float[3] a) => (float[3] y) {
      y = If(c) <then_branch = then_g () => (float[3] t) { t = Abs(a) },
                 else_branch = else_g () => (float[3] e) { e = Relu(a) }>
    })");
  EXPECT_EQ(run.applied, 1u);
}

}  // namespace
}  // namespace onnxopt::testing
