// The filter between the command line and the terminal (tools/onnxopt/terminal_output.h).

#include "tools/onnxopt/terminal_output.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "onnx_core/common/json_writer.h"

namespace onnxopt::cli {
namespace {

// What `pieces`, written one after the other into a stream escaping control bytes, give.
std::string Escaped(std::initializer_list<std::string> pieces) {
  std::ostringstream target;
  {
    const EscapeControlBytes escaped(target);
    for (const std::string& piece : pieces) target << piece;
  }
  return target.str();
}

TEST(ControlEscapingBuffer, ShowsTheBytesThatControlATerminal) {
  EXPECT_EQ(Escaped({"a\x1b[2Jb\x1b]0;title\x07"}), "a\\x1b[2Jb\\x1b]0;title\\x07");
  EXPECT_EQ(Escaped({"over\rwrite\b\b\x7f"}), "over\\x0dwrite\\x08\\x08\\x7f");
  EXPECT_EQ(Escaped({std::string("nul\0byte", 8)}), "nul\\x00byte");
}

TEST(ControlEscapingBuffer, KeepsNewlinesTabsAndPrintableUtf8) {
  EXPECT_EQ(Escaped({"line 1\n\tline 2\n"}), "line 1\n\tline 2\n");
  // é (C3 A9), a no-break space (C2 A0, a C2 that is no control), 中 (E4 B8 AD).
  EXPECT_EQ(Escaped({"caf\xc3\xa9\xc2\xa0\xe4\xb8\xad"}), "caf\xc3\xa9\xc2\xa0\xe4\xb8\xad");
}

TEST(ControlEscapingBuffer, ShowsC1ControlsEvenSplitAcrossWrites) {
  // U+009B, which terminals read as ESC [; U+0085 (next line).
  EXPECT_EQ(Escaped({"a\xc2\x9b" "2J"}), "a\\xc2\\x9b2J");
  EXPECT_EQ(Escaped({"a\xc2", "\x85z"}), "a\\xc2\\x85z");
  EXPECT_EQ(Escaped({"a\xc2", "\xa0z"}), "a\xc2\xa0z");
  // A C2 at the very end is written when the filter goes.
  EXPECT_EQ(Escaped({"end\xc2"}), "end\xc2");
  // Byte by byte (overflow rather than xsputn).
  std::ostringstream target;
  {
    const EscapeControlBytes escaped(target);
    for (char byte : std::string("x\xc2\x9b\x1by")) target.put(byte);
  }
  EXPECT_EQ(target.str(), "x\\xc2\\x9b\\x1by");
}

TEST(ControlEscapingBuffer, LeavesJsonAsItIs) {
  // JSON output (--json, reports) escapes every control character itself, C1 ones
  // included, so the filter never changes it.
  JsonWriter json;
  json.BeginObject();
  json.Key("name").String("a\x1b[31m\r\n\xc2\x85\xc2\xa0\xc3\xa9");
  json.EndObject();
  const std::string text = json.Text();
  EXPECT_EQ(text, "{\"name\":\"a\\u001b[31m\\r\\n\\u0085\xc2\xa0\xc3\xa9\"}");
  EXPECT_EQ(Escaped({text}), text);
}

TEST(EscapeControlBytes, RestoresTheStreamsBuffer) {
  std::ostringstream target;
  std::ostream& stream = target;  // std::ostringstream::rdbuf() names its own buffer, not the one in use
  std::streambuf* const original = stream.rdbuf();
  {
    const EscapeControlBytes escaped(stream);
    EXPECT_NE(stream.rdbuf(), original);
  }
  EXPECT_EQ(stream.rdbuf(), original);
  target << "\x1b";
  EXPECT_EQ(target.str(), "\x1b");
}

}  // namespace
}  // namespace onnxopt::cli
