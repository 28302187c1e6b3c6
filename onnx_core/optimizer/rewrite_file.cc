#include "onnx_core/optimizer/rewrite_file.h"

#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include "onnx_core/common/error.h"
#include "onnx_core/common/quote.h"
#include "onnx_core/ir/file_io.h"

namespace onnxopt::core::builder {

namespace {

namespace fs = std::filesystem;
using google::protobuf::MessageLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;
using google::protobuf::internal::WireFormatLite;

// protobuf reads at most INT_MAX bytes through one CodedInputStream and parses messages
// of at most that size; a record is read through its own stream.
constexpr std::uint64_t kMaxRecordBytes = INT_MAX;
// A whole file: records of 2 GiB at most, a few of them.
constexpr std::uint64_t kMaxFileBytes = std::uint64_t{16} << 30;
// A node or initializer position indexes a protobuf repeated field, whose size is an int.
constexpr std::uint64_t kMaxPosition = INT_MAX - 1;
// A model fingerprint is 16 hexadecimal digits; room is left for a longer hash.
constexpr std::uint64_t kMaxFingerprintBytes = 256;
// The smallest record: a length prefix, a one-character pattern name (2 bytes), the
// iteration, eleven empty lists and two times, one byte each.
constexpr std::size_t kMinRecordBytes = 1 + 2 + 1 + 11 + 2;
// The checksum that ends the file: a 64-bit hash, little-endian.
constexpr std::size_t kChecksumBytes = 8;
// A 64-bit varint takes at most 10 bytes (7 bits each).
constexpr std::size_t kMaxVarint64Bytes = 10;


// --- Writing ----------------------------------------------------------------------------

class RecordWriter {
 public:
  explicit RecordWriter(std::string& out) : stream_(&out), coded_(&stream_) {
    coded_.SetSerializationDeterministic(true);
  }

  void Unsigned(std::uint64_t value) { coded_.WriteVarint64(value); }
  void Signed(std::int64_t value) { coded_.WriteVarint64(WireFormatLite::ZigZagEncode64(value)); }
  void String(std::string_view text) {
    Unsigned(text.size());
    // An empty string_view may have a null data(), which memcpy must not receive.
    if (!text.empty()) coded_.WriteRaw(text.data(), static_cast<int>(text.size()));
  }
  void Positions(const std::vector<std::size_t>& positions) {
    Unsigned(positions.size());
    for (std::size_t position : positions) Unsigned(position);
  }
  template <class T>
  void Messages(const utils::RepeatedProtoField<T>& messages, const std::string& label, const char* field) {
    Unsigned(static_cast<std::uint64_t>(messages.size()));
    for (const T& message : messages) {
      const std::size_t size = message.ByteSizeLong();
      if (size > kMaxRecordBytes)
        throw BuilderError(label + ": " + field + " holds a message of " + std::to_string(size) +
                           " bytes, more than protobuf's limit of 2 GiB - 1");
      Unsigned(size);
      message.SerializeWithCachedSizes(&coded_);
    }
  }

