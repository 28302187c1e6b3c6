// T60: declarative versions of CastCastPattern, TransposeTransposePattern and
// MatMulAddPattern (bench/declarative_catalog.h) rewrite every corpus model exactly as
// the hand-written patterns do: the same records (batch, matched positions, positions
// and content of the added nodes, initializers, renames, the cleanup that follows), up
// to the names of new nodes and values, and the same final graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "bench/declarative_catalog.h"
#include "onnx_core/fusion/fusion_pass.h"
#include "onnx_core/ir/model_io.h"
#include "tests/onnx_core/fusion/fusion_test_util.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

// A record with the rule's name replaced by "rule" and new names left out.
std::string RecordKey(const core::builder::LocalRewriting& record, const std::vector<std::string>& rule_names) {
  const bool by_rule = std::find(rule_names.begin(), rule_names.end(), record.Name()) != rule_names.end();
  std::string key = std::to_string(record.iteration) + " " + (by_rule ? "rule" : record.Name()) + " [";
  for (std::size_t position : record.matched_nodes) key += std::to_string(position) + ",";
  key += "] -> [";
  for (int i = 0; i < record.added_nodes.size(); ++i) {
    const NodeProto& node = record.added_nodes.Get(i);
    key += std::to_string(record.added_nodes_positions.at(static_cast<std::size_t>(i))) + ":" + node.domain() + "." +
           node.op_type() + "(" + std::to_string(node.input_size()) + ")";
    for (const AttributeProto& attribute : node.attribute()) key += " " + attribute.ShortDebugString();
    key += ";";
  }
  key += "] +" + std::to_string(record.added_initializers.size()) + " -" +
         std::to_string(record.removed_initializers.size()) + " renames " + std::to_string(record.value_renames.size());
  return key;
}

// The record keys of a run, sorted within each batch (the rules visit candidates in
// another order: pattern by pattern, anchored on the last node).
std::vector<std::string> RecordKeys(const RuleRun& run, const std::vector<std::string>& rule_names) {
  std::vector<std::string> keys;
  for (const auto& record : run.records) keys.push_back(RecordKey(record, rule_names));
  std::stable_sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
    return std::stoul(a.substr(0, a.find(' '))) < std::stoul(b.substr(0, b.find(' ')));
  });
  for (auto begin = keys.begin(); begin != keys.end();) {
    const std::string batch = begin->substr(0, begin->find(' '));
    auto end = std::find_if(begin, keys.end(), [&](const std::string& k) { return k.substr(0, k.find(' ')) != batch; });
    std::sort(begin, end);
    begin = end;
  }
  return keys;
}

// Runs every catalog pair on `model` and checks the parity; adds the rewrites to `applied`.
void ExpectParity(const ModelProto& model, std::map<std::string, std::size_t>& applied) {
  for (const auto& pair : declarative_catalog::CatalogPairs()) {
    SCOPED_TRACE(pair.name);
    std::vector<std::string> names{pair.handwritten->Name()};
    Rules declarative;
    for (const auto& pattern : pair.declarative) {
      for (std::string& name : fusion::ReportedNames(*pattern)) names.push_back(std::move(name));
      declarative.push_back(pattern);
    }
    const RuleRun hand = RunRules({pair.handwritten}, model);
    const RuleRun decl = RunRules(declarative, model);
    EXPECT_EQ(hand.applied, decl.applied);
    EXPECT_EQ(RecordKeys(hand, names), RecordKeys(decl, names));
    EXPECT_EQ(CanonicalGraph(hand.model.graph()), CanonicalGraph(decl.model.graph()));
    applied[pair.name] += decl.applied;
  }
}

TEST(DeclarativeParity, T60_SameRewritesAsTheCatalogOnTheCorpus) {
  const auto models = CorpusModels();
  ASSERT_FALSE(models.empty());
  std::map<std::string, std::size_t> applied;
  for (const auto& path : models) {
    SCOPED_TRACE(path.filename().string());
    ExpectParity(core::ir::LoadModel(path), applied);
  }
  for (const auto& [name, count] : applied) std::printf("%s: %zu rewrites over the corpus\n", name.c_str(), count);
}

// The corpus has no 2-D MatMul + bias: the MatMulAdd cases, each rewritten or rejected.
TEST(DeclarativeParity, T60_SameRewritesOnMatMulAddCases) {
  std::map<std::string, std::size_t> applied;
  for (const std::string body : {
           "t = MatMul(a, w)\n y = Add(t, c)",                      // MatMul + bias
           "t = MatMul(a, w)\n y = Add(c, t)",                      // bias first
           "t = Gemm<alpha = 2.0>(a, w)\n y = Add(t, c)",           // a Gemm, attributes kept
           "t = Gemm(a, w, c)\n y = Add(c, t)",                     // a Gemm with C
           "t = Gemm<beta = 2.0>(a, w, c)\n y = Add(t, c)",         // beta != 1: rejected
           "t = MatMul(a, w)\n y = Add(t, t)",                      // the product twice
           "t = MatMul(a, w)\n u = Add(t, c)\n y = Relu(t)",       // a shared product: rejected
           "t = Cast<to = 1>(a)\n s = Cast<to = 11>(t)\n y = Cast<to = 1>(s)",  // a CastCast chain
           "t = Transpose<perm = [1, 0]>(a)\n s = Transpose<perm = [1, 0]>(t)\n y = Add(s, a)",
       }) {
    SCOPED_TRACE(body);
    const bool square = body.find("Transpose") != std::string::npos || body.find("Cast") != std::string::npos;
    std::string text = R"(<ir_version: 8, opset_import: ["" : 17]> g ()";
    text += square ? "float[4,4] a, float[4,4] w, float[4] c) => (float[4,4] y) {\n"
                   : "float[4,8] a, float[8,16] w, float[16] c) => (float[4,16] y) {\n";
    text += body + "\n}";
    ExpectParity(ParseText(text), applied);
  }
  for (const auto& [name, count] : applied) std::printf("%s: %zu rewrites over the cases\n", name.c_str(), count);
  EXPECT_GE(applied["MatMulAddPattern"], 4u);
  EXPECT_GE(applied["CastCastPattern"], 1u);
  EXPECT_GE(applied["TransposeTransposePattern"], 1u);
}

}  // namespace
}  // namespace onnxopt::testing
