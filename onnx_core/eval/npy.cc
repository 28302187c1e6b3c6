#include "onnx_core/eval/npy.h"

#include <array>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/tensor_data.h"

namespace onnxopt::core::eval {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "\x93NUMPY";
// Real headers are a few dozen bytes; a bound keeps a hostile length from allocating.
constexpr std::size_t kMaxHeaderBytes = 1 << 16;
// Longest string element accepted in a 'U' array, in code points.
constexpr std::int64_t kMaxStringChars = 1 << 20;

[[noreturn]] void Fail(const fs::path& path, const std::string& what) {
  throw InputFileError("invalid input file " + Quote(path.string()) + ": " + what);
}

// Reads a regular file from the start, piece after piece.
class SequentialReader {
 public:
  explicit SequentialReader(const fs::path& path) : path_(path), file_(ir::OpenRegularFile(path, "input file")) {}

  std::uint64_t size() const { return file_.size; }
  // Reads `count` bytes into `out`; false at the end of the file.
  bool Read(void* out, std::uint64_t count) {
    if (count > file_.size - offset_) return false;
    if (std::string error = ir::ReadFully(file_.fd.get(), static_cast<char*>(out), count, offset_); !error.empty())
      throw IoError("cannot read input file " + Quote(path_.string()) + ": " + error);
    offset_ += count;
    return true;
  }

 private:
  const fs::path& path_;
  ir::OpenedFile file_;
  std::uint64_t offset_ = 0;
};

// The NumPy dtype of each element type with a native one (little-endian).
struct DType {
  int elem_type;
  std::string_view descr;  // without the byte-order character
};
constexpr std::array<DType, 11> kDTypes = {{
    {TensorProto::BOOL, "b1"},    {TensorProto::INT8, "i1"},    {TensorProto::INT16, "i2"},
    {TensorProto::INT32, "i4"},   {TensorProto::INT64, "i8"},   {TensorProto::UINT8, "u1"},
    {TensorProto::UINT16, "u2"},  {TensorProto::UINT32, "u4"},  {TensorProto::UINT64, "u8"},
    {TensorProto::FLOAT16, "f2"}, {TensorProto::FLOAT, "f4"},
}};
constexpr DType kDouble = {TensorProto::DOUBLE, "f8"};

std::optional<int> ElemTypeOfDescr(std::string_view descr) {
  if (descr == kDouble.descr) return kDouble.elem_type;
  for (const auto& dtype : kDTypes)
    if (dtype.descr == descr) return dtype.elem_type;
  return std::nullopt;
}

// Parser of the header: a Python dict literal with the keys 'descr', 'fortran_order'
// and 'shape', e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const fs::path& path) : text_(text), path_(path) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::int64_t> shape;
  };

  Header Parse() {
    Header header;
    bool has_descr = false, has_order = false, has_shape = false;
    Expect('{');
    while (true) {
      SkipSpaces();
      if (Peek() == '}') break;
      const std::string key = QuotedString();
      Expect(':');
      if (key == "descr" && !has_descr) {
        header.descr = QuotedString();
        has_descr = true;
      } else if (key == "fortran_order" && !has_order) {
        header.fortran_order = Boolean();
        has_order = true;
      } else if (key == "shape" && !has_shape) {
        header.shape = Shape();
        has_shape = true;
      } else {
        Fail(path_, "unexpected or repeated key " + Quote(key) + " in the header");
      }
      SkipSpaces();
      if (Peek() == ',') ++pos_;
      else if (Peek() != '}') Fail(path_, "malformed header: expected ',' or '}'");
    }
    ++pos_;
    SkipSpaces();
    if (pos_ != text_.size()) Fail(path_, "malformed header: unexpected text after the dictionary");
    if (!has_descr || !has_order || !has_shape)
      Fail(path_, "the header lacks one of 'descr', 'fortran_order', 'shape'");
    return header;
  }

 private:
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) ++pos_;
  }
  void Expect(char c) {
    SkipSpaces();
    if (Peek() != c) Fail(path_, std::string("malformed header: expected '") + c + "'");
    ++pos_;
  }
  std::string QuotedString() {
    SkipSpaces();
    const char quote = Peek();
    if (quote != '\'' && quote != '"') Fail(path_, "malformed header: expected a quoted string");
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) Fail(path_, "malformed header: unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }
  bool Boolean() {
    SkipSpaces();
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    Fail(path_, "malformed header: 'fortran_order' is not True or False");
  }
  std::vector<std::int64_t> Shape() {
    Expect('(');
    std::vector<std::int64_t> shape;
    while (true) {
      SkipSpaces();
      if (Peek() == ')') break;
      std::int64_t dim = 0;
      auto [end, error] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), dim);
      if (error != std::errc() || end == text_.data() + pos_ || dim < 0)
        Fail(path_, "malformed header: a dimension of 'shape' is not a non-negative integer");
      pos_ = static_cast<std::size_t>(end - text_.data());
      if (shape.size() >= 64) Fail(path_, "'shape' has more than 64 dimensions");
      shape.push_back(dim);
      SkipSpaces();
      if (Peek() == ',') ++pos_;
      else if (Peek() != ')') Fail(path_, "malformed header: expected ',' or ')' in 'shape'");
    }
    ++pos_;
    return shape;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  const fs::path& path_;
};

