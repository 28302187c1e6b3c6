"""Differential cases of the string kernels (onnx_extensions/kernels/string_kernels.cc):
StringNormalizer, StringConcat, StringSplit, RegexFullMatch, TfIdfVectorizer.

onnxruntime's StringNormalizer builds the C++ locale named by the node (en_US.UTF-8 when
absent) and fails where the machine lacks it (this one has only C and C.UTF-8): cases of
the default locale are "spec" cases whose expected values are glibc's en_US.UTF-8
mappings (what onnxruntime returns where the locale is installed, checked with a locale
built by localedef). StringSplit follows the specification's reference implementation
(Python's str.split); onnxruntime splits on spaces only and drops the empty substring of
an empty input."""
import numpy as np

from differential import Case

CASES = []


def add(**kwargs):
    CASES.append(Case(**kwargs))


def strings(*values, shape=None):
    a = np.array(list(values), dtype=object)
    return a.reshape(shape) if shape is not None else a


# --- StringNormalizer ------------------------------------------------------------------------
WORDS = strings("Monday", "tuesday", "MONDAY", "Été", "straße", "x")
for action in ["NONE", "LOWER", "UPPER"]:
    add(op="StringNormalizer", opset=10, name=f"stringnormalizer_c_{action.lower()}",
        attrs={"case_change_action": action, "locale": "C"}, inputs=[("x", WORDS)])
    add(op="StringNormalizer", opset=10, name=f"stringnormalizer_c_stopwords_{action.lower()}",
        attrs={"case_change_action": action, "locale": "C", "stopwords": ["monday", "x"]}, inputs=[("x", WORDS)])
    add(op="StringNormalizer", opset=10, name=f"stringnormalizer_c_case_sensitive_{action.lower()}",
        attrs={"case_change_action": action, "locale": "C", "stopwords": ["monday", "x"], "is_case_sensitive": 1},
        inputs=[("x", WORDS)])
add(op="StringNormalizer", opset=10, name="stringnormalizer_c_row", attrs={"locale": "C", "stopwords": ["b"]},
    inputs=[("x", strings("a", "b", "c", shape=[1, 3]))])
add(op="StringNormalizer", opset=10, name="stringnormalizer_c_all_stopwords", attrs={"locale": "C", "stopwords": ["a"]},
    inputs=[("x", strings("a", "a"))])
add(op="StringNormalizer", opset=10, name="stringnormalizer_c_all_stopwords_row",
    attrs={"locale": "C", "stopwords": ["a", "b"]}, inputs=[("x", strings("a", "b", shape=[1, 2]))])
add(op="StringNormalizer", opset=10, name="stringnormalizer_c_case_sensitive_two",
    attrs={"locale": "C", "stopwords": ["a"], "is_case_sensitive": 2}, inputs=[("x", strings("a", "A"))])
add(op="StringNormalizer", opset=10, name="stringnormalizer_c_empty_strings",
    attrs={"locale": "C", "case_change_action": "UPPER", "stopwords": [""]}, inputs=[("x", strings("", "a", ""))])
add(op="StringNormalizer", opset=10, name="stringnormalizer_shape_2x2", attrs={"locale": "C"},
    inputs=[("x", strings("a", "b", "c", "d", shape=[2, 2]))], expect="error")
add(op="StringNormalizer", opset=10, name="stringnormalizer_empty", attrs={"locale": "C"},
    inputs=[("x", np.zeros([0], dtype=object))], expect="error")
add(op="StringNormalizer", opset=10, name="stringnormalizer_scalar", attrs={"locale": "C"},
    inputs=[("x", np.array("a", dtype=object))], expect="error")
add(op="StringNormalizer", opset=10, name="stringnormalizer_bad_action",
    attrs={"locale": "C", "case_change_action": "upper"}, inputs=[("x", strings("a"))], expect="error")

EN_US = ("onnxruntime builds std::locale('en_US.UTF-8') and fails where it is not installed (here); expected: "
         "glibc's en_US.UTF-8 simple case mapping, which onnxruntime returns where the locale is installed")
UNICODE = strings("été", "ǆemal", "straße", "ΣΑΣ", "ſ", "İi", "ﬁ")
add(op="StringNormalizer", opset=10, name="stringnormalizer_en_us_upper", attrs={"case_change_action": "UPPER"},
    inputs=[("x", UNICODE)], expect="spec", reason=EN_US,
    expected=[strings("ÉTÉ", "ǄEMAL", "STRAßE", "ΣΑΣ", "S", "İI", "ﬁ")])
