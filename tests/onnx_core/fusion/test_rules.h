#pragma once
// Rules of the §11 scenarios that several test files use.

#include <memory>
#include <string>

#include "onnx_core/fusion/fusion_pass.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "tests/onnx_core/fusion/fusion_test_util.h"

namespace onnxopt::testing {

using fusion::MatchResult;
using fusion::PassContext;
using fusion::Pattern;
using fusion::PatternBuilder;
using fusion::ReplacementBuilder;
using fusion::ReplacementGraph;

// T01: t = Add(a, Z) with Z = [0.]; u = Relu(t).
inline constexpr std::string_view kAddZeroModel = R"(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] a) => (float[2,3] u) <float[1] Z = {0.0}> {
      t = Add(a, Z)
      u = Relu(t)
    })";

// Same element type and the same known shape.
inline bool SameTypeAndShape(const core::builder::GraphGraph& graph, const std::string& a, const std::string& b) {
  const auto* shape_a = core::builder::KnownShape(graph, a);
  const auto* shape_b = core::builder::KnownShape(graph, b);
  return graph.GetType(a) != 0 && graph.GetType(a) == graph.GetType(b) && shape_a && shape_b && *shape_a == *shape_b;
}

// y = Add(x, C) with C all zeros (or Add(C, x) when `commuted`) => x.
class AddZero final : public fusion::PatternFusionPass {
 public:
  explicit AddZero(bool commuted = false, fusion::PatternMatcherConfig config = {})
      : PatternFusionPass(config), commuted_(commuted) {}
  std::vector<Pattern> Patterns() const override {
    PatternBuilder b(commuted_ ? "zero_add" : "add_zero");
    auto x = b.Input();
    auto zero = b.AnyConstant("zero");
    return {b.Build({commuted_ ? b.Op("Add", {zero, x}) : b.Op("Add", {x, zero})})};
  }
  bool MeetRequirements(const MatchResult& m, PassContext& ctx) const override {
    return core::builder::AllElementsEqual(m.ConstantValue("zero"), 0.0) &&
           SameTypeAndShape(ctx.Graph(), m.Input(0), m.Output(0));
  }
  ReplacementGraph Replacement(const MatchResult&, ReplacementBuilder& rb, PassContext&) const override {
    return rb.Build({rb.Input(0)});
  }

 private:
  bool commuted_;
};

inline Rules AddZeroRules() { return Shared(fusion::Compile(std::make_shared<AddZero>(), "AddZero")); }
inline Rules ZeroAddRules() { return Shared(fusion::Compile(std::make_shared<AddZero>(true), "ZeroAdd")); }

// y = Add(MatMul(a, w), c) => Gemm(a, w, c) for 2-D a and w and a bias vector of N elements;
// with `declare_product`, the product is a second output (kept as a MatMul).
class MatMulAddToGemm final : public fusion::PatternFusionPass {
 public:
  explicit MatMulAddToGemm(bool declare_product = false) : declare_product_(declare_product) {}
  std::vector<Pattern> Patterns() const override {
    PatternBuilder b("matmul_add");
    auto a = b.Input(), w = b.Input(), c = b.Input();
    auto mm = b.Op("MatMul", {a, w}).Label("mm");
    auto y = b.Op("Add", {mm, c}).Label("add");
    Pattern p = declare_product_ ? b.Build({y, mm}) : b.Build({y});
    p.Capture(mm, "mm");
    return {p};
  }
  bool MeetRequirements(const MatchResult& m, PassContext& ctx) const override {
    const auto& g = ctx.Graph();
    const auto rank_a = core::builder::RankOf(g, m.Input(0)), rank_w = core::builder::RankOf(g, m.Input(1));
    const auto* bias = core::builder::KnownShape(g, m.Input(2));
    const auto* weights = core::builder::KnownShape(g, m.Input(1));
    return rank_a == 2u && rank_w == 2u && bias && weights && bias->Rank() == 1 && (*bias)[0] == (*weights)[1];
  }
  ReplacementGraph Replacement(const MatchResult&, ReplacementBuilder& rb, PassContext&) const override {
    auto gemm = rb.Op("Gemm", {rb.Input(0), rb.Input(1), rb.Input(2)});
    if (!declare_product_) return rb.Build({gemm});
    return rb.Build({gemm, rb.Op("MatMul", {rb.Input(0), rb.Input(1)})});
  }

 private:
  bool declare_product_;
};

inline Rules GemmRules(bool declare_product = false) {
  return Shared(fusion::Compile(std::make_shared<MatMulAddToGemm>(declare_product), "MatMulAddToGemm"));
}

// A pattern and a replacement given as functions, for one-off scenarios. The predicate
// defaults to true.
class LambdaPass final : public fusion::PatternFusionPass {
 public:
  using PatternsFn = std::function<std::vector<Pattern>()>;
  using RequirementsFn = std::function<bool(const MatchResult&, PassContext&)>;
  using ReplacementFn = std::function<ReplacementGraph(const MatchResult&, ReplacementBuilder&)>;
  LambdaPass(PatternsFn patterns, ReplacementFn replacement, RequirementsFn requirements = {},
             fusion::PatternMatcherConfig config = {})
      : PatternFusionPass(config),
        patterns_(std::move(patterns)),
        replacement_(std::move(replacement)),
        requirements_(std::move(requirements)) {}
  std::vector<Pattern> Patterns() const override { return patterns_(); }
  bool MeetRequirements(const MatchResult& m, PassContext& ctx) const override {
    return !requirements_ || requirements_(m, ctx);
  }
  ReplacementGraph Replacement(const MatchResult& m, ReplacementBuilder& rb, PassContext&) const override {
    return replacement_(m, rb);
  }

 private:
  PatternsFn patterns_;
  ReplacementFn replacement_;
  RequirementsFn requirements_;
};

// A recording rule (§11): counts the topological matches and rejects them all, so the
// graph stays unchanged. The count is the report's "MeetRequirements rejected" entry.
inline constexpr std::string_view kRejectedByRequirements = "MeetRequirements rejected the match";

inline Rules RecordingRule(std::string name, LambdaPass::PatternsFn patterns, fusion::PatternMatcherConfig config = {}) {
  auto pass = std::make_shared<LambdaPass>(
      std::move(patterns), [](const MatchResult&, ReplacementBuilder& rb) { return rb.Build({rb.Input(0)}); },
      [](const MatchResult&, PassContext&) { return false; }, config);
  return Shared(fusion::Compile(pass, std::move(name)));
}

inline Rules LambdaRules(std::string name, LambdaPass::PatternsFn patterns, LambdaPass::ReplacementFn replacement,
                         LambdaPass::RequirementsFn requirements = {}, fusion::PatternMatcherConfig config = {}) {
  return Shared(fusion::Compile(
      std::make_shared<LambdaPass>(std::move(patterns), std::move(replacement), std::move(requirements), config),
      std::move(name)));
}

}  // namespace onnxopt::testing