 private:
  StringOutputStream stream_;
  CodedOutputStream coded_;
};

// GCC 12 warns (-Warray-bounds, a false positive) about a chain of + on a temporary here.
std::string InvalidMessage(std::string_view type, std::size_t size) {
  std::string problem = "not a valid ";
  problem.append(type).append(" (").append(std::to_string(size)).append(" bytes)");
  return problem;
}

std::string RecordLabel(std::size_t index, const std::string& name) {
  return "record " + std::to_string(index) + " (" + name + ")";
}

void CheckPositionCount(std::size_t positions, int elements, const std::string& label, const char* what) {
  if (positions != static_cast<std::size_t>(elements))
    throw BuilderError(label + ": " + std::to_string(elements) + " added " + what + "s but " +
                       std::to_string(positions) + " positions for them");
}

std::string SerializeRecord(const LocalRewriting& record, std::size_t index) {
  const std::string name = record.Name();
  const std::string label = RecordLabel(index, name);
  CheckPositionCount(record.added_nodes_positions.size(), record.added_nodes.size(), label, "node");
  CheckPositionCount(record.added_initializer_positions.size(), record.added_initializers.size(), label,
                     "initializer");
  if (!record.matched_node_signatures.empty() && record.matched_node_signatures.size() != record.matched_nodes.size())
    throw BuilderError(label + ": " + std::to_string(record.matched_node_signatures.size()) +
                       " removed-node signatures for " + std::to_string(record.matched_nodes.size()) + " removed nodes");
  std::string body;
  {
    RecordWriter out(body);
    out.String(name);
    out.Unsigned(record.iteration);
    out.Unsigned(record.graph_path.size());
    for (const SubgraphKey& key : record.graph_path) {
      out.String(key.node_output);
      out.String(key.attribute);
      out.Signed(key.index);
    }
    out.Positions(record.matched_nodes);
    out.Unsigned(record.matched_node_signatures.size());
    for (const NodeSignature& signature : record.matched_node_signatures) {
      out.String(signature.op_type);
      out.String(signature.domain);
      out.Unsigned(signature.outputs.size());
      for (const std::string& output : signature.outputs) out.String(output);
    }
    out.Messages(record.added_nodes, label, "added_nodes");
    out.Positions(record.added_nodes_positions);
    out.Messages(record.added_initializers, label, "added_initializers");
    out.Positions(record.added_initializer_positions);
    out.Positions(record.removed_initializers);
    out.Messages(record.added_functions, label, "added_functions");
    out.Positions(record.removed_functions);
    out.Unsigned(record.value_renames.size());
    for (const auto& [from, to] : record.value_renames) {
      out.String(from);
      out.String(to);
    }
    out.Signed(record.match_time_ns);
    out.Signed(record.apply_time_ns);
  }
  if (body.size() > kMaxRecordBytes)
    throw BuilderError(label + " takes " + std::to_string(body.size()) +
                       " bytes, more than the 2 GiB - 1 a record may take");
  return body;
}

// --- Reading ----------------------------------------------------------------------------

// Reads the fields of one record. Every length and count is checked against the bytes
// left in the record before anything is allocated for it.
class RecordReader {
 public:
  RecordReader(std::string_view body, std::string label)
      : body_(body),
        in_(reinterpret_cast<const std::uint8_t*>(body.data()), static_cast<int>(body.size())),
        label_(std::move(label)) {}

  void SetName(const std::string& name) { label_ += " (" + name + ")"; }

  std::uint64_t Unsigned(const std::string& field) {
    std::uint64_t value = 0;
    if (!in_.ReadVarint64(&value)) Fail(field, Remaining() == 0 ? "missing (the record ends)" : "malformed varint");
    return value;
  }

  std::int64_t Signed(const std::string& field) { return WireFormatLite::ZigZagDecode64(Unsigned(field)); }

  // A count of elements that take at least one byte each.
  std::size_t Count(const std::string& field) {
    const std::uint64_t count = Unsigned(field + " count");
    if (count > Remaining())
      Fail(field, "count " + std::to_string(count) + " exceeds the " + std::to_string(Remaining()) +
                      " bytes left in the record");
    return static_cast<std::size_t>(count);
  }

  std::string String(const std::string& field) {
    const std::size_t size = Length(field);
    std::string text;
    in_.ReadString(&text, static_cast<int>(size));
    return text;
  }

  // Lists grow as their elements are read, never to a count read from the file.
  std::vector<std::size_t> Positions(const std::string& field) {
    std::vector<std::size_t> positions;
    const std::size_t count = Count(field);
    for (std::size_t i = 0; i < count; ++i) {
      const std::string element = field + "[" + std::to_string(i) + "]";
      const std::uint64_t position = Unsigned(element);
      if (position > kMaxPosition)
        Fail(element, "position " + std::to_string(position) + " is larger than any graph can have (" +
                          std::to_string(kMaxPosition) + ")");
      positions.push_back(static_cast<std::size_t>(position));
    }
    return positions;
  }

  template <class T>
  void Messages(const std::string& field, const char* type, utils::RepeatedProtoField<T>& messages) {
    const std::size_t count = Count(field);
    for (std::size_t i = 0; i < count; ++i) {
      const std::string element = field + "[" + std::to_string(i) + "]";
      const std::size_t size = Length(element);
      T* message = messages.Add();
      // Parsed in place from the record's bytes: a large initializer is not copied twice.
      if (!message->ParseFromArray(body_.data() + in_.CurrentPosition(), static_cast<int>(size)))
        Fail(element, InvalidMessage(type, size));
      in_.Skip(static_cast<int>(size));
    }
  }

