// String kernels (StringNormalizer, StringConcat, StringSplit, RegexFullMatch) and
// TfIdfVectorizer: expected values derived by hand from the specification (StringSplit:
// from Python's str.split, the specification's reference implementation).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_core/eval/work_budget.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_extensions/kernels/unicode_text.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// StringNormalizer -------------------------------------------------------------------------

Tensor Normalize(const std::string& attrs, const Tensor& x) {
  const std::string type =
      "string[" + std::to_string(x.shape()[0]) + (x.rank() == 2 ? "," + std::to_string(x.shape()[1]) : "") + "]";
  return RunOne(GraphText(10, "(" + type + " x) => (y)", "y = StringNormalizer " + attrs + " (x)"), {{"x", x}});
}

TEST(StringNormalizerKernel, DropsStopWordsThenChangesCase) {
  const Tensor x = MakeTensor<std::string>({4}, {"Monday", "tuesday", "MONDAY", "été"});
  // Case-insensitive stop words compare lowercased strings.
  EXPECT_TENSOR(Normalize("<stopwords = [\"monday\"], case_change_action = \"UPPER\">", x),
                MakeTensor<std::string>({2}, {"TUESDAY", "ÉTÉ"}));
  // Case-sensitive: "monday" is neither "Monday" nor "MONDAY".
  EXPECT_TENSOR(Normalize("<stopwords = [\"monday\"], is_case_sensitive = 1>", x),
                MakeTensor<std::string>({4}, {"Monday", "tuesday", "MONDAY", "été"}));
}

TEST(StringNormalizerKernel, KeepsTheInputRankAndEmptiesToOneString) {
  const Tensor row = MakeTensor<std::string>({1, 3}, {"a", "B", "a"});
  EXPECT_TENSOR(Normalize("<stopwords = [\"a\"], case_change_action = \"LOWER\">", row),
                MakeTensor<std::string>({1, 1}, {"b"}));
  EXPECT_TENSOR(Normalize("<stopwords = [\"a\", \"b\"]>", row), MakeTensor<std::string>({1, 1}, {""}));
  EXPECT_TENSOR(Normalize("<stopwords = [\"a\"]>", MakeTensor<std::string>({2}, {"a", "A"})),
                MakeTensor<std::string>({1}, {""}));
}

TEST(StringNormalizerKernel, LocalesChooseTheCaseMapping) {
  const Tensor x = MakeTensor<std::string>({3}, {"istanbul", "straße", "ǆ"});
  // en_US (the default): every simple Unicode mapping; sharp s has none.
  EXPECT_TENSOR(Normalize("<case_change_action = \"UPPER\">", x),
                MakeTensor<std::string>({3}, {"ISTANBUL", "STRAßE", "Ǆ"}));
  // C: ASCII letters only.
  EXPECT_TENSOR(Normalize("<case_change_action = \"UPPER\", locale = \"C\">", x),
                MakeTensor<std::string>({3}, {"ISTANBUL", "STRAßE", "ǆ"}));
  // Turkish: dotted capital I.
  EXPECT_TENSOR(Normalize("<case_change_action = \"UPPER\", locale = \"tr_TR.UTF-8\">", x),
                MakeTensor<std::string>({3}, {"İSTANBUL", "STRAßE", "Ǆ"}));
  EXPECT_TENSOR(Normalize("<case_change_action = \"LOWER\", locale = \"tr_TR\">", MakeTensor<std::string>({1}, {"I"})),
                MakeTensor<std::string>({1}, {"ı"}));
}

