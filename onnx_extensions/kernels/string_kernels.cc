// Kernels of the string operators: StringNormalizer (10), StringConcat, StringSplit and
// RegexFullMatch (20), and TfIdfVectorizer (9), which counts n-grams of strings or
// integers.
//
// Where onnxruntime and the specification's reference implementation differ, these
// kernels follow the specification: StringSplit splits like Python's str.split (the
// reference), on Unicode whitespace when no delimiter is given, where onnxruntime splits
// on spaces only.

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/kernel_signature.h"
#include "onnx_extensions/kernels/unicode_text.h"

namespace onnxopt::onnx_kernels {
namespace {

using unicode::CaseRules;

const Tensor& StringInput(const KernelContext& ctx, std::size_t i, std::string_view what) {
  return TypedInput(ctx, i, what, {TensorProto::STRING});
}

std::vector<std::string> StringsAttribute(const KernelContext& ctx, std::string_view name) {
  const AttributeProto* a = ctx.Attribute(name);
  if (!a) return {};
  if (a->type() != AttributeProto::STRINGS) Fail("attribute " + std::string(name) + " must be a list of strings");
  return {a->strings().begin(), a->strings().end()};
}

// StringNormalizer ----------------------------------------------------------------------

// The case rules of a StringNormalizer locale. onnxruntime builds a std::locale of that
// name (en_US.UTF-8 when absent) and fails when the machine lacks it; onnxopt answers
// without the machine's locales: "C" and "POSIX" change ASCII letters only, Turkish and
// Azeri locales (tr*, az*) map i to U+0130 and I to U+0131, every other name maps all
// of Unicode as en_US.UTF-8 does.
CaseRules CaseRulesOf(std::string_view locale) {
  if (locale == "C" || locale == "POSIX") return CaseRules::kAscii;
  const std::string_view language = locale.substr(0, locale.find_first_of("_.@-"));
  if (language == "tr" || language == "az") return CaseRules::kTurkic;
  return CaseRules::kUnicode;
}

std::vector<Value> StringNormalizerKernel(KernelContext& ctx) {
  CheckArity(ctx, 1, 1, 1);
  const Tensor& x = StringInput(ctx, 0, "input 'X'");
  const Shape& shape = x.shape();
  const bool two_d = shape.size() == 2;
  if (!((shape.size() == 1 || (two_d && shape[0] == 1)) && shape.back() > 0))
    Fail("input 'X' must have shape [C] or [1, C] with C > 0, found " + ShapeToString(shape));
  const std::string action = ctx.StringAttribute("case_change_action").value_or("NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER")
    Fail("attribute case_change_action must be NONE, LOWER or UPPER, found '" + action + "'");
  // onnxruntime takes any non-zero value as true.
  const bool case_sensitive = ctx.IntAttribute("is_case_sensitive").value_or(0) != 0;
  const CaseRules rules = CaseRulesOf(ctx.StringAttribute("locale").value_or(""));
  const auto lower = [&](const std::string& s, const std::string& what) {
    auto mapped = unicode::MapCodePoints(s, [&](char32_t c) { return unicode::ToLower(c, rules); });
    if (!mapped) Fail(what + " is not valid UTF-8");
    return *mapped;
  };
  // Stop words match exactly, or after lowercasing both sides.
  std::unordered_set<std::string> stopwords;
  for (const std::string& word : StringsAttribute(ctx, "stopwords"))
    stopwords.insert(case_sensitive ? word : lower(word, "stop word '" + word + "'"));

  const std::string* in = x.Data<std::string>();
  std::vector<std::string> kept;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const std::string what = "element " + std::to_string(i) + " of input 'X'";
    if (!stopwords.empty() || action != "NONE") {
      // onnxruntime decodes every element as soon as it has anything to do.
      if (!unicode::IsValidUtf8(in[i])) Fail(what + " is not valid UTF-8");
    }
    if (!stopwords.empty() && stopwords.contains(case_sensitive ? in[i] : lower(in[i], what))) continue;
    if (action == "NONE") {
      kept.push_back(in[i]);
    } else {
      const bool upper = action == "UPPER";
      kept.push_back(*unicode::MapCodePoints(
          in[i], [&](char32_t c) { return upper ? unicode::ToUpper(c, rules) : unicode::ToLower(c, rules); }));
    }
  }
  // When every element is a stop word the output is one empty string.
  if (kept.empty()) kept.emplace_back();
  const auto count = static_cast<std::int64_t>(kept.size());
  Tensor y(TensorProto::STRING, two_d ? Shape{1, count} : Shape{count});
  std::move(kept.begin(), kept.end(), y.MutableData<std::string>());
  return {y};
}

// StringConcat --------------------------------------------------------------------------

std::vector<Value> StringConcatKernel(KernelContext& ctx) {
  CheckArity(ctx, 2, 2, 1);
  const Tensor& x = StringInput(ctx, 0, "input 'X'");
  const Tensor& y = StringInput(ctx, 1, "input 'Y'");
  const Shape shape = BroadcastShapes({x.shape(), y.shape()});
  Tensor z(TensorProto::STRING, shape);
  const std::string* a = x.Data<std::string>();
  const std::string* b = y.Data<std::string>();
  // Broadcasting one string of 10 MB against 1000 empty ones makes 10 GB of characters.
  StringCopies copies("the characters of StringConcat's output");
  std::string* out = z.MutableData<std::string>();
  ForEachBroadcast<2>(shape, {&x.shape(), &y.shape()}, [&](std::int64_t i, const std::array<std::int64_t, 2>& at) {
    copies.Count(a[at[0]]);
    copies.Count(b[at[1]]);
    out[i] = a[at[0]] + b[at[1]];
  });
  return {z};
}

// StringSplit ---------------------------------------------------------------------------

// Python's s.split(delimiter, maxsplit): maxsplit < 0 is unlimited; an empty string
// gives one empty substring.
std::vector<std::string_view> SplitOnDelimiter(std::string_view s, std::string_view delimiter, std::int64_t maxsplit) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::int64_t splits = 0; maxsplit < 0 || splits < maxsplit; ++splits) {
    const std::size_t at = s.find(delimiter, start);
    if (at == std::string_view::npos) break;
    parts.push_back(s.substr(start, at - start));
    start = at + delimiter.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

// Python's s.split(None, maxsplit): runs of whitespace separate, leading whitespace is
// dropped; after maxsplit splits the rest of the string, from its first non-space
// character, is the last substring (its trailing whitespace kept).
std::vector<std::string_view> SplitOnWhitespace(std::string_view s, std::int64_t maxsplit) {
  // Bytes that are not valid UTF-8 are single non-space characters.
  const auto space_length = [&](std::size_t i) -> std::size_t {
    const auto d = unicode::DecodeAt(s, i);
    return d && unicode::IsPythonSpace(d->code_point) ? d->length : 0;
  };
  const auto char_length = [&](std::size_t i) -> std::size_t {
    const auto d = unicode::DecodeAt(s, i);
    return d ? d->length : 1;
  };
  const auto skip_spaces = [&](std::size_t i) {
    while (i < s.size()) {
      const std::size_t n = space_length(i);
      if (n == 0) break;
      i += n;
    }
    return i;
  };
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  for (std::int64_t splits = 0; maxsplit < 0 || splits < maxsplit; ++splits) {
    i = skip_spaces(i);
    if (i == s.size()) return parts;
    const std::size_t begin = i;
    while (i < s.size() && space_length(i) == 0) i += char_length(i);
    parts.push_back(s.substr(begin, i - begin));
  }
  i = skip_spaces(i);
  if (i < s.size()) parts.push_back(s.substr(i));
  return parts;
}

std::vector<Value> StringSplitKernel(KernelContext& ctx) {
  CheckArity(ctx, 1, 1, 2);
  const Tensor& x = StringInput(ctx, 0, "input 'X'");
  const std::string delimiter = ctx.StringAttribute("delimiter").value_or("");
  const std::int64_t maxsplit = ctx.IntAttribute("maxsplit").value_or(-1);
  const std::string* in = x.Data<std::string>();
  std::vector<std::vector<std::string_view>> parts(static_cast<std::size_t>(x.size()));
  std::int64_t width = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    parts[i] = delimiter.empty() ? SplitOnWhitespace(in[i], maxsplit) : SplitOnDelimiter(in[i], delimiter, maxsplit);
    width = std::max(width, static_cast<std::int64_t>(parts[i].size()));
  }
  Shape y_shape = x.shape();
  y_shape.push_back(width);
  Tensor y(TensorProto::STRING, y_shape);
  Tensor z(TensorProto::INT64, x.shape());
  std::string* out = y.MutableData<std::string>();
  std::int64_t* counts = z.MutableData<std::int64_t>();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    counts[i] = static_cast<std::int64_t>(parts[i].size());
    for (std::size_t k = 0; k < parts[i].size(); ++k)
      out[static_cast<std::int64_t>(i) * width + static_cast<std::int64_t>(k)] = parts[i][k];
  }
  return {y, z};
}

