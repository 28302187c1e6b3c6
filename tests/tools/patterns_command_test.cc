// `onnxopt patterns NAME`: one pattern's documentation from the registry, and the
// suggestions for an unknown name.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

CommandResult Onnxopt(std::vector<std::string> args) {
  args.insert(args.begin(), OnnxoptExe().string());
  return RunCommand(args);
}

TEST(PatternsCommand, ShowsThePatternsDocumentationAndProperties) {
  const CommandResult result = Onnxopt({"patterns", "CastPattern"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output,
            "CastPattern (pattern)\n"
            "  family:      canonicalization\n"
            "  numerics:    exact\n"
            "  stage:       main\n"
            "  priority:    0\n"
            "  starts from: Cast\n"
            "\n"
            "  Cast<to=T>(x: T) => Identity(x): a cast to the type the tensor already has.\n"
            "  Before:  y = Cast<to=T>(x)          (x of element type T)\n"
            "  After:   y = Identity(x)            (doc string kept)\n"
            "  Not valid when the element type of x is unknown (it may be a real conversion), nor\n"
            "  when it differs from T.\n");
}

TEST(PatternsCommand, ShowsAGraphPassAndAnOptInPass) {
  const CommandResult transpose = Onnxopt({"patterns", "TransposeOptimizer"});
  ASSERT_EQ(transpose.exit_code, 0) << transpose.output;
  EXPECT_EQ(transpose.output.rfind("TransposeOptimizer (graph pass)\n  family:      transpose\n", 0), 0u)
      << transpose.output;
  EXPECT_NE(transpose.output.find("\n  starts from: graph pass\n"), std::string::npos) << transpose.output;
  EXPECT_NE(transpose.output.find("\n  TransposeOptimizer: pushes Transposes"), std::string::npos) << transpose.output;

  const CommandResult copy = Onnxopt({"patterns", "CopyElimination"});
  ASSERT_EQ(copy.exit_code, 0) << copy.output;
  EXPECT_NE(copy.output.find("\n  numerics:    exact, opt-in (not in the default selection)\n"), std::string::npos)
      << copy.output;
  EXPECT_NE(copy.output.find("\n  family:      memory\n"), std::string::npos) << copy.output;
}

TEST(PatternsCommand, ShowsAnApproximatePatternsNumerics) {
  const CommandResult result = Onnxopt({"patterns", "CastOpCastPattern"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("\n  numerics:    approximate\n"), std::string::npos) << result.output;
}

TEST(PatternsCommand, JsonCarriesTheDocumentation) {
  const CommandResult result = Onnxopt({"patterns", "CastPattern", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output,
            R"({"name":"CastPattern","family":"canonicalization","numerics":"exact","kind":"pattern",)"
            R"("opt_in":false,"stage":"main","priority":0,"op_types":"Cast",)"
            R"("doc":"Cast<to=T>(x: T) => Identity(x): a cast to the type the tensor already has.\n)"
            R"(Before:  y = Cast<to=T>(x)          (x of element type T)\n)"
            R"(After:   y = Identity(x)            (doc string kept)\n)"
            R"(Not valid when the element type of x is unknown (it may be a real conversion), nor\n)"
            R"(when it differs from T."})"
            "\n");
}

TEST(PatternsCommand, UnknownNameExitsOneAndSuggestsCloseNames) {
  const CommandResult typo = Onnxopt({"patterns", "CastPatern"});
  EXPECT_EQ(typo.exit_code, 1) << typo.output;
  EXPECT_EQ(typo.output.rfind("onnxopt patterns: unknown pattern 'CastPatern'; did you mean 'CastPattern'", 0), 0u)
      << typo.output;

  const CommandResult no_suffix = Onnxopt({"patterns", "reshapereshape"});
  EXPECT_EQ(no_suffix.exit_code, 1) << no_suffix.output;
  EXPECT_NE(no_suffix.output.find("unknown pattern 'reshapereshape'; did you mean 'ReshapeReshapePattern'"),
            std::string::npos)
      << no_suffix.output;

  const CommandResult nothing_close = Onnxopt({"patterns", "Zzzzzzzz"});
  EXPECT_EQ(nothing_close.exit_code, 1) << nothing_close.output;
  EXPECT_NE(nothing_close.output.find("unknown pattern 'Zzzzzzzz' (onnxopt patterns lists them)"), std::string::npos)
      << nothing_close.output;
}

TEST(PatternsCommand, RejectsANameWithFamilyAndTwoNames) {
  const CommandResult with_family = Onnxopt({"patterns", "CastPattern", "--family", "canonicalization"});
  EXPECT_EQ(with_family.exit_code, 1) << with_family.output;
  EXPECT_NE(with_family.output.find("--family lists patterns; it does not go with a pattern NAME"), std::string::npos)
      << with_family.output;
  EXPECT_EQ(Onnxopt({"patterns", "CastPattern", "CastCastPattern"}).exit_code, 1);
}

}  // namespace
}  // namespace onnxopt::testing