add(op="StringNormalizer", opset=10, name="stringnormalizer_en_us_lower", attrs={"case_change_action": "LOWER"},
    inputs=[("x", UNICODE)], expect="spec", reason=EN_US,
    expected=[strings("été", "ǆemal", "straße", "σασ", "ſ", "ii", "ﬁ")])
add(op="StringNormalizer", opset=10, name="stringnormalizer_en_us_stopwords",
    attrs={"stopwords": ["ÉTÉ", "stop"]}, inputs=[("x", strings("été", "ſtop", "STOP", "Été"))], expect="spec",
    reason=EN_US + " (stop words are compared lowercased: 'ſtop' stays)", expected=[strings("ſtop")])
add(op="StringNormalizer", opset=10, name="stringnormalizer_turkish_upper",
    attrs={"case_change_action": "UPPER", "locale": "tr_TR.UTF-8"}, inputs=[("x", strings("istanbul", "ılık"))],
    expect="spec", expected=[strings("İSTANBUL", "ILIK")],
    reason="onnxruntime fails where tr_TR.UTF-8 is not installed; glibc's Turkish mapping sends i to U+0130")

# --- StringConcat ---------------------------------------------------------------------------------
add(op="StringConcat", opset=20, name="stringconcat_elementwise",
    inputs=[("x", strings("abc", "def", "")), ("y", strings(".com", "", ""))])
add(op="StringConcat", opset=20, name="stringconcat_broadcast",
    inputs=[("x", strings("a", "b", shape=[2, 1])), ("y", strings("1", "2", "3"))])
add(op="StringConcat", opset=20, name="stringconcat_scalars",
    inputs=[("x", np.array("cat", dtype=object)), ("y", np.array("s", dtype=object))])
add(op="StringConcat", opset=20, name="stringconcat_utf8", inputs=[("x", strings("的", "中")), ("y", strings("é", "💡"))])
add(op="StringConcat", opset=20, name="stringconcat_empty",
    inputs=[("x", np.zeros([0, 3], dtype=object)), ("y", strings("1", "2", "3"))])
add(op="StringConcat", opset=20, name="stringconcat_incompatible",
    inputs=[("x", strings("a", "b")), ("y", strings("1", "2", "3"))], expect="error")


# --- StringSplit -----------------------------------------------------------------------------------
def python_split(x, delimiter=None, maxsplit=None):
    """The reference implementation: str.split on each element, padded with ''."""
    parts = [s.split(delimiter or None, -1 if maxsplit is None else maxsplit) for s in x.reshape(-1)]
    width = max([len(p) for p in parts], default=0)
    y = np.array([p + [""] * (width - len(p)) for p in parts], dtype=object).reshape(list(x.shape) + [width])
    z = np.array([len(p) for p in parts], dtype=np.int64).reshape(x.shape)
    return [y, z]


SPLIT_CASES = [
    ("basic", strings("abc.com", "def.net"), {"delimiter": "."}),
    ("consecutive_delimiters", strings("o-n-n--x-", "o-n----nx"), {"delimiter": "-"}),
    ("multichar_delimiter", strings("a<>b<><>c", "<><"), {"delimiter": "<>"}),
    ("overlapping_delimiter", strings("aaa"), {"delimiter": "aa"}),
    ("maxsplit_delimiter", strings("a.b.c", "a..b"), {"delimiter": ".", "maxsplit": 1}),
    ("maxsplit_zero_delimiter", strings("a.b.c"), {"delimiter": ".", "maxsplit": 0}),
    ("spaces", strings("hello world !", "  hello   world !", " hello world   ! "), {}),
    ("spaces_empty_delimiter", strings("hello world !", "  a  "), {"delimiter": ""}),
    ("maxsplit_spaces", strings("hello world", "def.net", "o n n x", "the quick brown fox", shape=[2, 2]),
     {"maxsplit": 2}),
    ("unlimited_maxsplit", strings("a b c"), {"maxsplit": -1}),
    ("utf8", strings("的 中 é", "💡💡"), {}),
    ("utf8_delimiter", strings("a的b的c"), {"delimiter": "的"}),
    ("scalar", np.array("p q r", dtype=object), {}),
]
for name, x, attrs in SPLIT_CASES:
    add(op="StringSplit", opset=20, name=f"stringsplit_{name}", attrs=attrs, inputs=[("x", x)], outputs=2)