// RegexFullMatch ------------------------------------------------------------------------

std::vector<Value> RegexFullMatchKernel(KernelContext& ctx) {
  CheckArity(ctx, 1, 1, 1);
  const Tensor& x = StringInput(ctx, 0, "input 'X'");
  const std::optional<std::string> pattern = ctx.StringAttribute("pattern");
  if (!pattern) Fail("attribute pattern is required");
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 regex(*pattern, options);
  if (!regex.ok()) Fail("attribute pattern is not a valid RE2 expression: " + regex.error());
  Tensor y(TensorProto::BOOL, x.shape());
  const std::string* in = x.Data<std::string>();
  bool* out = y.MutableData<bool>();
  for (std::int64_t i = 0; i < x.size(); ++i) out[i] = RE2::FullMatch(in[i], regex);
  return {y};
}

// TfIdfVectorizer -----------------------------------------------------------------------

std::int64_t RequiredInt(const KernelContext& ctx, std::string_view name) {
  const auto v = ctx.IntAttribute(name);
  if (!v) Fail("attribute " + std::string(name) + " is required");
  return *v;
}

std::vector<std::int64_t> RequiredInts(const KernelContext& ctx, std::string_view name) {
  auto v = ctx.IntsAttribute(name);
  if (!v) Fail("attribute " + std::string(name) + " is required");
  return std::move(*v);
}