  void ExpectEnd() {
    if (Remaining() != 0)
      throw ModelError(label_ + ": " + std::to_string(Remaining()) + " unexpected bytes after the last field");
  }

  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw ModelError(label_ + ": field " + field + ": " + problem);
  }

 private:
  std::size_t Remaining() const { return body_.size() - static_cast<std::size_t>(in_.CurrentPosition()); }

  // The length prefix of a string or message, checked against the bytes left.
  std::size_t Length(const std::string& field) {
    const std::uint64_t size = Unsigned(field + " length");
    if (size > Remaining())
      Fail(field, "length " + std::to_string(size) + " exceeds the " + std::to_string(Remaining()) +
                      " bytes left in the record (truncated or corrupt file)");
    return static_cast<std::size_t>(size);
  }

  std::string_view body_;
  CodedInputStream in_;
  std::string label_;
};

LocalRewriting ParseRecord(std::string_view body, std::size_t index, const std::string& origin,
                           std::map<std::string, std::shared_ptr<const PatternOptimization>, std::less<>>& patterns) {
  RecordReader in(body, origin + ": record " + std::to_string(index));
  LocalRewriting record;
  const std::string name = in.String("pattern");
  if (name.empty()) in.Fail("pattern", "the pattern name is empty");
  in.SetName(Quote(name));
  auto [it, inserted] = patterns.try_emplace(name);
  if (inserted) it->second = std::make_shared<NamedOperation>(name);
  record.pattern = it->second;

  record.iteration = static_cast<std::size_t>(in.Unsigned("iteration"));
  const std::size_t path_length = in.Count("graph_path");
  for (std::size_t i = 0; i < path_length; ++i) {
    const std::string field = "graph_path[" + std::to_string(i) + "]";
    SubgraphKey& key = record.graph_path.emplace_back();
    key.node_output = in.String(field + ".node_output");
    key.attribute = in.String(field + ".attribute");
    const std::int64_t attribute_index = in.Signed(field + ".index");
    if (attribute_index < -1 || attribute_index > INT_MAX)
      in.Fail(field + ".index", "index " + std::to_string(attribute_index) +
                                    ", expected -1 (a GRAPH attribute) or a position in a GRAPHS attribute");
    key.index = static_cast<int>(attribute_index);
  }
  record.matched_nodes = in.Positions("matched_nodes");
  const std::size_t signature_count = in.Count("matched_node_signatures");
  if (signature_count != 0 && signature_count != record.matched_nodes.size())
    in.Fail("matched_node_signatures", std::to_string(signature_count) + " signatures for " +
                                           std::to_string(record.matched_nodes.size()) + " matched nodes");
  for (std::size_t i = 0; i < signature_count; ++i) {
    const std::string field = "matched_node_signatures[" + std::to_string(i) + "]";
    NodeSignature& signature = record.matched_node_signatures.emplace_back();
    signature.op_type = in.String(field + ".op_type");
    signature.domain = in.String(field + ".domain");
    const std::size_t output_count = in.Count(field + ".outputs");
    for (std::size_t k = 0; k < output_count; ++k)
      signature.outputs.push_back(in.String(field + ".outputs[" + std::to_string(k) + "]"));
  }
  in.Messages("added_nodes", "NodeProto", record.added_nodes);
  record.added_nodes_positions = in.Positions("added_nodes_positions");
  if (record.added_nodes_positions.size() != static_cast<std::size_t>(record.added_nodes.size()))
    in.Fail("added_nodes_positions", std::to_string(record.added_nodes_positions.size()) + " positions for " +
                                         std::to_string(record.added_nodes.size()) + " added nodes");
  in.Messages("added_initializers", "TensorProto", record.added_initializers);
  record.added_initializer_positions = in.Positions("added_initializer_positions");
  if (record.added_initializer_positions.size() != static_cast<std::size_t>(record.added_initializers.size()))
    in.Fail("added_initializer_positions", std::to_string(record.added_initializer_positions.size()) +
                                               " positions for " + std::to_string(record.added_initializers.size()) +
                                               " added initializers");
  record.removed_initializers = in.Positions("removed_initializers");
  in.Messages("added_functions", "FunctionProto", record.added_functions);
  record.removed_functions = in.Positions("removed_functions");
  const std::size_t rename_count = in.Count("value_renames");
  for (std::size_t i = 0; i < rename_count; ++i) {
    const std::string field = "value_renames[" + std::to_string(i) + "]";
    std::string from = in.String(field + ".from");
    record.value_renames.emplace_back(std::move(from), in.String(field + ".to"));
  }
  record.match_time_ns = in.Signed("match_time_ns");
  record.apply_time_ns = in.Signed("apply_time_ns");
  in.ExpectEnd();
  return record;
}

// Reads a varint of the file header or a record length at `offset`, advancing it.
bool ReadFileVarint(std::string_view bytes, std::size_t& offset, std::uint64_t& value) {
  const std::string_view window = bytes.substr(offset, kMaxVarint64Bytes);
  CodedInputStream in(reinterpret_cast<const std::uint8_t*>(window.data()), static_cast<int>(window.size()));
  if (!in.ReadVarint64(&value)) return false;
  offset += static_cast<std::size_t>(in.CurrentPosition());
  return true;
}

// A 64-bit hash fed in pieces: 8 bytes at a time, each word mixed by a multiply and a
// rotation (the mixing of MurmurHash2's 64-bit variant). Fast enough to cover weights.
class Hasher {
 public:
  void Bytes(std::string_view bytes) {
    Word(bytes.size());
    std::size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
      std::uint64_t word;
      std::memcpy(&word, bytes.data() + i, 8);
      Word(word);
    }
    std::uint64_t tail = 0;
    if (i < bytes.size()) std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
    Word(tail);
  }
  void Word(std::uint64_t word) {
    constexpr std::uint64_t kMultiplier = 0xc6a4a7935bd1e995ull;
    word *= kMultiplier;
    word ^= word >> 47;
    word *= kMultiplier;
    hash_ ^= word;
    hash_ *= kMultiplier;
  }
  std::uint64_t Value() const { return hash_ ^ (hash_ >> 29); }
  std::string Hex() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::uint64_t value = Value();
    std::string text(16, '0');
    for (int i = 15; i >= 0; --i, value >>= 4) text[i] = kDigits[value & 15];
    return text;
  }

 private:
  std::uint64_t hash_ = 0x9e3779b97f4a7c15ull;
};