TEST(StringNormalizerKernel, RefusesInvalidShapesActionsAndUtf8) {
  EXPECT_THAT(ModelErrorOf(GraphText(10, "(string[2,2] x) => (y)", "y = StringNormalizer (x)"),
                           {{"x", MakeTensor<std::string>({2, 2}, {"a", "b", "c", "d"})}}),
              AllOf(HasSubstr("node 'y' (StringNormalizer)"), HasSubstr("[C] or [1, C]")));
  EXPECT_THAT(ModelErrorOf(GraphText(10, "(string[0] x) => (y)", "y = StringNormalizer (x)"),
                           {{"x", MakeTensor<std::string>({0}, {})}}),
              HasSubstr("C > 0"));
  EXPECT_THAT(
      ModelErrorOf(GraphText(10, "(string[1] x) => (y)", "y = StringNormalizer <case_change_action = \"upper\"> (x)"),
                   {{"x", MakeTensor<std::string>({1}, {"a"})}}),
      HasSubstr("NONE, LOWER or UPPER"));
  EXPECT_THAT(
      ModelErrorOf(GraphText(10, "(string[1] x) => (y)", "y = StringNormalizer <case_change_action = \"UPPER\"> (x)"),
                   {{"x", MakeTensor<std::string>({1}, {"a\xff"})}}),
      HasSubstr("element 0 of input 'X' is not valid UTF-8"));
  // Nothing to do: the bytes pass through, as in onnxruntime.
  EXPECT_TENSOR(Normalize("", MakeTensor<std::string>({1}, {"a\xff"})), MakeTensor<std::string>({1}, {"a\xff"}));
}

// StringConcat, RegexFullMatch ---------------------------------------------------------------

TEST(StringConcatKernel, RefusesOutputCharactersBeyondTheLimit) {
  // One string of 1000 characters broadcast against 100 empty ones: 100 copies, 10^5
  // characters, above a limit of 5 * 10^4 bytes that every tensor here fits (the size
  // limit counts string elements, not their characters).
  const Inputs in = {{"x", MakeTensor<std::string>({1}, {std::string(1000, 'a')})},
                     {"y", MakeTensor<std::string>({100}, std::vector<std::string>(100))}};
  const core::ir::ScopedTensorLimit limit(50000, "the test's limit");
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(string[1] x, string[100] y) => (z)", "z = StringConcat (x, y)"), in),
              HasSubstr("the characters of StringConcat's output"));
}

TEST(StringConcatKernel, BroadcastsAndRefusesIncompatibleShapes) {
  EXPECT_TENSOR(
      RunOne(GraphText(20, "(string[2,1] x, string[3] y) => (z)", "z = StringConcat (x, y)"),
             {{"x", MakeTensor<std::string>({2, 1}, {"a", "b"})}, {"y", MakeTensor<std::string>({3}, {"1", "2", ""})}},
             "z"),
      MakeTensor<std::string>({2, 3}, {"a1", "a2", "a", "b1", "b2", "b"}));
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(string[2] x, string[3] y) => (z)", "z = StringConcat (x, y)"),
                           {{"x", MakeTensor<std::string>({2}, {"a", "b"})},
                            {"y", MakeTensor<std::string>({3}, {"1", "2", "3"})}}),
              AllOf(HasSubstr("node 'z' (StringConcat)"), HasSubstr("incompatible broadcast")));
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(string[1] x, float[1] y) => (z)", "z = StringConcat (x, y)"),
                           {{"x", MakeTensor<std::string>({1}, {"a"})}, {"y", MakeTensor<float>({1}, {1})}}),
              HasSubstr("must be of type STRING"));
}

TEST(RegexFullMatchKernel, MatchesWholeStringsWithRe2Syntax) {
  const std::string model =
      GraphText(20, "(string[4] x) => (y)", "y = RegexFullMatch <pattern = \"www[.][a-z]+[.]com\"> (x)");
  EXPECT_TENSOR(RunOne(model, {{"x", MakeTensor<std::string>({4}, {"www.abc.com", "www.abc.comx", "", "www.é.com"})}}),
                MakeTensor<bool>({4}, {true, false, false, false}));
  // Lookahead is not RE2 syntax.
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(string[1] x) => (y)", "y = RegexFullMatch <pattern = \"a(?=a)\"> (x)"),
                           {{"x", MakeTensor<std::string>({1}, {"aa"})}}),
              AllOf(HasSubstr("node 'y' (RegexFullMatch)"), HasSubstr("not a valid RE2 expression")));
  EXPECT_THAT(ModelErrorOf(GraphText(20, "(string[1] x) => (y)", "y = RegexFullMatch (x)"),
                           {{"x", MakeTensor<std::string>({1}, {"a"})}}),
              HasSubstr("attribute pattern is required"));
}

