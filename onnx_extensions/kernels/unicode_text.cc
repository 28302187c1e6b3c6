#include "onnx_extensions/kernels/unicode_text.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace onnxopt::onnx_kernels::unicode {

namespace {

struct CaseRange {
  char32_t first, last;
  std::int32_t delta;
  std::uint8_t stride;
};

#include "onnx_extensions/kernels/unicode_case_table.inc"

template <std::size_t N>
char32_t MapByTable(const CaseRange (&table)[N], char32_t c) {
  // The last range whose first code point is <= c.
  const auto* it = std::upper_bound(std::begin(table), std::end(table), c,
                                    [](char32_t v, const CaseRange& r) { return v < r.first; });
  if (it == std::begin(table)) return c;
  const CaseRange& r = *std::prev(it);
  if (c > r.last || (c - r.first) % r.stride != 0) return c;
  return static_cast<char32_t>(static_cast<std::int64_t>(c) + r.delta);
}

}  // namespace

char32_t ToUpper(char32_t c, CaseRules rules) {
  if (rules == CaseRules::kAscii) return c >= U'a' && c <= U'z' ? c - 32 : c;
  if (rules == CaseRules::kTurkic && c == U'i') return U'\u0130';
  return MapByTable(kToUpper, c);
}

char32_t ToLower(char32_t c, CaseRules rules) {
  if (rules == CaseRules::kAscii) return c >= U'A' && c <= U'Z' ? c + 32 : c;
  if (rules == CaseRules::kTurkic && c == U'I') return U'\u0131';
  return MapByTable(kToLower, c);
}

std::optional<Decoded> DecodeAt(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return Decoded{b0, 1};
  std::size_t length;
  char32_t c;
  char32_t min;
  if ((b0 & 0xE0) == 0xC0)
    length = 2, c = b0 & 0x1F, min = 0x80;
  else if ((b0 & 0xF0) == 0xE0)
    length = 3, c = b0 & 0x0F, min = 0x800;
  else if ((b0 & 0xF8) == 0xF0)
    length = 4, c = b0 & 0x07, min = 0x10000;
  else
    return std::nullopt;
  if (i + length > s.size()) return std::nullopt;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return std::nullopt;
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return std::nullopt;
  return Decoded{c, length};
}

bool IsValidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto d = DecodeAt(s, i);
    if (!d) return false;
    i += d->length;
  }
  return true;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool IsPythonSpace(char32_t c) {
  switch (c) {
    case U'\t':
    case U'\n':
    case U'\v':
    case U'\f':
    case U'\r':
    case 0x1C:
    case 0x1D:
    case 0x1E:
    case 0x1F:
    case U' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

}  // namespace onnxopt::onnx_kernels::unicode