add(op="StringSplit", opset=20, name="stringsplit_empty_tensor", inputs=[("x", np.zeros([0], dtype=object))], outputs=2)
add(op="StringSplit", opset=20, name="stringsplit_empty_tensor_2d", inputs=[("x", np.zeros([2, 0], dtype=object))],
    outputs=2)
add(op="StringSplit", opset=20, name="stringsplit_all_empty_spaces", inputs=[("x", strings("", " "))], outputs=2)
SPLIT_SPEC = [
    ("tabs_and_newlines", strings("a\tb\nc", " x\r\ny "), {},
     "onnxruntime splits on ' ' only; Python's str.split (the reference) on all whitespace"),
    ("unicode_spaces", strings("a\u00a0b\u3000c"), {},
     "onnxruntime splits on ' ' only; Python's str.split (the reference) on Unicode whitespace"),
    ("maxsplit_keeps_trailing_spaces", strings("  a b c  "), {"maxsplit": 1},
     "onnxruntime strips the remainder's trailing spaces; str.split keeps them"),
    ("maxsplit_zero_spaces", strings("  a b c  "), {"maxsplit": 0},
     "onnxruntime strips the remainder's trailing spaces; str.split keeps them"),
    ("empty_string_with_delimiter", strings("", "a."), {"delimiter": "."},
     "onnxruntime returns no substring for ''; ''.split('.') is [''] (one substring)"),
]
for name, x, attrs, reason in SPLIT_SPEC:
    add(op="StringSplit", opset=20, name=f"stringsplit_{name}", attrs=attrs, inputs=[("x", x)], outputs=2,
        expect="spec", expected=python_split(x, attrs.get("delimiter"), attrs.get("maxsplit")), reason=reason)

# --- RegexFullMatch ----------------------------------------------------------------------------------
REGEX_CASES = [
    ("basic", r"www\.[\w.-]+\.\bcom\b", strings("www.google.com", "www.facebook.com", "www.bbc.co.uk")),
    ("email", r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)",
     strings("account@gmail.com", "account@hotmail.com", "not email", "account2@yahoo.com", shape=[2, 2])),
    ("partial_is_not_full", "a.c", strings("abc", "abcd", "xabc", "")),
    ("empty_pattern", "", strings("", "a")),
    ("unicode_dot", "^.$", strings("é", "ab", "💡")),
    ("alternation", "a|ab", strings("a", "ab", "b")),
    ("case_insensitive_flag", "(?i)hello", strings("HeLLo", "hell")),
    ("empty_tensor", "a", np.zeros([0, 2], dtype=object)),
]
for name, pattern, x in REGEX_CASES:
    add(op="RegexFullMatch", opset=20, name=f"regexfullmatch_{name}", attrs={"pattern": pattern}, inputs=[("x", x)])
add(op="RegexFullMatch", opset=20, name="regexfullmatch_invalid_pattern", attrs={"pattern": "("},
    inputs=[("x", strings("a"))], expect="error")
add(op="RegexFullMatch", opset=20, name="regexfullmatch_backreference", attrs={"pattern": r"(a)\1"},
    inputs=[("x", strings("aa"))], expect="error")

# --- TfIdfVectorizer ------------------------------------------------------------------------------------
# The backend tests' pool: 1-grams [2, 3, 5, 4], 2-grams [5, 6], [7, 8], [6, 7].
POOL = {"ngram_counts": [0, 4], "ngram_indexes": [0, 1, 2, 3, 4, 5, 6], "pool_int64s": [2, 3, 5, 4, 5, 6, 7, 8, 6, 7]}
X1 = np.array([1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8], np.int32)
X2 = X1.reshape(2, 6)
for mode in ["TF", "IDF", "TFIDF"]:
    for lo, hi in [(1, 1), (2, 2), (1, 2)]:
        for skip in [0, 1, 5]:
            for rank, x in [(1, X1), (2, X2)]:
                add(op="TfIdfVectorizer", opset=9, name=f"tfidfvectorizer_{mode.lower()}_{lo}to{hi}_skip{skip}_rank{rank}",
                    attrs={"mode": mode, "min_gram_length": lo, "max_gram_length": hi, "max_skip_count": skip,
                           "weights": [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5], **POOL}, inputs=[("x", x)])