// StringSplit --------------------------------------------------------------------------------

std::pair<Tensor, Tensor> Split(const std::string& attrs, const Tensor& x) {
  std::string dims;
  for (std::size_t i = 0; i < x.rank(); ++i) dims += (i ? "," : "") + std::to_string(x.shape()[i]);
  auto out =
      RunText(GraphText(20, "(string[" + dims + "] x) => (y, z)", "y, z = StringSplit " + attrs + " (x)"), {{"x", x}});
  return {core::eval::AsTensor(out.at("y"), "y"), core::eval::AsTensor(out.at("z"), "z")};
}

TEST(StringSplitKernel, DelimiterKeepsEmptyPiecesAndPads) {
  auto [y, z] = Split("<delimiter = \"-\">", MakeTensor<std::string>({3}, {"a--b", "", "c-"}));
  // Python: "a--b".split("-") = [a, "", b], "".split("-") = [""], "c-".split("-") = [c, ""].
  EXPECT_TENSOR(y, MakeTensor<std::string>({3, 3}, {"a", "", "b", "", "", "", "c", "", ""}));
  EXPECT_TENSOR(z, MakeTensor<std::int64_t>({3}, {3, 1, 2}));
  auto [y2, z2] = Split("<delimiter = \"ab\", maxsplit = 1>", MakeTensor<std::string>({1}, {"xabyabz"}));
  EXPECT_TENSOR(y2, MakeTensor<std::string>({1, 2}, {"x", "yabz"}));
  EXPECT_TENSOR(z2, MakeTensor<std::int64_t>({1}, {2}));
}

TEST(StringSplitKernel, WhitespaceRunsAsPythonSplits) {
  // Python: " a\tb  c\n".split() = [a, b, c]; "   ".split() = [];
  // " a b c ".split(None, 1) = [a, "b c "] (the remainder keeps its trailing spaces).
  auto [y, z] = Split("", MakeTensor<std::string>({2}, {" a\tb  c\n", "   "}));
  EXPECT_TENSOR(y, MakeTensor<std::string>({2, 3}, {"a", "b", "c", "", "", ""}));
  EXPECT_TENSOR(z, MakeTensor<std::int64_t>({2}, {3, 0}));
  auto [y2, z2] = Split("<maxsplit = 1>", MakeTensor<std::string>({1}, {" a b c "}));
  EXPECT_TENSOR(y2, MakeTensor<std::string>({1, 2}, {"a", "b c "}));
  // U+00A0 (no-break space) and U+3000 separate too.
  auto [y3, z3] = Split("", MakeTensor<std::string>({1}, {"x\xc2\xa0y\xe3\x80\x80z"}));
  EXPECT_TENSOR(y3, MakeTensor<std::string>({1, 3}, {"x", "y", "z"}));
}

TEST(StringSplitKernel, EmptyAndScalarInputs) {
  auto [y, z] = Split("", MakeTensor<std::string>({2, 0}, {}));
  EXPECT_TENSOR(y, MakeTensor<std::string>({2, 0, 0}, {}));
  EXPECT_TENSOR(z, MakeTensor<std::int64_t>({2, 0}, {}));
  auto out =
      RunText(GraphText(20, "(string x) => (y, z)", "y, z = StringSplit (x)"), {{"x", MakeScalar<std::string>("p q")}});
  EXPECT_TENSOR(core::eval::AsTensor(out.at("y"), "y"), MakeTensor<std::string>({2}, {"p", "q"}));
  EXPECT_TENSOR(core::eval::AsTensor(out.at("z"), "z"), MakeScalar<std::int64_t>(2));
}

// TfIdfVectorizer ---------------------------------------------------------------------------