// The pool's n-grams, keyed by their items, with the n-gram's position in the pool
// (which indexes ngram_indexes and weights).
template <class Item>
struct NgramPool {
  std::vector<std::map<std::vector<Item>, std::size_t>> by_length;  // by_length[n - 1]
  std::size_t count = 0;
};

// ngram_counts[k] is the offset in the pool of the (k+1)-grams, which run to the next
// offset (the end of the pool for the last one).
template <class Item>
NgramPool<Item> ReadPool(const std::vector<Item>& pool, const std::vector<std::int64_t>& ngram_counts) {
  if (ngram_counts.empty() || ngram_counts[0] != 0)
    Fail("attribute ngram_counts must start with 0 (the offset of the 1-grams in the pool)");
  NgramPool<Item> result;
  const auto size = static_cast<std::int64_t>(pool.size());
  for (std::size_t k = 0; k < ngram_counts.size(); ++k) {
    const std::int64_t begin = ngram_counts[k];
    const std::int64_t end = k + 1 < ngram_counts.size() ? ngram_counts[k + 1] : size;
    const auto n = static_cast<std::int64_t>(k + 1);
    if (begin > end || end > size)
      Fail("attribute ngram_counts must be non-decreasing offsets within the pool of " + std::to_string(size) +
           " items, found " + std::to_string(begin) + " then " + std::to_string(end));
    if ((end - begin) % n != 0)
      Fail("the " + std::to_string(n) + "-grams of the pool take " + std::to_string(end - begin) +
           " items, not a multiple of " + std::to_string(n));
    auto& map = result.by_length.emplace_back();
    for (std::int64_t at = begin; at < end; at += n) {
      std::vector<Item> ngram(pool.begin() + at, pool.begin() + at + n);
      if (!map.emplace(std::move(ngram), result.count).second)
        Fail("the pool lists a " + std::to_string(n) + "-gram twice (at item " + std::to_string(at) + ")");
      ++result.count;
    }
  }
  return result;
}