BASE = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 1}
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_int64_input", attrs={**BASE, **POOL},
    inputs=[("x", X1.astype(np.int64))])
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_strings",
    attrs={**BASE, "ngram_counts": [0, 2], "ngram_indexes": [2, 0, 1], "pool_strings": ["a", "b", "a", "b"]},
    inputs=[("x", strings("a", "b", "a", "c", "b"))])
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_sparse_indexes",
    attrs={**BASE, **POOL, "ngram_indexes": [5, 0, 2, 9, 1, 3, 4]}, inputs=[("x", X1)])
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_shared_indexes",
    attrs={**BASE, **POOL, "ngram_indexes": [0, 0, 1, 1, 2, 2, 2]}, inputs=[("x", X1)])
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_empty_row", attrs={**BASE, **POOL},
    inputs=[("x", np.zeros([0], np.int32))])
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_empty_rows_2d", attrs={**BASE, **POOL},
    inputs=[("x", np.zeros([2, 0], np.int32))])
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_no_rows", attrs={**BASE, **POOL},
    inputs=[("x", np.zeros([0, 3], np.int32))], expect="spec", expected=[np.zeros([0, 7], np.float32)],
    reason="onnxruntime refuses a batch of 0 rows; the spec gives an output of shape [0, 7]")
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_max_gram_beyond_pool",
    attrs={**BASE, **POOL, "max_gram_length": 3}, inputs=[("x", X1)], expect="spec",
    expected=[np.array([0, 3, 1, 0, 1, 1, 1], np.float32)],
    reason="onnxruntime refuses max_gram_length above the n-gram lengths of ngram_counts; the pool simply has no "
           "3-gram (the counts of 1- and 2-grams with skips up to 1)")
for name, attrs in [("min_above_max", {"min_gram_length": 2, "max_gram_length": 1}),
                    ("min_zero", {"min_gram_length": 0}),
                    ("negative_skip", {"max_skip_count": -1}),
                    ("bad_mode", {"mode": "tf"}),
                    ("counts_not_multiple", {"ngram_counts": [0, 3]}),
                    ("counts_beyond_pool", {"ngram_counts": [0, 11]}),
                    ("counts_decreasing", {"ngram_counts": [3, 0]}),
                    ("negative_index", {"ngram_indexes": [0, -1, 2, 3, 4, 5, 6]})]:
    add(op="TfIdfVectorizer", opset=9, name=f"tfidfvectorizer_{name}", attrs={**BASE, **POOL, **attrs},
        inputs=[("x", X1)], expect="error")
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_duplicate_ngram",
    attrs={**BASE, "max_gram_length": 1, "ngram_counts": [0], "ngram_indexes": [0, 1], "pool_int64s": [1, 1]},
    inputs=[("x", X1)],
    expect="error")
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_rank3", attrs={**BASE, **POOL},
    inputs=[("x", X2.reshape(1, 2, 6))], expect="error")
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_both_pools",
    attrs={**BASE, "max_gram_length": 1, "ngram_counts": [0], "ngram_indexes": [0], "pool_int64s": [1],
           "pool_strings": ["a"]},
    inputs=[("x", X1)], expect="onnxopt-error",
    reason="only one of pool_strings and pool_int64s can be set (the spec); onnxruntime uses pool_int64s")
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_strings_pool_integer_input",
    attrs={**BASE, "max_gram_length": 1, "ngram_counts": [0], "ngram_indexes": [0], "pool_strings": ["a"]},
    inputs=[("x", X1)],
    expect="onnxopt-error", reason="with pool_strings the input must be a string tensor (the spec); onnxruntime "
                                   "counts nothing")
add(op="TfIdfVectorizer", opset=9, name="tfidfvectorizer_more_indexes_than_ngrams",
    attrs={**BASE, **POOL, "ngram_indexes": [0, 1, 2, 3, 4, 5, 6, 7]}, inputs=[("x", X1)], expect="onnxopt-error",
    reason="ngram_indexes is parallel to the pool's n-grams (the spec); onnxruntime reads only the first ones")
