#pragma once
// UTF-8 decoding and the simple (one code point to one code point) case mappings of the
// string kernels.
//
// Case mappings are glibc's towupper/towlower, which is what onnxruntime applies through
// std::ctype<wchar_t> of the StringNormalizer locale: C.UTF-8, en_US.UTF-8 and the other
// UTF-8 locales map all of Unicode (unicode_case_table.inc, generated from C.UTF-8);
// the Turkic locales also map i to U+0130 and I to U+0131; the "C" / "POSIX" locales map
// ASCII letters only. Mappings that change the length of a string (German sharp s to
// "SS") are not simple mappings and leave the character unchanged, as glibc does.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace onnxopt::onnx_kernels::unicode {

enum class CaseRules { kAscii, kUnicode, kTurkic };

char32_t ToUpper(char32_t c, CaseRules rules);
char32_t ToLower(char32_t c, CaseRules rules);

// The code point starting at s[i] and its length in bytes; nullopt when s[i..] is not a
// well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF).
struct Decoded {
  char32_t code_point;
  std::size_t length;
};
std::optional<Decoded> DecodeAt(std::string_view s, std::size_t i);

void AppendUtf8(char32_t c, std::string& out);
bool IsValidUtf8(std::string_view s);

// s with every code point mapped by `map`; nullopt when s is not valid UTF-8.
template <class Map>
std::optional<std::string> MapCodePoints(std::string_view s, Map&& map) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto d = DecodeAt(s, i);
    if (!d) return std::nullopt;
    AppendUtf8(map(d->code_point), out);
    i += d->length;
  }
  return out;
}

// Whitespace as Python's str.split() (and the ONNX reference implementation of
// StringSplit) sees it: the ASCII controls \t \n \v \f \r and 0x1C-0x1F, space, U+0085,
// U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool IsPythonSpace(char32_t c);

}  // namespace onnxopt::onnx_kernels::unicode