// Deterministic bytes of a (small) message.
std::string Deterministic(const MessageLite& message) {
  std::string bytes;
  {
    StringOutputStream stream(&bytes);
    CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&out);
  }
  return bytes;
}

}  // namespace

std::string ModelFingerprint(const ModelProto& model) {
  Hasher hasher;
  hasher.Word(static_cast<std::uint64_t>(model.opset_import_size()));
  for (const auto& opset : model.opset_import()) hasher.Bytes(Deterministic(opset));
  const GraphProto& graph = model.graph();
  for (const auto* values : {&graph.input(), &graph.output()}) {
    hasher.Word(static_cast<std::uint64_t>(values->size()));
    for (const ValueInfoProto& value : *values) hasher.Bytes(Deterministic(value));
  }
  // Nested graphs are attributes of their nodes.
  hasher.Word(static_cast<std::uint64_t>(graph.node_size()));
  for (const NodeProto& node : graph.node()) hasher.Bytes(Deterministic(node));
  hasher.Word(static_cast<std::uint64_t>(graph.initializer_size()));
  for (const TensorProto& tensor : graph.initializer()) {
    // Large data is hashed in place rather than serialized (copied) with the tensor.
    if (tensor.has_raw_data()) {
      TensorProto header = tensor;
      header.clear_raw_data();
      hasher.Bytes(Deterministic(header));
      hasher.Bytes(tensor.raw_data());
    } else {
      hasher.Bytes(Deterministic(tensor));
    }
  }
  hasher.Word(static_cast<std::uint64_t>(graph.sparse_initializer_size()));
  for (const auto& sparse : graph.sparse_initializer()) hasher.Bytes(Deterministic(sparse));
  // Records remove and add local functions by position and key.
  hasher.Word(static_cast<std::uint64_t>(model.functions_size()));
  for (const FunctionProto& function : model.functions()) hasher.Bytes(Deterministic(function));
  return hasher.Hex();
}