// Pool: 1-grams [2, 3, 5, 4], 2-grams [5, 6], [7, 8], [6, 7].
const std::string kIntPool =
    "ngram_counts = [0, 4], ngram_indexes = [0, 1, 2, 3, 4, 5, 6], pool_int64s = [2, 3, 5, 4, 5, 6, 7, 8, 6, 7]";

Tensor Vectorize(const std::string& attrs, const Tensor& x) {
  std::string dims;
  for (std::size_t i = 0; i < x.rank(); ++i) dims += (i ? "," : "") + std::to_string(x.shape()[i]);
  const std::string type = x.elem_type() == TensorProto::STRING  ? "string"
                           : x.elem_type() == TensorProto::INT32 ? "int32"
                                                                 : "int64";
  return RunOne(GraphText(9, "(" + type + "[" + dims + "] x) => (y)", "y = TfIdfVectorizer <" + attrs + "> (x)"),
                {{"x", x}});
}

TEST(TfIdfVectorizerKernel, CountsNgramsWithSkips) {
  const Tensor x = MakeTensor<std::int32_t>({2, 6}, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});
  // Bigrams only, no skip: row 1 has [6, 7] (index 6) and [5, 6] (index 4).
  EXPECT_TENSOR(
      Vectorize("mode = \"TF\", min_gram_length = 2, max_gram_length = 2, max_skip_count = 0, " + kIntPool, x),
      MakeTensor<float>({2, 7}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1}));
  // 1-grams and 2-grams with up to 5 skipped items (any pair of items in a row): row 0
  // holds 3 three times and no pooled pair; row 1 holds 5 once and the pairs [5, 6]
  // (items 3, 4), [7, 8] (items 2, 5) and [6, 7] (items 1, 2) once each.
  const Tensor y =
      Vectorize("mode = \"TF\", min_gram_length = 1, max_gram_length = 2, max_skip_count = 5, " + kIntPool, x);
  EXPECT_TENSOR(y, MakeTensor<float>({2, 7}, {0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1}));
}

TEST(TfIdfVectorizerKernel, WeightsModesAndStringPools) {
  const Tensor x = MakeTensor<std::int64_t>({4}, {2, 2, 3, 9});
  const std::string pool = "ngram_counts = [0], ngram_indexes = [1, 0], pool_int64s = [2, 3], weights = [0.5, 4.0]";
  const std::string lengths = "min_gram_length = 1, max_gram_length = 1, max_skip_count = 0, ";
  EXPECT_TENSOR(Vectorize("mode = \"TF\", " + lengths + pool, x), MakeTensor<float>({2}, {1, 2}));
  EXPECT_TENSOR(Vectorize("mode = \"IDF\", " + lengths + pool, x), MakeTensor<float>({2}, {4, 0.5f}));
  EXPECT_TENSOR(Vectorize("mode = \"TFIDF\", " + lengths + pool, x), MakeTensor<float>({2}, {4, 1}));
  EXPECT_TENSOR(Vectorize("mode = \"TF\", min_gram_length = 1, max_gram_length = 2, max_skip_count = 0, "
                          "ngram_counts = [0, 1], ngram_indexes = [0, 1], pool_strings = [\"a\", \"a\", \"b\"]",
                          MakeTensor<std::string>({4}, {"a", "b", "a", "b"})),
                MakeTensor<float>({2}, {2, 2}));
}

TEST(TfIdfVectorizerKernel, ChargesItsScanFirst) {
  // A row of 100 items scanned for 2-grams with up to 1000 skipped items: the skips stop
  // when a 2-gram spans the row (100 of them), each scanning 100 starts of 2 items.
  const Tensor x = MakeTensor<std::int64_t>({1, 100}, std::vector<std::int64_t>(100, 1));
  const std::string attrs =
      "mode = \"TF\", min_gram_length = 2, max_gram_length = 2, max_skip_count = 1000, " + kIntPool;
  core::eval::WorkBudget enough(20000, "the test's budget");
  {
    const core::eval::ScopedWorkBudget scope(enough);
    EXPECT_EQ(Vectorize(attrs, x).shape(), (std::vector<std::int64_t>{1, 7}));
  }
  EXPECT_EQ(enough.spent(), 20000u);
  core::eval::WorkBudget small(10000, "the test's budget");
  const core::eval::ScopedWorkBudget scope(small);
  EXPECT_THAT(ModelErrorOf(GraphText(9, "(int64[1,100] x) => (y)", "y = TfIdfVectorizer <" + attrs + "> (x)"),
                           {{"x", x}}),
              HasSubstr("TfIdfVectorizer's n-gram scan"));
}

