#include "tools/onnxopt/terminal_output.h"

#include <cstddef>

namespace onnxopt::cli {

namespace {

constexpr unsigned char kC1Lead = 0xC2;  // U+0080..U+00BF in UTF-8: C2 80..C2 BF

bool IsC0Control(unsigned char byte) { return (byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F; }

// The second byte of a C1 control after C2.
bool IsC1Trail(unsigned char byte) { return byte >= 0x80 && byte <= 0x9F; }

bool WriteEscaped(std::streambuf& target, unsigned char byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const char escaped[4] = {'\\', 'x', kDigits[byte >> 4], kDigits[byte & 15]};
  return target.sputn(escaped, 4) == 4;
}

}  // namespace

ControlEscapingBuffer::~ControlEscapingBuffer() { FlushHeldLead(); }

bool ControlEscapingBuffer::FlushHeldLead() {
  if (!holding_lead_) return true;
  holding_lead_ = false;
  return target_->sputc(static_cast<char>(kC1Lead)) != traits_type::eof();
}

bool ControlEscapingBuffer::Put(unsigned char byte) {
  if (holding_lead_) {
    holding_lead_ = false;
    if (IsC1Trail(byte)) return WriteEscaped(*target_, kC1Lead) && WriteEscaped(*target_, byte);
    if (target_->sputc(static_cast<char>(kC1Lead)) == traits_type::eof()) return false;
  }
  if (byte == kC1Lead) {
    holding_lead_ = true;
    return true;
  }
  if (IsC0Control(byte)) return WriteEscaped(*target_, byte);
  return target_->sputc(static_cast<char>(byte)) != traits_type::eof();
}

ControlEscapingBuffer::int_type ControlEscapingBuffer::overflow(int_type byte) {
  if (traits_type::eq_int_type(byte, traits_type::eof())) return traits_type::not_eof(byte);
  return Put(static_cast<unsigned char>(traits_type::to_char_type(byte))) ? byte : traits_type::eof();
}

std::streamsize ControlEscapingBuffer::xsputn(const char* bytes, std::streamsize count) {
  // Runs of plain bytes go to the target in one call: a model's listing is mostly them.
  std::streamsize done = 0;
  while (done < count) {
    std::streamsize run = done;
    while (run < count && !holding_lead_) {
      const auto byte = static_cast<unsigned char>(bytes[run]);
      if (IsC0Control(byte) || byte == kC1Lead) break;
      ++run;
    }
    if (run > done) {
      if (target_->sputn(bytes + done, run - done) != run - done) return done;
      done = run;
      continue;
    }
    if (!Put(static_cast<unsigned char>(bytes[done]))) return done;
    ++done;
  }
  return done;
}

int ControlEscapingBuffer::sync() {
  // A C2 held back stays held (the next byte decides); flushing passes on the rest.
  return target_->pubsync();
}

EscapeControlBytes::EscapeControlBytes(std::ostream& stream)
    : stream_(stream), original_(stream.rdbuf()), buffer_(std::make_unique<ControlEscapingBuffer>(original_)) {
  stream_.rdbuf(buffer_.get());
}

EscapeControlBytes::~EscapeControlBytes() {
  stream_.flush();
  stream_.rdbuf(original_);
  buffer_.reset();  // writes a C2 still held back
  stream_.flush();
}

}  // namespace onnxopt::cli
