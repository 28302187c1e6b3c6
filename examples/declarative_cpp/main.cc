// declarative_cpp: rewrite rules written as small graphs (onnx_core/fusion), in C++.
//
//   declarative_cpp MODEL.onnx OUT.onnx
//
// Two rules, compiled into ordinary engine patterns: x + 0 => x, and
// MatMul(a, w) + c => Gemm(a, w, c). It prints the rewrites it applied.
// docs/declarative-rules.md walks through this file.

#include <exception>
#include <iostream>
#include <memory>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/fusion/fusion_pass.h"
#include "onnx_core/ir/model_io.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/shapes/register_shape_functions.h"

namespace fusion = onnxopt::fusion;
namespace builder = onnxopt::core::builder;

// y = Add(x, C) with C all zeros => x, when the Add does not broadcast x.
class AddZero final : public fusion::PatternFusionPass {
 public:
  std::vector<fusion::Pattern> Patterns() const override {
    fusion::PatternBuilder b("add_zero");
    auto x = b.Input();
    return {b.Build({b.Op("Add", {x, b.AnyConstant("zero")})})};
  }
  bool MeetRequirements(const fusion::MatchResult& m, fusion::PassContext& ctx) const override {
    const auto* x = builder::KnownShape(ctx.Graph(), m.Input(0));
    const auto* y = builder::KnownShape(ctx.Graph(), m.Output(0));
    return builder::AllElementsEqual(m.ConstantValue("zero"), 0.0) && x && y && *x == *y &&
           ctx.Graph().GetType(m.Input(0)) == ctx.Graph().GetType(m.Output(0));
  }
  fusion::ReplacementGraph Replacement(const fusion::MatchResult&, fusion::ReplacementBuilder& rb,
                                       fusion::PassContext&) const override {
    return rb.Build({rb.Input(0)});  // a passthrough: the Add disappears
  }
};

// y = Add(MatMul(a, w), c) => Gemm(a, w, c) for 2-D a and w and a bias vector.
class MatMulAddToGemm final : public fusion::PatternFusionPass {
 public:
  std::vector<fusion::Pattern> Patterns() const override {
    fusion::PatternBuilder b("matmul_add");
    auto a = b.Input(), w = b.Input(), c = b.Input();
    return {b.Build({b.Op("Add", {b.Op("MatMul", {a, w}), c})})};
  }
  bool MeetRequirements(const fusion::MatchResult& m, fusion::PassContext& ctx) const override {
    const auto& g = ctx.Graph();
    const auto* w = builder::KnownShape(g, m.Input(1));
    const auto* c = builder::KnownShape(g, m.Input(2));
    return builder::RankOf(g, m.Input(0)) == 2u && w && w->Rank() == 2 && c && c->Rank() == 1 && (*c)[0] == (*w)[1];
  }
  fusion::ReplacementGraph Replacement(const fusion::MatchResult&, fusion::ReplacementBuilder& rb,
                                       fusion::PassContext&) const override {
    return rb.Build({rb.Op("Gemm", {rb.Input(0), rb.Input(1), rb.Input(2)})});
  }
};

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: declarative_cpp MODEL.onnx OUT.onnx\n";
    return 1;
  }
  try {
    onnxopt::onnx_shapes::RegisterShapeFunctions();  // the rules read shapes
    std::vector<std::shared_ptr<const builder::PatternOptimization>> rules;
    for (auto& pattern : fusion::Compile(std::make_shared<AddZero>(), "AddZero")) rules.push_back(std::move(pattern));
    for (auto& pattern : fusion::Compile(std::make_shared<MatMulAddToGemm>(), "MatMulAddToGemm"))
      rules.push_back(std::move(pattern));

    builder::GraphBuilder graph_builder(onnxopt::core::ir::LoadModel(argv[1]));
    builder::OptimizerOptions options;
    options.registered = builder::PatternSelection::None();  // our rules only
    builder::GraphGraph optimizer(graph_builder, rules, options);
    for (const builder::LocalRewriting& record : optimizer.Optimize()) std::cout << record.ToString() << "\n";
    onnxopt::ModelProto optimized = graph_builder.ToModel();
    onnxopt::core::ir::SaveModel(optimized, argv[2]);
  } catch (const std::exception& e) {
    std::cerr << "declarative_cpp: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
