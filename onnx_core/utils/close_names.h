#pragma once
// CloseNames: the known names a mistyped one most likely meant, for the "did you mean"
// of error messages (command names, options, pattern and family names).

#include <string>
#include <string_view>
#include <vector>

namespace onnxopt::utils {

// Levenshtein distance: the fewest insertions, deletions and substitutions of single
// characters that turn `a` into `b`.
std::size_t EditDistance(std::string_view a, std::string_view b);

// The `candidates` close to `word`, case ignored: first those a typo away (about one edit
// per three letters of `word`, at least two), closest first and at most one edit further
// than the closest; then those that contain `word` (three letters or more), shorter
// first; ties keep the candidates' order. At most `limit`. `implied_suffix` is a suffix users often leave out ("pattern" of pattern
// names): `word` with it appended is measured too.
std::vector<std::string> CloseNames(std::string_view word, const std::vector<std::string>& candidates,
                                    std::size_t limit = 3, std::string_view implied_suffix = {});

// "; did you mean 'A', 'B' or 'C'?" (each name between two `quote`s), or an empty string
// when `names` is empty: appended to an error message.
std::string DidYouMean(const std::vector<std::string>& names, std::string_view quote = "'");

}  // namespace onnxopt::utils
