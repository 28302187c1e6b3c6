// Registration, selection, and the merge of the three registry levels.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/pattern_registry.h"
#include "tests/onnx_core/optimizer/test_patterns.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using core::builder::GraphBuilder;
using core::builder::NumericalClass;
using core::builder::OptimizerOptions;
using core::builder::RegisteredPattern;
using core::builder::PatternSelection;
using core::builder::RegisterPattern;
using ::testing::HasSubstr;

constexpr std::string_view kModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2] a) => (float[2] y) {
    n = Neg(a)
    y = Neg(n)
  })ONNX";

// The global registry lives as long as the process: each test registers its own names,
// so that the tests also pass when run in one process.

// A pattern that names itself; Neg => Neg.
std::unique_ptr<PatternOptimization> Named(const std::string& name, int priority = 1) {
  return std::make_unique<RenameOpPattern>(name, "Neg", "Neg", priority);
}

TEST(PatternRegistry, CoreOptimizerRunsWithAnApplicationPatternAndNoExtensionLibrary) {
  for (const std::string& name : core::builder::RegisteredPatternNames())
    EXPECT_NE(name, "CastCastPattern") << "no built-in pattern is registered behind our back";
  core::builder::RegisterPattern<NegNegPattern>();
  GraphBuilder builder(ParseText(kModel));
  GraphGraph graph(builder);  // the default selection: every registered pattern
  ASSERT_EQ(graph.Patterns().size(), 1u);
  graph.Optimize();
  ASSERT_EQ(builder.Nodes().size(), 1);
  EXPECT_EQ(builder.Nodes().Get(0).op_type(), "Identity");
}

std::unique_ptr<PatternOptimization> MakeTaken() { return Named("Taken"); }

std::shared_ptr<const PatternOptimization> FindPattern(const GraphGraph& graph, const std::string& name) {
  for (const auto& pattern : graph.Patterns())
    if (pattern->Name() == name) return pattern;
  return nullptr;
}

TEST(PatternRegistry, RejectsAnotherFactoryUnderATakenName) {
  RegisterPattern("Taken", &MakeTaken);
  EXPECT_NO_THROW(RegisterPattern("Taken", &MakeTaken)) << "the same function again is idempotent";
  try {
    RegisterPattern("Taken", [] { return Named("Taken", 2); });
    FAIL() << "a second factory was accepted";
  } catch (const BuilderError& error) {
    EXPECT_THAT(error.what(), HasSubstr("'Taken' is already registered with another factory"));
  }
  core::builder::ReplacePattern("Taken", [] { return Named("Taken", 2); });
  GraphBuilder builder(ParseText(kModel));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::Parse("Taken")));
  ASSERT_EQ(graph.Patterns().size(), 1u);
  EXPECT_EQ(graph.Patterns()[0]->priority, 2) << "replaced explicitly";
  EXPECT_THROW(RegisterPattern("", &MakeTaken), BuilderError);
}

TEST(PatternRegistry, RejectsAFactoryWhosePatternHasAnotherName) {
  RegisterPattern("Alias", &MakeTaken);
  GraphBuilder builder(ParseText(kModel));
  EXPECT_THROW(GraphGraph(builder, {}, SelectRegistered(PatternSelection::Parse("Alias"))), BuilderError);
  // Leaves a valid registry for the tests that run after this one in the same process.
  core::builder::ReplacePattern("Alias", [] { return Named("Alias"); });
}

TEST(PatternRegistry, MergesLevelsByNameTheMostLocalWinning) {
  RegisterPattern("Levels", [] { return Named("Levels", 5); });
  const PatternSelection only = PatternSelection::Parse("Levels");
  GraphBuilder builder(ParseText(kModel));
  RegisterPattern(builder, "Levels", [] { return Named("Levels", 3); });
  RegisterPattern(builder, "BuilderOnly", [] { return Named("BuilderOnly", 4); });
  {
    GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::Parse("Levels,BuilderOnly")));
    ASSERT_EQ(graph.Patterns().size(), 2u);
    EXPECT_EQ(FindPattern(graph, "Levels")->priority, 3) << "the builder's registration replaces the global one";
  }
  GraphGraph graph(builder, {Named("Levels", 0)}, SelectRegistered(only));
  ASSERT_EQ(graph.Patterns().size(), 1u);
  EXPECT_EQ(graph.Patterns()[0]->priority, 0) << "the constructor's pattern replaces both";
  // Another builder sees only the global level.
  GraphBuilder other(ParseText(kModel));
  GraphGraph other_graph(other, {}, SelectRegistered(only));
  EXPECT_EQ(FindPattern(other_graph, "Levels")->priority, 5);
  EXPECT_EQ(FindPattern(other_graph, "BuilderOnly"), nullptr);
}