std::string RewriteFileChecksum(std::string_view content) {
  Hasher hasher;
  hasher.Bytes(content);
  const std::uint64_t checksum = hasher.Value();
  std::string bytes(kChecksumBytes, '\0');
  for (std::size_t i = 0; i < kChecksumBytes; ++i) bytes[i] = static_cast<char>((checksum >> (8 * i)) & 0xFF);
  return bytes;
}

namespace {

// input_shapes := list<name:bytes dims:list<svarint>> list<name:bytes value:svarint>
std::string SerializeInputShapes(const ir::InputShapeSettings& settings) {
  std::string out;
  RecordWriter writer(out);
  writer.Unsigned(settings.input_shapes.size());
  for (const auto& [name, dims] : settings.input_shapes) {
    writer.String(name);
    writer.Unsigned(dims.size());
    for (std::int64_t dim : dims) writer.Signed(dim);
  }
  writer.Unsigned(settings.dims.size());
  for (const auto& [symbol, value] : settings.dims) {
    writer.String(symbol);
    writer.Signed(value);
  }
  return out;
}

ir::InputShapeSettings ParseInputShapes(std::string_view bytes, const std::string& origin) {
  RecordReader in(bytes, origin + ": input shapes");
  ir::InputShapeSettings settings;
  const std::size_t inputs = in.Count("inputs");
  for (std::size_t i = 0; i < inputs; ++i) {
    const std::string field = "inputs[" + std::to_string(i) + "]";
    std::string name = in.String(field + ".name");
    std::vector<std::int64_t>& dims = settings.input_shapes[std::move(name)];
    const std::size_t rank = in.Count(field + ".dims");
    for (std::size_t axis = 0; axis < rank; ++axis) dims.push_back(in.Signed(field + ".dims"));
  }
  const std::size_t symbols = in.Count("dims");
  for (std::size_t i = 0; i < symbols; ++i) {
    const std::string field = "dims[" + std::to_string(i) + "]";
    std::string symbol = in.String(field + ".name");
    settings.dims[std::move(symbol)] = in.Signed(field + ".value");
  }
  in.ExpectEnd();
  return settings;
}

}  // namespace

std::string SerializeRewrites(const std::vector<LocalRewriting>& rewrites, std::string_view model_fingerprint,
                              const ir::InputShapeSettings& input_shapes) {
  std::string out(kRewriteFileMagic);
  {
    RecordWriter header(out);
    header.Unsigned(kRewriteFileVersion);
    header.String(model_fingerprint);
    header.String(SerializeInputShapes(input_shapes));
    header.Unsigned(rewrites.size());
  }
  for (std::size_t i = 0; i < rewrites.size(); ++i) {
    const std::string body = SerializeRecord(rewrites[i], i);
    {
      RecordWriter length(out);
      length.Unsigned(body.size());
    }
    out += body;
  }
  return out + RewriteFileChecksum(out);
}

