#include "onnx_core/utils/close_names.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace onnxopt::utils {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("optimize", "optimize"), 0u);
  EXPECT_EQ(EditDistance("optimze", "optimize"), 1u);   // an insertion
  EXPECT_EQ(EditDistance("optimmize", "optimize"), 1u);  // a deletion
  EXPECT_EQ(EditDistance("optimise", "optimize"), 1u);   // a substitution
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("ab", "ba"), 2u) << "a transposition is two edits";
}

TEST(CloseNames, RanksTyposByDistanceThenPartsByLength) {
  const std::vector<std::string> commands = {"info", "optimize", "replay", "patterns", "run", "verify", "diff"};
  EXPECT_EQ(CloseNames("optimze", commands), (std::vector<std::string>{"optimize"}));
  EXPECT_EQ(CloseNames("INFO", commands), (std::vector<std::string>{"info"})) << "case is ignored";
  EXPECT_EQ(CloseNames("rn", commands), (std::vector<std::string>{"run"}));
  EXPECT_EQ(CloseNames("ifo", commands), (std::vector<std::string>{"info", "diff"}))
      << "two edits are allowed even for short words (info 1, diff 2), closest first";
  EXPECT_EQ(CloseNames("ru", {"rug", "run", "rum", "ru"}), (std::vector<std::string>{"ru", "rug", "run"}))
      << "equal distances keep the candidates' order, at most three by default";
  EXPECT_EQ(CloseNames("ru", {"rug", "run"}, 1), (std::vector<std::string>{"rug"})) << "at most the limit";
  EXPECT_EQ(CloseNames("pattern", {"PatternsCommand", "patterns", "Lattern"}),
            (std::vector<std::string>{"patterns", "Lattern", "PatternsCommand"}))
      << "typos first (distance 1, 1), then names containing the word";
  EXPECT_EQ(CloseNames("CastCastPatern", {"CastOpCastPattern", "CastCastPattern", "CastPattern"}),
            (std::vector<std::string>{"CastCastPattern"}))
      << "typos 3 and 4 edits away are within the budget of a long word, but not beside one 1 edit away";
  EXPECT_TRUE(CloseNames("compile", commands).empty());
  EXPECT_TRUE(CloseNames("", commands).empty());
}

TEST(CloseNames, MeasuresTheWordWithAnImpliedSuffixToo) {
  const std::vector<std::string> patterns = {"CastPattern", "ReshapeReshapePattern"};
  EXPECT_EQ(CloseNames("reshapereshape", patterns, 3, "pattern"), (std::vector<std::string>{"ReshapeReshapePattern"}));
  EXPECT_EQ(CloseNames("Cstpattern", patterns, 3, "pattern"), (std::vector<std::string>{"CastPattern"}))
      << "the word as given is measured too";
  EXPECT_EQ(CloseNames("cst", patterns, 3, "pattern"), (std::vector<std::string>{"CastPattern"}))
      << "a typo with the suffix left out";
  EXPECT_TRUE(CloseNames("cst", patterns).empty()) << "without the suffix: too far, and not a part";
}

TEST(CloseNames, NamesEachCandidateOnce) {
  EXPECT_EQ(CloseNames("algebr", {"algebra", "algebra"}), (std::vector<std::string>{"algebra"}));
}

TEST(DidYouMean, QuotesAndJoinsTheNames) {
  EXPECT_EQ(DidYouMean({}), "");
  EXPECT_EQ(DidYouMean({"info"}), "; did you mean 'info'?");
  EXPECT_EQ(DidYouMean({"a", "b"}), "; did you mean 'a' or 'b'?");
  EXPECT_EQ(DidYouMean({"--a", "--b", "--c"}, ""), "; did you mean --a, --b or --c?");
}

}  // namespace
}  // namespace onnxopt::utils