std::uint32_t ReadLittle(const unsigned char* bytes, int count) {
  std::uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// UTF-8 -> code points; invalid sequences become U+FFFD (ONNX strings are not
// guaranteed to be valid UTF-8, NumPy's 'U' needs code points).
std::vector<std::uint32_t> DecodeUtf8(std::string_view text) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    std::uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
    bool ok = extra >= 0 && i + static_cast<std::size_t>(extra) < text.size();
    for (int k = 1; ok && k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((next & 0xC0) != 0x80) ok = false;
      else cp = (cp << 6) | (next & 0x3F);
    }
    if (!ok || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      out.push_back(0xFFFD);
      ++i;
    } else {
      out.push_back(cp);
      i += static_cast<std::size_t>(extra) + 1;
    }
  }
  return out;
}

std::string Descr(const Tensor& tensor, std::size_t* string_chars) {
  const int type = tensor.elem_type();
  if (type == TensorProto::STRING) {
    std::size_t chars = 1;
    const std::string* data = tensor.Data<std::string>();
    for (std::int64_t i = 0; i < tensor.size(); ++i) chars = std::max(chars, DecodeUtf8(data[i]).size());
    *string_chars = chars;
    return "<U" + std::to_string(chars);
  }
  if (type == kDouble.elem_type) return "<f8";
  for (const auto& dtype : kDTypes)
    if (dtype.elem_type == type) return (dtype.descr.ends_with('1') ? "|" : "<") + std::string(dtype.descr);
  return "";
}

std::string HeaderBytes(const std::string& descr, const std::vector<std::int64_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dict += std::to_string(shape[i]);
    if (shape.size() == 1 || i + 1 < shape.size()) dict += ",";
    if (i + 1 < shape.size()) dict += " ";
  }
  dict += "), }";
  // Version 1.0 has a 2-byte length; the total header is padded to a multiple of 64
  // with spaces and ends with '\n'.
  const bool v2 = dict.size() + 1 + 10 > 0xFFFF;
  const std::size_t prefix = v2 ? 12 : 10;
  const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t len = dict.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + dict;
}

}  // namespace