RewriteFile ParseRewriteFile(std::string_view bytes, std::string_view origin_view) {
  const std::string origin(origin_view);
  if (bytes.size() < kRewriteFileMagic.size() || bytes.substr(0, kRewriteFileMagic.size()) != kRewriteFileMagic)
    throw ModelError(origin + ": not an onnxopt rewrite file (it does not start with the rewrite file signature)");
  std::size_t offset = kRewriteFileMagic.size();
  std::uint64_t version = 0;
  if (!ReadFileVarint(bytes, offset, version))
    throw ModelError(origin + ": truncated rewrite file: the format version is missing");
  const std::string readable = "this build reads versions " + std::to_string(kOldestReadableRewriteFileVersion) +
                               " to " + std::to_string(kRewriteFileVersion);
  if (version == 1 || version == 2)
    throw ModelError(origin + ": rewrite file format version " + std::to_string(version) + " is no longer supported (" +
                     readable + "; version 3 added " +
                     (version == 1 ? "a checksum, the removed nodes' signatures and the local functions"
                                   : "the local functions") +
                     " that rewrites add and remove): record the rewrites again with onnxopt optimize --record");
  if (version < kOldestReadableRewriteFileVersion || version > kRewriteFileVersion)
    throw ModelError(origin + ": rewrite file format version " + std::to_string(version) +
                     " is not supported (" + readable + ")");
  // Nothing else is read from a file that was changed after it was written.
  if (bytes.size() < offset + kChecksumBytes)
    throw ModelError(origin + ": truncated rewrite file: the checksum is missing");
  const std::string_view stored = bytes.substr(bytes.size() - kChecksumBytes);
  bytes.remove_suffix(kChecksumBytes);
  if (stored != RewriteFileChecksum(bytes))
    throw ModelError(origin + ": the rewrite file's checksum does not match its content: the file was changed or "
                     "damaged after it was written");
  RewriteFile file;
  std::uint64_t fingerprint_size = 0;
  if (!ReadFileVarint(bytes, offset, fingerprint_size))
    throw ModelError(origin + ": truncated rewrite file: the model fingerprint is missing");
  if (fingerprint_size > kMaxFingerprintBytes || fingerprint_size > bytes.size() - offset)
    throw ModelError(origin + ": corrupt rewrite file: a model fingerprint of " + std::to_string(fingerprint_size) +
                     " bytes (at most " + std::to_string(kMaxFingerprintBytes) + ", " +
                     std::to_string(bytes.size() - offset) + " left in the file)");
  file.model_fingerprint = bytes.substr(offset, fingerprint_size);
  offset += fingerprint_size;
  if (version >= 4) {
    std::uint64_t settings_size = 0;
    if (!ReadFileVarint(bytes, offset, settings_size) || settings_size > bytes.size() - offset)
      throw ModelError(origin + ": truncated rewrite file: the input shape settings are missing or cut short");
    file.input_shapes = ParseInputShapes(bytes.substr(offset, settings_size), origin);
    offset += settings_size;
  }
  std::uint64_t count = 0;
  if (!ReadFileVarint(bytes, offset, count))
    throw ModelError(origin + ": truncated rewrite file: the record count is missing");
  // A larger count is a corrupt file; checked before reserving room for the records.
  if (count > (bytes.size() - offset) / kMinRecordBytes)
    throw ModelError(origin + ": the rewrite file announces " + std::to_string(count) + " records but has only " +
                     std::to_string(bytes.size() - offset) + " bytes left (a record takes at least " +
                     std::to_string(kMinRecordBytes) + ")");

  std::vector<LocalRewriting>& rewrites = file.rewrites;
  rewrites.reserve(static_cast<std::size_t>(count));
  std::map<std::string, std::shared_ptr<const PatternOptimization>, std::less<>> patterns;
  for (std::size_t index = 0; index < count; ++index) {
    const std::string label = origin + ": record " + std::to_string(index);
    std::uint64_t size = 0;
    if (offset == bytes.size())
      throw ModelError(label + ": missing: the file ends after " + std::to_string(index) + " of " +
                       std::to_string(count) + " records (truncated file)");
    if (!ReadFileVarint(bytes, offset, size)) throw ModelError(label + ": malformed or truncated record length");
    if (size > bytes.size() - offset)
      throw ModelError(label + ": record length " + std::to_string(size) + " exceeds the " +
                       std::to_string(bytes.size() - offset) + " bytes left in the file (truncated or corrupt file)");
    if (size > kMaxRecordBytes)
      throw ModelError(label + ": record length " + std::to_string(size) + " exceeds the 2 GiB - 1 limit of a record");
    rewrites.push_back(ParseRecord(bytes.substr(offset, size), index, origin, patterns));
    offset += size;
  }
  if (offset != bytes.size())
    throw ModelError(origin + ": " + std::to_string(bytes.size() - offset) +
                     " unexpected bytes after the last record");
  return file;
}

std::vector<LocalRewriting> ParseRewrites(std::string_view bytes, std::string_view origin) {
  return ParseRewriteFile(bytes, origin).rewrites;
}

void SaveRewrites(const std::vector<LocalRewriting>& rewrites, const std::string& path,
                  std::string_view model_fingerprint) {
  ir::WriteFileAtomically(path, SerializeRewrites(rewrites, model_fingerprint), "rewrite file");
}

std::vector<LocalRewriting> LoadRewrites(const std::string& path) { return LoadRewriteFile(path).rewrites; }

RewriteFile LoadRewriteFile(const std::string& path) {
  // Records are read whole; the parser bounds every count by the bytes left.
  const std::string bytes = ir::ReadRegularFile(path, "rewrite file", kMaxFileBytes, "the 16 GiB limit of a rewrite file");
  return ParseRewriteFile(bytes, path);
}

}  // namespace onnxopt::core::builder
