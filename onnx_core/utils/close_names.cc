#include "onnx_core/utils/close_names.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace onnxopt::utils {

namespace {

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace

std::size_t EditDistance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table at a time.
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> CloseNames(std::string_view word, const std::vector<std::string>& candidates,
                                    std::size_t limit, std::string_view implied_suffix) {
  const std::string wanted = Lowercase(word);
  if (wanted.empty()) return {};
  const std::string wanted_with_suffix = wanted + Lowercase(implied_suffix);
  // A typo costs about one edit per three letters; a part of the name ranks after the
  // typos, shorter names first.
  const std::size_t typo_budget = std::max<std::size_t>(2, wanted.size() / 3);
  std::vector<std::pair<std::size_t, const std::string*>> ranked;
  for (const std::string& candidate : candidates) {
    const std::string lower = Lowercase(candidate);
    std::size_t distance = EditDistance(wanted, lower);
    if (!implied_suffix.empty()) distance = std::min(distance, EditDistance(wanted_with_suffix, lower));
    if (distance <= typo_budget)
      ranked.emplace_back(distance, &candidate);
    else if (wanted.size() >= 3 && lower.find(wanted) != std::string::npos)
      ranked.emplace_back(typo_budget + 1 + lower.size(), &candidate);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  // Beside a near miss, a typo two edits further is noise.
  const std::size_t typo_limit = ranked.empty() ? 0 : std::min(typo_budget, ranked.front().first + 1);
  std::vector<std::string> names;
  for (const auto& [distance, name] : ranked) {
    if (names.size() == limit) break;
    if (distance > typo_limit && distance <= typo_budget) continue;
    if (std::find(names.begin(), names.end(), *name) == names.end()) names.push_back(*name);
  }
  return names;
}

std::string DidYouMean(const std::vector<std::string>& names, std::string_view quote) {
  if (names.empty()) return {};
  std::string text = "; did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text.append(quote).append(names[i]).append(quote);
  }
  return text + "?";
}

}  // namespace onnxopt::utils