Tensor ReadNpy(const fs::path& path) {
  SequentialReader file(path);
  const std::uint64_t file_size = file.size();

  std::array<unsigned char, 12> prefix{};
  if (!file.Read(prefix.data(), 10)) Fail(path, "too short to be a .npy file");
  if (std::string_view(reinterpret_cast<const char*>(prefix.data()), 6) != kMagic)
    Fail(path, "not a .npy file (bad magic string)");
  const int major = prefix[6];
  if (major < 1 || major > 3)
    Fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(prefix[7]));
  std::size_t prefix_size = 10;
  std::size_t header_len = ReadLittle(prefix.data() + 8, 2);
  if (major >= 2) {
    if (!file.Read(prefix.data() + 10, 2)) Fail(path, "too short to be a .npy file");
    header_len = ReadLittle(prefix.data() + 8, 4);
    prefix_size = 12;
  }
  if (header_len > kMaxHeaderBytes)
    Fail(path, "header length " + std::to_string(header_len) + " exceeds " + std::to_string(kMaxHeaderBytes));
  if (prefix_size + header_len > file_size) Fail(path, "truncated header");
  std::string header_text(header_len, '\0');
  if (!file.Read(header_text.data(), header_len)) Fail(path, "truncated header");
  const auto header = HeaderParser(header_text, path).Parse();

  // Byte order: '<' little, '|' not applicable, '=' native (little on every platform we build for).
  if (header.descr.size() < 3 || (header.descr[0] != '<' && header.descr[0] != '|' && header.descr[0] != '='))
    Fail(path, "unsupported dtype " + Quote(header.descr) + " (only little-endian arrays are supported)");
  const std::string_view kind = std::string_view(header.descr).substr(1);
  std::int64_t string_chars = 0;
  int elem_type = 0;
  if (kind[0] == 'U') {
    auto [end, error] = std::from_chars(kind.data() + 1, kind.data() + kind.size(), string_chars);
    if (error != std::errc() || end != kind.data() + kind.size() || string_chars < 1 ||
        string_chars > kMaxStringChars)
      Fail(path, "unsupported dtype " + Quote(header.descr));
    elem_type = TensorProto::STRING;
  } else if (auto type = ElemTypeOfDescr(kind)) {
    elem_type = *type;
  } else {
    Fail(path, "unsupported dtype " + Quote(header.descr) +
                   " (expected bool, int8..int64, uint8..uint64, float16/32/64 or unicode strings)");
  }

  const std::optional<std::int64_t> element_count = ir::ElementCount(header.shape);
  if (!element_count) Fail(path, "the number of elements (product of the shape's dimensions) overflows int64");
  const std::int64_t count = *element_count;
  std::size_t rank_above_one = 0;
  for (std::int64_t dim : header.shape) rank_above_one += dim > 1;
  if (header.fortran_order && rank_above_one > 1)
    Fail(path, "Fortran-order arrays are not supported (save with numpy.ascontiguousarray)");

  const std::uint64_t item_bytes =
      elem_type == TensorProto::STRING ? static_cast<std::uint64_t>(string_chars) * 4 : eval::StorageBytes(elem_type);
  const std::uint64_t data_offset = prefix_size + header_len;
  const std::uint64_t available = file_size - data_offset;
  if (item_bytes != 0 && static_cast<std::uint64_t>(count) > available / item_bytes)
    Fail(path, "truncated data: the header announces " + std::to_string(count) + " elements of " +
                   std::to_string(item_bytes) + " bytes, the file holds " + std::to_string(available) + " bytes");
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(count) * item_bytes;
  if (data_bytes != available)
    Fail(path, "the file has " + std::to_string(available - data_bytes) + " bytes after the data");

  Tensor tensor(elem_type, header.shape);
  if (elem_type == TensorProto::STRING) {
    std::vector<unsigned char> buffer(data_bytes);
    if (!file.Read(buffer.data(), data_bytes)) Fail(path, "truncated data");
    std::string* out = tensor.MutableData<std::string>();
    for (std::int64_t i = 0; i < count; ++i) {
      const unsigned char* element = buffer.data() + static_cast<std::size_t>(i) * item_bytes;
      std::string text;
      for (std::int64_t c = 0; c < string_chars; ++c) {
        const std::uint32_t cp = ReadLittle(element + 4 * c, 4);
        if (cp == 0) break;  // NumPy pads with NULs
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
          Fail(path, "element " + std::to_string(i) + " holds an invalid code point");
        AppendUtf8(text, cp);
      }
      out[i] = std::move(text);
    }
    return tensor;
  }
  if (data_bytes > 0) {
    std::byte* out = tensor.MutableRawData();
    if (!file.Read(out, data_bytes)) Fail(path, "truncated data");
    if (elem_type == TensorProto::BOOL) {
      // A bool byte other than 0 or 1 is undefined behaviour in C++.
      for (std::uint64_t i = 0; i < data_bytes; ++i)
        if (out[i] != std::byte{0}) out[i] = std::byte{1};
    }
  }
  return tensor;
}

