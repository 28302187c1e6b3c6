#include "bench/declarative_catalog.h"

#include <optional>

#include "onnx_core/fusion/fusion_pass.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/canonicalization/cast_cast_pattern.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"
#include "onnx_extensions/patterns/layout/transpose_transpose_pattern.h"
#include "onnx_extensions/patterns/matmul/mat_mul_add_pattern.h"
#include "onnx_extensions/patterns/matmul/matmul_matchers.h"

namespace onnxopt::declarative_catalog {

namespace {

using core::builder::GraphGraph;
using core::builder::IntAttr;
using fusion::MatchResult;
using fusion::PassContext;
using fusion::Pattern;
using fusion::PatternBuilder;
using fusion::ReplacementBuilder;
using fusion::ReplacementGraph;
using fusion::ValueRef;

std::vector<PatternPtr> Shared(fusion::PatternList compiled) {
  return std::vector<PatternPtr>(std::make_move_iterator(compiled.begin()), std::make_move_iterator(compiled.end()));
}

// A two-node chain `second(first(x))`, alone (the intermediate read by `second` only) and
// with the intermediate declared as a second output (it has other readers): the
// hand-written patterns keep the first node for those readers.
std::vector<Pattern> ChainPatterns(const char* op_type) {
  std::vector<Pattern> patterns;
  for (bool shared : {false, true}) {
    PatternBuilder b(shared ? "shared_chain" : "chain");
    auto first = b.Op(op_type, {b.Input()}).Label("first");
    auto second = b.Op(op_type, {first}).Label("second");
    Pattern pattern = shared ? b.Build({second, first}) : b.Build({second});
    patterns.push_back(pattern.PlaceAtFirstNode());  // where the hand-written patterns put it
  }
  return patterns;
}

bool SharedChain(const MatchResult& m) { return m.GetPattern().NumOutputs() == 2; }

// --- Cast(Cast(x)) -------------------------------------------------------------------

// Which Cast's conversion remains: 0 none (Identity), 1 the first, 2 the second; nullopt
// when the two do not reduce to one without changing a value (cast_cast_pattern.h).
std::optional<int> SurvivingCast(int t1, int t2, int t3) {
  const bool narrow_float = t1 == TensorProto::FLOAT || t1 == TensorProto::FLOAT16 || t1 == TensorProto::BFLOAT16;
  if (t1 == t3 && (t2 == t1 || (narrow_float && (t2 == TensorProto::FLOAT || t2 == TensorProto::DOUBLE)))) return 0;
  if (t1 == t3) return std::nullopt;
  if (t3 == t2) return 1;
  if (t1 == t2) return 2;
  return std::nullopt;
}

std::optional<int> SurvivingCast(const MatchResult& m, GraphGraph& graph) {
  const auto t2 = IntAttr(m.Node("first"), "to"), t3 = IntAttr(m.Node("second"), "to");
  const int t1 = graph.GetType(m.Input(0));
  if (!t2 || !t3 || t1 == 0) return std::nullopt;
  return SurvivingCast(t1, static_cast<int>(*t2), static_cast<int>(*t3));
}

class CastCast final : public fusion::PatternFusionPass {
 public:
  std::vector<Pattern> Patterns() const override { return ChainPatterns("Cast"); }
  bool MeetRequirements(const MatchResult& m, PassContext& ctx) const override {
    if (SharedChain(m) && !ctx.Graph().IsUsedMoreThanOnce(m.Output(1))) return false;
    return SurvivingCast(m, ctx.Graph()).has_value();
  }
  ReplacementGraph Replacement(const MatchResult& m, ReplacementBuilder& rb, PassContext& ctx) const override {
    const NodeProto& first = m.Node("first");
    std::optional<ValueRef> kept;
    if (SharedChain(m)) kept = rb.Op("Cast", {rb.Input(0)}).Attr(first.attribute(0));
    const int survivor = *SurvivingCast(m, ctx.Graph());
    ValueRef result;
    if (survivor == 0) {
      result = rb.Op("Identity", {rb.Input(0)});
    } else {
      auto cast = rb.Op("Cast", {rb.Input(0)});
      for (const AttributeProto& attribute : (survivor == 1 ? first : m.Node("second")).attribute()) cast.Attr(attribute);
      result = cast;
    }
    return kept ? rb.Build({result, *kept}) : rb.Build({result});
  }
};

// --- Transpose(Transpose(x)) -----------------------------------------------------------

std::optional<onnx_patterns::layout::Ints> Composite(const MatchResult& m, GraphGraph& graph) {
  std::string_view why;
  const auto p1 = onnx_patterns::layout::TransposePerm(graph, m.Node("first"), &why);
  const auto p2 = onnx_patterns::layout::TransposePerm(graph, m.Node("second"), &why);
  if (!p1 || !p2 || p1->size() != p2->size()) return std::nullopt;
  return onnx_patterns::layout::ComposePermutations(*p1, *p2);
}

class TransposeTranspose final : public fusion::PatternFusionPass {
 public:
  std::vector<Pattern> Patterns() const override { return ChainPatterns("Transpose"); }
  bool MeetRequirements(const MatchResult& m, PassContext& ctx) const override {
    const auto composite = Composite(m, ctx.Graph());
    if (!composite) return false;
    if (!SharedChain(m)) return true;
    // The hand-written pattern pairs the first Transpose with its last Transpose reader.
    const auto readers = onnx_patterns::layout::DataConsumers(ctx.Graph(), m.Output(1), "Transpose");
    return ctx.Graph().IsUsedMoreThanOnce(m.Output(1)) && onnx_patterns::layout::IsIdentityPermutation(*composite) &&
           !readers.empty() && readers.back() == &m.Node("second");
  }
  ReplacementGraph Replacement(const MatchResult& m, ReplacementBuilder& rb, PassContext& ctx) const override {
    std::optional<ValueRef> kept;
    if (SharedChain(m)) kept = rb.Op("Transpose", {rb.Input(0)}).Attr(*m.Node("first").attribute().begin());
    const auto composite = *Composite(m, ctx.Graph());
    ValueRef result = onnx_patterns::layout::IsIdentityPermutation(composite)
                          ? ValueRef(rb.Op("Identity", {rb.Input(0)}))
                          : ValueRef(rb.Op("Transpose", {rb.Input(0)}).Attr("perm", composite));
    return kept ? rb.Build({result, *kept}) : rb.Build({result});
  }
};

// --- MatMul(a, b) + bias => Gemm -------------------------------------------------------

// Add(product, bias) in both operand orders, the product a MatMul, a Gemm of two inputs,
// or a Gemm with C: six patterns.
class MatMulAdd final : public fusion::PatternFusionPass {
 public:
  std::vector<Pattern> Patterns() const override {
    std::vector<Pattern> patterns;
    for (const char* product : {"MatMul", "Gemm", "GemmC"})
      for (bool bias_first : {false, true}) {
        PatternBuilder b(std::string(product) + (bias_first ? "_bias_first" : ""));
        std::vector<ValueRef> inputs = b.Inputs(std::string_view(product) == "GemmC" ? 3 : 2);
        auto p = b.Op(std::string_view(product) == "MatMul" ? "MatMul" : "Gemm", inputs).Label("product");
        auto bias = b.Input();
        patterns.push_back(b.Build({bias_first ? b.Op("Add", {bias, p}) : b.Op("Add", {p, bias})}));
      }
    return patterns;
  }
  bool MeetRequirements(const MatchResult& m, PassContext& ctx) const override {
    GraphGraph& g = ctx.Graph();
    const NodeProto& product = m.Node("product");
    const bool gemm = onnx_patterns::matmul::IsGemm(product);
    if (gemm && onnx_patterns::matmul::GemmAttributesOf(product).beta != 1.0f) return false;
    if (!gemm && !onnx_patterns::matmul::GemmComputesLikeMatMul(g, product.output(0))) return false;
    if (core::builder::RankOf(g, product.input(0)) != 2u || core::builder::RankOf(g, product.input(1)) != 2u)
      return false;
    const std::string& bias = m.Input(m.GetPattern().NumInputs() - 1);
    const auto* shape_b = core::builder::KnownShape(g, product.input(1));
    const auto* shape_bias = core::builder::KnownShape(g, bias);
    if (!shape_b || !shape_bias || shape_bias->Rank() != 1) return false;
    const bool trans_b = gemm && onnx_patterns::matmul::GemmAttributesOf(product).trans_b;
    if (!((*shape_bias)[0] == (*shape_b)[trans_b ? 0 : 1])) return false;
    if (gemm && onnx_patterns::matmul::HasGemmC(product)) {
      const auto* shape_c = core::builder::KnownShape(g, product.input(2));
      return shape_c && *shape_c == *shape_bias;
    }
    return true;
  }
  ReplacementGraph Replacement(const MatchResult& m, ReplacementBuilder& rb, PassContext&) const override {
    const NodeProto& product = m.Node("product");
    const std::size_t bias_input = m.GetPattern().NumInputs() - 1;
    ValueRef bias = rb.Input(bias_input);
    if (bias_input == 3) bias = rb.Op("Add", {bias, rb.Input(2)});
    auto gemm = rb.Op("Gemm", {rb.Input(0), rb.Input(1), bias});
    if (onnx_patterns::matmul::IsGemm(product))
      for (const AttributeProto& attribute : product.attribute()) gemm.Attr(attribute);
    return rb.Build({gemm});
  }
};

}  // namespace

std::vector<PatternPtr> DeclarativeCastCast() {
  return Shared(fusion::Compile(std::make_shared<CastCast>(), "DeclarativeCastCast",
                                fusion::PassStage::kAfterShapeInference, onnx_patterns::CastCastPattern().priority));
}

std::vector<PatternPtr> DeclarativeTransposeTranspose() {
  return Shared(fusion::Compile(std::make_shared<TransposeTranspose>(), "DeclarativeTransposeTranspose",
                                fusion::PassStage::kAfterShapeInference,
                                onnx_patterns::TransposeTransposePattern().priority));
}

std::vector<PatternPtr> DeclarativeMatMulAdd() {
  return Shared(fusion::Compile(std::make_shared<MatMulAdd>(), "DeclarativeMatMulAdd",
                                fusion::PassStage::kAfterShapeInference, onnx_patterns::MatMulAddPattern().priority));
}

std::vector<CatalogPair> CatalogPairs() {
  return {
      {"CastCastPattern", std::make_shared<onnx_patterns::CastCastPattern>(), DeclarativeCastCast()},
      {"TransposeTransposePattern", std::make_shared<onnx_patterns::TransposeTransposePattern>(),
       DeclarativeTransposeTranspose()},
      {"MatMulAddPattern", std::make_shared<onnx_patterns::MatMulAddPattern>(), DeclarativeMatMulAdd()},
  };
}

}  // namespace onnxopt::declarative_catalog