struct NgramSettings {
  std::int64_t min_length, max_length, max_skip;
};

// Adds to counts[g] the occurrences in `row` of pool n-gram g: every n in
// [min_length, max_length], every skip in [0, max_skip] (the items of an n-gram are
// skip + 1 apart; 1-grams are counted once, whatever the skip).
template <class Item>
void CountNgrams(const Item* row, std::int64_t length, const NgramPool<Item>& pool, const NgramSettings& s,
                 std::vector<std::int64_t>& counts) {
  std::vector<Item> ngram;
  for (std::int64_t n = s.min_length; n <= s.max_length && n <= static_cast<std::int64_t>(pool.by_length.size()); ++n) {
    const auto& map = pool.by_length[static_cast<std::size_t>(n - 1)];
    if (map.empty()) continue;
    for (std::int64_t skip = 0; skip <= (n == 1 ? 0 : s.max_skip); ++skip) {
      const std::int64_t span = (n - 1) * (skip + 1);  // from the first item to the last
      if (span >= length) break;
      for (std::int64_t start = 0; start + span < length; ++start) {
        ngram.clear();
        for (std::int64_t k = 0; k < n; ++k) ngram.push_back(row[start + k * (skip + 1)]);
        if (auto it = map.find(ngram); it != map.end()) ++counts[it->second];
      }
    }
  }
}

// Output index and weight of each pool n-gram, checked against the pool.
struct NgramOutputs {
  std::vector<std::int64_t> indexes;
  std::vector<float> weights;  // empty: all 1
  std::int64_t width = 0;      // max(indexes) + 1
};

NgramOutputs ReadNgramOutputs(const KernelContext& ctx, std::size_t pool_ngrams) {
  NgramOutputs o{RequiredInts(ctx, "ngram_indexes"), ctx.FloatsAttribute("weights").value_or(std::vector<float>{})};
  if (o.indexes.empty() || o.indexes.size() != pool_ngrams)
    Fail("attribute ngram_indexes has " + std::to_string(o.indexes.size()) + " entries for the " +
         std::to_string(pool_ngrams) + " n-grams of the pool (at least one is needed)");
  if (!o.weights.empty() && o.weights.size() != pool_ngrams)
    Fail("attribute weights has " + std::to_string(o.weights.size()) + " entries for the " +
         std::to_string(pool_ngrams) + " n-grams of the pool");
  for (std::int64_t index : o.indexes) {
    if (index < 0 || index >= MaxElementCount())
      Fail("attribute ngram_indexes holds the index " + std::to_string(index) + ", outside [0, " +
           std::to_string(MaxElementCount()) + ")");
    o.width = std::max(o.width, index + 1);
  }
  return o;
}