Tensor FromNpyForm(Tensor value, int elem_type, const fs::path& path) {
  const int byte_type = eval::ByteIntegerOf(elem_type);
  if (byte_type == 0 || value.elem_type() != byte_type) return value;
  const auto [low, high] = *eval::SubByteIntegerRange(elem_type);
  const std::vector<std::int64_t> values = value.ToInt64Vector();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] < low || values[i] > high)
      Fail(path, "element " + std::to_string(i) + " is " + std::to_string(values[i]) + ", outside the range of " +
                     ir::ElementTypeName(elem_type) + " [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  Tensor converted = Tensor::ForOverwrite(elem_type, value.shape());  // held a byte each, as the 8-bit type
  if (value.size() > 0)
    std::memcpy(converted.MutableRawData(), value.RawData(), static_cast<std::size_t>(value.size()));
  return converted;
}

bool WriteNpy(const Tensor& tensor, ir::AtomicFile& file) {
  const Tensor* source = &tensor;
  Tensor converted;
  std::size_t string_chars = 0;
  std::string descr = Descr(tensor, &string_chars);
  bool native = true;
  if (descr.empty()) {
    native = false;
    const int type = tensor.elem_type();
    if (const int byte_type = eval::ByteIntegerOf(type)) {  // exact in the 8-bit integer type
      converted = Tensor(byte_type, tensor.shape());
      if (tensor.size() > 0)
        std::memcpy(converted.MutableRawData(), tensor.RawData(), static_cast<std::size_t>(tensor.size()));
    } else {
      converted = Tensor(TensorProto::FLOAT, tensor.shape());
      float* out = converted.MutableData<float>();
      if (type == TensorProto::BFLOAT16) {
        const std::uint16_t* in = tensor.Data<std::uint16_t>();
        for (std::int64_t i = 0; i < tensor.size(); ++i) out[i] = eval::BFloat16ToFloat(in[i]);
      } else {
        const std::vector<double> values = tensor.ToDoubleVector();
        for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
      }
    }
    source = &converted;
    descr = Descr(converted, &string_chars);
  }

  // The header, then the data: strings are encoded here, numbers written from the
  // tensor's buffer (no copy of large outputs).
  std::string bytes = HeaderBytes(descr, source->shape());
  if (source->elem_type() == TensorProto::STRING) {
    const std::string* data = source->Data<std::string>();
    for (std::int64_t i = 0; i < source->size(); ++i) {
      std::vector<std::uint32_t> cps = DecodeUtf8(data[i]);
      cps.resize(string_chars, 0);
      for (std::uint32_t cp : cps)
        for (int k = 0; k < 4; ++k) bytes += static_cast<char>((cp >> (8 * k)) & 0xFF);
    }
  }
  const bool numeric_data = source->elem_type() != TensorProto::STRING && source->ByteSize() > 0;

  file.WriteAt(bytes, 0);
  if (numeric_data)
    file.WriteAt(std::string_view(reinterpret_cast<const char*>(source->RawData()), source->ByteSize()), bytes.size());
  return native;
}

bool WriteNpy(const Tensor& tensor, const fs::path& path) {
  ir::AtomicFile file(path, "cannot write " + Quote(path.string()));
  const bool native = WriteNpy(tensor, file);
  file.Commit();
  return native;
}

}  // namespace onnxopt::core::eval