TEST(PatternRegistry, SortsByPriorityKeepingRegistrationOrder) {
  GraphBuilder builder(ParseText(kModel));
  GraphGraph graph(builder, {Named("P2", 2), Named("P0a", 0), Named("P1", 1), Named("P0b", 0)},
                   SelectRegistered(PatternSelection::None()));
  std::vector<std::string> names;
  for (const auto& pattern : graph.Patterns()) names.push_back(pattern->Name());
  EXPECT_EQ(names, (std::vector<std::string>{"P0a", "P0b", "P1", "P2"}));
}

// Registry entries without factories: Resolve reads names and numerical classes only.
std::vector<RegisteredPattern> Available(std::initializer_list<std::pair<const char*, NumericalClass>> entries) {
  std::vector<RegisteredPattern> available;
  for (const auto& [name, numerics] : entries) available.push_back(RegisteredPattern{name, nullptr, "", numerics});
  return available;
}

TEST(PatternSelection, ParsesAndResolvesNames) {
  const std::vector<RegisteredPattern> available =
      Available({{"A", NumericalClass::kExact}, {"B", NumericalClass::kExact}, {"C", NumericalClass::kExact}});
  EXPECT_EQ(PatternSelection::Parse("default").Resolve(available), (std::vector<std::string>{"A", "B", "C"}));
  EXPECT_TRUE(PatternSelection::Parse("none").Resolve(available).empty());
  EXPECT_EQ(PatternSelection::Parse("C,A").Resolve(available), (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(PatternSelection::Parse("-B").Resolve(available), (std::vector<std::string>{"A", "C"}));
  EXPECT_EQ(PatternSelection::Parse("default,-B,-C").Resolve(available), (std::vector<std::string>{"A"}));
  EXPECT_EQ(PatternSelection::Parse("none,+B").Resolve(available), (std::vector<std::string>{"B"}));
  EXPECT_EQ(PatternSelection::Parse(" A , B ").Resolve(available), (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(PatternSelection::Parse("none,+B").ToString(), "none,+B");
  EXPECT_THROW(PatternSelection::Parse("A,,B"), Error);
  EXPECT_THROW(PatternSelection::Parse("A,-"), Error);
  EXPECT_THROW(PatternSelection::Parse("A,default"), Error);
  try {
    PatternSelection::Parse("A,Typo").Resolve(available);
    FAIL();
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown pattern or family 'Typo'"));
  }
}

TEST(PatternSelection, DefaultLeavesApproximatePatternsOutUnlessNamed) {
  const std::vector<RegisteredPattern> available = Available(
      {{"Exact", NumericalClass::kExact}, {"Fused", NumericalClass::kRounding}, {"Lossy", NumericalClass::kApproximate}});
  EXPECT_EQ(PatternSelection::Parse("default").Resolve(available), (std::vector<std::string>{"Exact", "Fused"}));
  EXPECT_EQ(PatternSelection::Parse("-Fused").Resolve(available), (std::vector<std::string>{"Exact"}));
  EXPECT_EQ(PatternSelection::Parse("all").Resolve(available), (std::vector<std::string>{"Exact", "Fused", "Lossy"}));
  EXPECT_EQ(PatternSelection::Parse("all,-Exact").Resolve(available), (std::vector<std::string>{"Fused", "Lossy"}));
  EXPECT_EQ(PatternSelection::Parse("+Lossy").Resolve(available), (std::vector<std::string>{"Exact", "Fused", "Lossy"}));
  EXPECT_EQ(PatternSelection::Parse("Lossy").Resolve(available), (std::vector<std::string>{"Lossy"}));
  EXPECT_EQ(PatternSelection::All().ToString(), "all");
  EXPECT_THROW(PatternSelection::Parse("A,all"), Error);
}

TEST(PatternSelection, DefaultLeavesOptInPatternsOutUnlessNamed) {
  std::vector<RegisteredPattern> available = {RegisteredPattern{"Kept", nullptr, "", NumericalClass::kExact},
                                              RegisteredPattern{"Planned", nullptr, "mem", NumericalClass::kExact, true}};
  EXPECT_EQ(PatternSelection::Parse("default").Resolve(available), (std::vector<std::string>{"Kept"}));
  EXPECT_EQ(PatternSelection::Parse("default,+mem").Resolve(available), (std::vector<std::string>{"Kept", "Planned"}));
  EXPECT_EQ(PatternSelection::Parse("all").Resolve(available), (std::vector<std::string>{"Kept", "Planned"}));
}

TEST(PatternSelection, AFamilyNameStandsForAllItsPatterns) {
  std::vector<RegisteredPattern> available = {
      RegisteredPattern{"A1", nullptr, "alpha", NumericalClass::kExact},
      RegisteredPattern{"A2", nullptr, "alpha", NumericalClass::kApproximate},
      RegisteredPattern{"B1", nullptr, "beta", NumericalClass::kExact},
      RegisteredPattern{"Own", nullptr, "", NumericalClass::kExact}};
  EXPECT_EQ(PatternSelection::Parse("default,-alpha").Resolve(available), (std::vector<std::string>{"B1", "Own"}));
  EXPECT_EQ(PatternSelection::Parse("alpha").Resolve(available), (std::vector<std::string>{"A1", "A2"}))
      << "naming a family selects its approximate patterns too, as naming one pattern does";
  EXPECT_EQ(PatternSelection::Parse("none,+beta,+A1").Resolve(available), (std::vector<std::string>{"A1", "B1"}));
  EXPECT_EQ(PatternSelection::Parse("alpha,-A2").Resolve(available), (std::vector<std::string>{"A1"}));
  try {
    PatternSelection::Parse("gamma").Resolve(available);
    FAIL() << "an unknown family was accepted";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("unknown pattern or family 'gamma'"));
  }
}

TEST(PatternSelection, AnUnknownNameSuggestsClosePatternsAndFamilies) {
  std::vector<RegisteredPattern> available = {
      RegisteredPattern{"CastPattern", nullptr, "canonicalization", NumericalClass::kExact},
      RegisteredPattern{"ReshapeReshapePattern", nullptr, "reshape", NumericalClass::kExact}};
  auto message = [&](const char* selection) -> std::string {
    try {
      PatternSelection::Parse(selection).Resolve(available);
    } catch (const Error& error) {
      return error.what();
    }
    return "accepted";
  };
  EXPECT_EQ(message("default,-CastPatern"),
            "unknown pattern or family 'CastPatern'; did you mean 'CastPattern'? (see 'onnxopt patterns' for the "
            "registered ones)");
  EXPECT_THAT(message("reshapereshape"), HasSubstr("did you mean 'ReshapeReshapePattern'?"))
      << "the Pattern suffix may be left out";
  EXPECT_THAT(message("canonicalisation"), HasSubstr("did you mean 'canonicalization'?"));
  EXPECT_EQ(message("Softmax"),
            "unknown pattern or family 'Softmax' (see 'onnxopt patterns' for the registered ones)");
}

TEST(PatternRegistry, KeepsTheNumericalClassOfEachRegistration) {
  RegisterPattern("LossyNeg", [] { return Named("LossyNeg"); }, "", NumericalClass::kApproximate);
  RegisterPattern("ExactNeg", [] { return Named("ExactNeg"); });
  for (const RegisteredPattern& entry : core::builder::RegisteredPatterns()) {
    if (entry.name == "LossyNeg") {
      EXPECT_EQ(entry.numerics, NumericalClass::kApproximate);
    }
    if (entry.name == "ExactNeg") {
      EXPECT_EQ(entry.numerics, NumericalClass::kExact);
    }
  }
  GraphBuilder builder(ParseText(kModel));
  GraphGraph graph(builder);
  EXPECT_EQ(FindPattern(graph, "LossyNeg"), nullptr) << "the default selection runs no approximate pattern";
  EXPECT_NE(FindPattern(graph, "ExactNeg"), nullptr);
}

TEST(PatternSelection, SelectsAmongRegisteredPatterns) {
  RegisterPattern("SelectedA", [] { return Named("SelectedA"); });
  RegisterPattern("SelectedB", [] { return Named("SelectedB"); });
  GraphBuilder builder(ParseText(kModel));
  GraphGraph graph(builder, {}, SelectRegistered(PatternSelection::Parse("-SelectedA")));
  EXPECT_EQ(FindPattern(graph, "SelectedA"), nullptr);
  EXPECT_NE(FindPattern(graph, "SelectedB"), nullptr);
}


// --- Documentation ------------------------------------------------------------------------

std::string DocOf(const std::string& name) {
  for (const RegisteredPattern& entry : core::builder::RegisteredPatterns())
    if (entry.name == name) return entry.doc;
  ADD_FAILURE() << name << " is not registered";
  return "";
}

TEST(PatternRegistry, DocumentPatternReachesEntriesRegisteredBeforeAndAfter) {
  RegisterPattern("DocumentedEarly", [] { return Named("DocumentedEarly"); });
  EXPECT_EQ(DocOf("DocumentedEarly"), "") << "nobody documented it yet";
  core::builder::DocumentPattern("DocumentedEarly", "Neg => Neg, early.");
  EXPECT_EQ(DocOf("DocumentedEarly"), "Neg => Neg, early.");

  core::builder::DocumentPattern("DocumentedLate", "Neg => Neg, late.");
  RegisterPattern("DocumentedLate", [] { return Named("DocumentedLate"); });
  EXPECT_EQ(DocOf("DocumentedLate"), "Neg => Neg, late.");
  core::builder::ReplacePattern("DocumentedLate", [] { return Named("DocumentedLate", 3); });
  EXPECT_EQ(DocOf("DocumentedLate"), "Neg => Neg, late.") << "a replacement keeps the documentation";
}

TEST(PatternRegistry, AnEntryThatBringsItsOwnDocKeepsIt) {
  core::builder::DocumentPattern("SelfDocumented", "the generated text");
  RegisteredPattern entry{"SelfDocumented", [] { return Named("SelfDocumented"); }, "", NumericalClass::kExact};
  entry.doc = "the application's text";
  RegisterPattern(std::move(entry));
  EXPECT_EQ(DocOf("SelfDocumented"), "the application's text");
}

TEST(PatternRegistry, ClosePatternNamesSuggestsTyposCaseAndParts) {
  std::vector<RegisteredPattern> available;
  for (const char* name : {"CastPattern", "CastCastPattern", "CastOpCastPattern", "ReshapePattern", "Identity"})
    available.push_back(RegisteredPattern{name, nullptr, "", NumericalClass::kExact});
  using core::builder::ClosePatternNames;
  EXPECT_EQ(ClosePatternNames("CastPatern", available), (std::vector<std::string>{"CastPattern"}));
  EXPECT_EQ(ClosePatternNames("castcastpattern", available).front(), "CastCastPattern");
  EXPECT_EQ(ClosePatternNames("Reshape", available), (std::vector<std::string>{"ReshapePattern"}))
      << "the Pattern suffix may be left out";
  EXPECT_THAT(ClosePatternNames("OpCast", available), ::testing::Contains("CastOpCastPattern"));
  EXPECT_EQ(ClosePatternNames("Cast", available, 2), (std::vector<std::string>{"CastPattern", "CastCastPattern"}))
      << "closest first, at most the limit";
  EXPECT_TRUE(ClosePatternNames("Softmax", available).empty());
  EXPECT_TRUE(ClosePatternNames("", available).empty());
}

}  // namespace
}  // namespace onnxopt::testing
