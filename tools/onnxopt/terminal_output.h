#pragma once
// What the command line prints comes partly from the model: value and node names, the
// producer, doc strings, string tensors. A hostile model can hide terminal control
// sequences in them: ESC [ 2 J clears the screen, ESC ] 0 ; ... BEL sets the window title,
// a carriage return or backspaces overwrite what the line said before. Messages quote the
// names they cite (onnx_core/common/quote.h), but listings (`info`, `diff`, reports)
// print names as they are, so the command line's standard output and error go through
// EscapeControlBytes: every control byte shows as \xHH, whoever printed it.

#include <memory>
#include <ostream>
#include <streambuf>

namespace onnxopt::cli {

// A stream buffer writing to `target` what it is given, with the bytes that control a
// terminal written as the four characters \xHH: the C0 controls but newline and tab, DEL,
// and the C1 controls (U+0080..U+009F, the bytes C2 80..C2 9F in UTF-8: "\xc2\x9b" for
// U+009B, which terminals read as ESC [).
class ControlEscapingBuffer final : public std::streambuf {
 public:
  explicit ControlEscapingBuffer(std::streambuf* target) : target_(target) {}
  ~ControlEscapingBuffer() override;

 protected:
  int_type overflow(int_type byte) override;
  std::streamsize xsputn(const char* bytes, std::streamsize count) override;
  int sync() override;

 private:
  // Writes `byte`, escaped when it controls a terminal, holding a C2 back until the next
  // byte tells whether it starts a C1 control. False when the target fails.
  bool Put(unsigned char byte);
  bool FlushHeldLead();

  std::streambuf* target_;
  bool holding_lead_ = false;  // a C2 byte not written yet
};

// While it lives, `stream` writes through a ControlEscapingBuffer; the stream's own buffer
// is restored (and what is held back flushed) when it goes.
class EscapeControlBytes {
 public:
  explicit EscapeControlBytes(std::ostream& stream);
  ~EscapeControlBytes();
  EscapeControlBytes(const EscapeControlBytes&) = delete;
  EscapeControlBytes& operator=(const EscapeControlBytes&) = delete;

 private:
  std::ostream& stream_;
  std::streambuf* original_;
  std::unique_ptr<ControlEscapingBuffer> buffer_;
};

}  // namespace onnxopt::cli