// Y[row, ngram_indexes[g]] += TF: count, IDF: weight when count > 0, TFIDF: count * weight.
template <class Item>
Tensor Vectorize(const KernelContext& ctx, const Tensor& x, const std::vector<Item>& items,
                 const std::vector<Item>& pool_items, const std::string& mode, const NgramSettings& settings) {
  const NgramPool<Item> pool = ReadPool(pool_items, RequiredInts(ctx, "ngram_counts"));
  const NgramOutputs outputs = ReadNgramOutputs(ctx, pool.count);
  const std::int64_t rows = x.rank() == 2 ? x.shape()[0] : 1;
  const std::int64_t length = x.shape().back();
  Tensor y(TensorProto::FLOAT, x.rank() == 2 ? Shape{rows, outputs.width} : Shape{outputs.width});
  // Each row is scanned once per n-gram length of the pool and per skip: with a large
  // max_skip_count that is about length^2 n-grams of n items per row (a row of 10^4
  // items and 2-grams: 10^8 look-ups), not bounded by the input or the output.
  double scanned_items = 0;
  for (std::int64_t n = settings.min_length;
       n <= settings.max_length && n <= static_cast<std::int64_t>(pool.by_length.size()); ++n) {
    if (pool.by_length[static_cast<std::size_t>(n - 1)].empty()) continue;
    // Skips until the n-gram spans the whole row ((n - 1) * (skip + 1) < length).
    const double skips = n == 1 ? 1.0
                                : std::min(static_cast<double>(settings.max_skip) + 1,
                                           std::ceil(static_cast<double>(length) / static_cast<double>(n - 1)));
    scanned_items += skips * static_cast<double>(length) * static_cast<double>(n);
  }
  ChargeWork(static_cast<double>(rows) * scanned_items, "TfIdfVectorizer's n-gram scan");
  float* out = y.MutableData<float>();
  std::vector<std::int64_t> counts(pool.count);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::fill(counts.begin(), counts.end(), 0);
    CountNgrams(items.data() + r * length, length, pool, settings, counts);
    for (std::size_t g = 0; g < pool.count; ++g) {
      if (counts[g] == 0) continue;
      const float weight = outputs.weights.empty() ? 1.0f : outputs.weights[g];
      const auto count = static_cast<float>(counts[g]);
      out[r * outputs.width + outputs.indexes[g]] += mode == "TF" ? count : mode == "IDF" ? weight : count * weight;
    }
  }
  return y;
}

std::vector<Value> TfIdfVectorizerKernel(KernelContext& ctx) {
  CheckArity(ctx, 1, 1, 1);
  const Tensor& x = TypedInput(ctx, 0, "input 'X'", {TensorProto::STRING, TensorProto::INT32, TensorProto::INT64});
  if (x.rank() != 1 && x.rank() != 2) Fail("input 'X' must have rank 1 or 2, found shape " + ShapeToString(x.shape()));
  const std::string mode = ctx.StringAttribute("mode").value_or("");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    Fail("attribute mode must be TF, IDF or TFIDF, found '" + mode + "'");
  const NgramSettings settings{RequiredInt(ctx, "min_gram_length"), RequiredInt(ctx, "max_gram_length"),
                               RequiredInt(ctx, "max_skip_count")};
  if (settings.min_length < 1 || settings.max_length < settings.min_length)
    Fail("attributes min_gram_length and max_gram_length must satisfy 1 <= min <= max, found " +
         std::to_string(settings.min_length) + " and " + std::to_string(settings.max_length));
  if (settings.max_skip < 0) Fail("attribute max_skip_count must be >= 0, found " + std::to_string(settings.max_skip));
  const bool has_strings = ctx.Attribute("pool_strings") != nullptr;
  if (has_strings == (ctx.Attribute("pool_int64s") != nullptr))
    Fail("exactly one of the attributes pool_strings and pool_int64s must be given");
  if (has_strings != (x.elem_type() == TensorProto::STRING))
    Fail(std::string("input 'X' must be ") +
         (has_strings ? "a string tensor (pool_strings is given)" : "an int32 or int64 tensor (pool_int64s is given)") +
         ", found " + ElemTypeName(x.elem_type()));
  if (has_strings) {
    const std::vector<std::string> pool = StringsAttribute(ctx, "pool_strings");
    const std::string* data = x.Data<std::string>();
    return {Vectorize(ctx, x, std::vector<std::string_view>(data, data + x.size()),
                      std::vector<std::string_view>(pool.begin(), pool.end()), mode, settings)};
  }
  return {Vectorize(ctx, x, x.ToInt64Vector(), RequiredInts(ctx, "pool_int64s"), mode, settings)};
}

}  // namespace

void RegisterStringKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "StringNormalizer", StringNormalizerKernel);
  RegisterKernel("", "StringConcat", StringConcatKernel);
  RegisterKernel("", "StringSplit", StringSplitKernel);
  RegisterKernel("", "RegexFullMatch", RegexFullMatchKernel);
  RegisterKernel("", "TfIdfVectorizer", TfIdfVectorizerKernel);
}

}  // namespace onnxopt::onnx_kernels