TEST(TfIdfVectorizerKernel, RefusesInconsistentPools) {
  const Tensor x = MakeTensor<std::int64_t>({3}, {1, 2, 3});
  const std::string lengths = "mode = \"TF\", min_gram_length = 1, max_gram_length = 2, max_skip_count = 0, ";
  EXPECT_THAT(
      ModelErrorOf(GraphText(9, "(int64[3] x) => (y)",
                             "y = TfIdfVectorizer <" + lengths +
                                 "ngram_counts = [0, 2], ngram_indexes = [0, 1, 2], pool_int64s = [1, 2, 3]> (x)"),
                   {{"x", x}}),
      AllOf(HasSubstr("node 'y' (TfIdfVectorizer)"), HasSubstr("not a multiple of 2")));
  EXPECT_THAT(ModelErrorOf(GraphText(9, "(int64[3] x) => (y)",
                                     "y = TfIdfVectorizer <" + lengths +
                                         "ngram_counts = [0], ngram_indexes = [0], pool_int64s = [1, 2]> (x)"),
                           {{"x", x}}),
              HasSubstr("has 1 entries for the 2 n-grams"));
  EXPECT_THAT(ModelErrorOf(GraphText(9, "(int64[3] x) => (y)",
                                     "y = TfIdfVectorizer <" + lengths +
                                         "ngram_counts = [0], ngram_indexes = [0, 1], pool_int64s = [1, 1]> (x)"),
                           {{"x", x}}),
              HasSubstr("lists a 1-gram twice"));
  EXPECT_THAT(ModelErrorOf(GraphText(9, "(int64[3] x) => (y)",
                                     "y = TfIdfVectorizer <" + lengths +
                                         "ngram_counts = [0], ngram_indexes = [0], pool_strings = [\"a\"]> (x)"),
                           {{"x", x}}),
              HasSubstr("must be a string tensor"));
  EXPECT_THAT(
      ModelErrorOf(GraphText(9, "(int64[3] x) => (y)",
                             "y = TfIdfVectorizer <mode = \"TF\", min_gram_length = 0, "
                             "max_gram_length = 1, max_skip_count = 0, ngram_counts = [0], ngram_indexes = [0], "
                             "pool_int64s = [1]> (x)"),
                   {{"x", x}}),
      HasSubstr("1 <= min <= max"));
  EXPECT_THAT(ModelErrorOf(GraphText(9, "(int64[3] x) => (y)",
                                     "y = TfIdfVectorizer <" + lengths +
                                         "ngram_counts = [0], ngram_indexes = [-1], pool_int64s = [1]> (x)"),
                           {{"x", x}}),
              HasSubstr("holds the index -1"));
  EXPECT_THAT(ModelErrorOf(GraphText(9, "(int64[1,1,3] x) => (y)",
                                     "y = TfIdfVectorizer <" + lengths +
                                         "ngram_counts = [0], ngram_indexes = [0], pool_int64s = [1]> (x)"),
                           {{"x", MakeTensor<std::int64_t>({1, 1, 3}, {1, 2, 3})}}),
              HasSubstr("rank 1 or 2"));
}

// Unicode helpers -------------------------------------------------------------------------------

TEST(UnicodeText, DecodesStrictUtf8) {
  using onnx_kernels::unicode::IsValidUtf8;
  EXPECT_TRUE(IsValidUtf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));          // truncated
}

}  // namespace
}  // namespace onnxopt::testing
