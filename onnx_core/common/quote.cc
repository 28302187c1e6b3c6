#include "onnx_core/common/quote.h"

#include <cstddef>
#include <cstdint>

namespace onnxopt {

namespace {

void AppendHex(std::string& out, unsigned char byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 15];
}

// The length of the printable UTF-8 sequence starting at `i` (a lead byte >= 0x80), or 0
// when the bytes there are not one: truncated, overlong, a surrogate, above U+10FFFF, or
// a C1 control (U+0080..U+009F), which terminals interpret.
std::size_t PrintableSequenceLength(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t length = (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  std::uint32_t code_point = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (next & 0x3F);
  }
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code_point < kSmallest[length] || code_point > 0x10FFFF || (code_point >= 0xD800 && code_point <= 0xDFFF) ||
      code_point <= 0x9F)
    return 0;
  return length;
}

}  // namespace

std::string Quote(std::string_view text) {
  std::string out = "'";
  out.reserve(text.size() + 2);
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x80) {
      if (const std::size_t length = PrintableSequenceLength(text, i); length > 0) {
        out.append(text.substr(i, length));
        i += length;
      } else {
        AppendHex(out, byte);
        ++i;
      }
      continue;
    }
    switch (byte) {
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte < 0x20 || byte == 0x7F)
          AppendHex(out, byte);
        else
          out += static_cast<char>(byte);
    }
    ++i;
  }
  return out + "'";
}

}  // namespace onnxopt
