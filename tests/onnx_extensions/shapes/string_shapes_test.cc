// Shape functions of string_shapes.cc: the string operators and TfIdfVectorizer.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

std::string Model(int opset, const std::string& signature, const std::string& body) {
  return "<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + signature + " {\n" + body + "\n}";
}

TEST(StringShapes, OperatorsKeepOrExtendTheInputShape) {
  auto s = InferText(Model(20,
                           "g (string[N] x, string[1,C] r, string[A,1] p, string[B] q) => (string[] a, string[] b, "
                           "string[] c, bool[] d, string[] e, int64[] f)",
                           "a = StringNormalizer <case_change_action = \"LOWER\"> (x)\n"
                           "b = StringNormalizer <stopwords = [\"the\"]> (r)\n"
                           "c = StringConcat (p, q)\n"
                           "d = RegexFullMatch <pattern = \"a+\"> (x)\n"
                           "e, f = StringSplit (r)"));
  EXPECT_EQ(s.Get("a"), "string[N]");
  EXPECT_EQ(s.Tensor("b").shape.Rank(), 2u);
  EXPECT_EQ(s.Tensor("b").shape[0].ToString(), "1");
  EXPECT_FALSE(s.Tensor("b").shape[1].IsConstant());  // how many strings are kept is known at run time
  EXPECT_EQ(s.Get("c"), "string[A,B]");
  EXPECT_EQ(s.Get("d"), "bool[N]");
  EXPECT_EQ(s.Tensor("e").shape.Rank(), 3u);
  EXPECT_EQ(s.Get("f"), "int64[1,C]");
}

TEST(TfIdfVectorizerShape, WidthFromNgramIndexes) {
  auto s = InferText(
      Model(9, "g (int64[N,C] x, int32[C] v) => (float[] y, float[] z)",
            "y = TfIdfVectorizer <mode = \"TF\", min_gram_length = 1, max_gram_length = 1, "
            "max_skip_count = 0, ngram_counts = [0], ngram_indexes = [0, 6, 2], pool_int64s = [1, 2, 3]> (x)\n"
            "z = TfIdfVectorizer <mode = \"TF\", min_gram_length = 1, max_gram_length = 1, "
            "max_skip_count = 0, ngram_counts = [0], ngram_indexes = [3], pool_int64s = [1]> (v)"));
  EXPECT_EQ(s.Get("y"), "float[N,7]");
  EXPECT_EQ(s.Get("z"), "float[4]");
}

// The largest index INT64_MAX or a negative one gives no width (found by
// fuzz/graph_fuzzer.cc: INT64_MAX + 1 overflowed).
TEST(TfIdfVectorizerShape, WidthUnknownWhenTheIndexesGiveNone) {
  auto s = InferText(
      Model(9, "g (int64[N,C] x) => (float[] y, float[] z)",
            "y = TfIdfVectorizer <mode = \"TF\", min_gram_length = 1, max_gram_length = 1, "
            "max_skip_count = 0, ngram_counts = [0], ngram_indexes = [9223372036854775807], pool_int64s = [1]> (x)\n"
            "z = TfIdfVectorizer <mode = \"TF\", min_gram_length = 1, max_gram_length = 1, "
            "max_skip_count = 0, ngram_counts = [0], ngram_indexes = [-3], pool_int64s = [1]> (x)"));
  EXPECT_EQ(s.Get("y"), "float[N,?]");
  EXPECT_EQ(s.Get("z"), "float[N,?]");
}

}  // namespace
}  // namespace onnxopt::testing
