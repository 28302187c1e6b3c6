// Rewrite files (onnx_core/optimizer/rewrite_file.h): every field survives a round trip,
// and damaged or hostile files raise ModelError naming the record and field, never crash.
// Files built by hand end with their checksum (Sealed), so that the parser gets to the
// damage they describe; the checksum itself is tested on files that were changed.

#include "onnx_core/optimizer/rewrite_file.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::builder {
namespace {

namespace fs = std::filesystem;
using testing::ListFiles;
using testing::TempDir;

// The parts of a file built by hand, to describe damaged files precisely.
std::string Varint(std::uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
  return out;
}
std::string Bytes(std::string_view text) { return Varint(text.size()) + std::string(text); }
// From version 4 on, the header holds input shape settings (`settings`; by default none).
std::string Header(std::uint64_t version, std::uint64_t count, std::string_view fingerprint = "",
                   std::string_view settings = "") {
  std::string settings_field;
  if (version >= 4) settings_field = Bytes(settings.empty() ? Varint(0) + Varint(0) : std::string(settings));
  return std::string(kRewriteFileMagic) + Varint(version) + Bytes(fingerprint) + settings_field + Varint(count);
}
std::string Record(std::string_view body) { return Varint(body.size()) + std::string(body); }
// Bytes after a short damaged record, so that the file has room for the record it
// announces (17 bytes at least) and the parser gets to the damage inside the record.
std::string Padded(std::string file) { return file + std::string(17, '\0'); }
// A record body with no element in any list, up to (not including) matched_nodes.
std::string BodyStart(std::string_view name = "P") { return Bytes(name) + Varint(0) + Varint(0); }
// The rest of an empty body after matched_nodes: signatures, added nodes and positions,
// added initializers and positions, removed initializers, added and removed functions,
// renames, two times.
std::string BodyEnd() {
  return Varint(0) + Varint(0) + Varint(0) + Varint(0) + Varint(0) + Varint(0) + Varint(0) + Varint(0) + Varint(0) +
         Varint(0) + Varint(0);
}
// `content` with the checksum that ends a valid file.
std::string Sealed(const std::string& content) { return content + RewriteFileChecksum(content); }
constexpr std::uint64_t kVersion = kRewriteFileVersion;

// Expects ParseRewrites(bytes) to throw ModelError whose message contains every part.
// `bytes` is sealed first unless told otherwise.
void ExpectRejected(const std::string& bytes, const std::vector<std::string>& parts, bool seal = true) {
  try {
    ParseRewrites(seal ? Sealed(bytes) : bytes, "test.rewrites");
    ADD_FAILURE() << "no error; expected one mentioning '" << parts.front() << "'";
  } catch (const ModelError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("test.rewrites"), std::string::npos) << message;
    for (const std::string& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << "expected '" << part << "' in: " << message;
  }
}

NodeProto MakeNode(const std::string& op, const std::string& input, const std::string& output) {
  NodeProto node;
  node.set_op_type(op);
  node.set_name(op + "--" + output);
  node.add_input(input);
  node.add_output(output);
  AttributeProto* attribute = node.add_attribute();
  attribute->set_name("to");
  attribute->set_type(AttributeProto::INT);
  attribute->set_i(10);
  return node;
}

TensorProto MakeTensor(const std::string& name, std::string raw) {
  TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(TensorProto::UINT8);
  tensor.add_dims(static_cast<std::int64_t>(raw.size()));
  tensor.set_raw_data(std::move(raw));
  return tensor;
}

// Two records, every field set, with values that need several varint bytes and signs.
std::vector<LocalRewriting> SampleRewrites() {
  std::vector<LocalRewriting> rewrites(3);
  LocalRewriting& first = rewrites[0];
  first.pattern = std::make_shared<NamedOperation>("CastCastPattern");
  first.matched_nodes = {0, 7, 300};
  *first.added_nodes.Add() = MakeNode("Cast", "x", "y");
  *first.added_nodes.Add() = MakeNode("Relu", "y", "z");
  first.added_nodes_positions = {5, 1};
  *first.added_initializers.Add() = MakeTensor("w", std::string("\0\1\2\xff", 4));
  first.added_initializer_positions = {2};
  first.removed_initializers = {0, 130000};
  FunctionProto& function = *first.added_functions.Add();
  function.set_domain("intermediate");
  function.set_name("F");
  function.add_input("X");
  function.add_output("Y");
  *function.add_node() = MakeNode("Neg", "X", "Y");
  *first.added_functions.Add() = function;
  first.added_functions.Mutable(1)->set_name("G");
  first.removed_functions = {1, 200000};
  first.value_renames = {{"a", "b"}, {"", "é"}};
  first.iteration = (1ull << 40) + 3;
  first.graph_path = {SubgraphKey{"if_out", "then_branch", -1}, SubgraphKey{"loop_out", "branches", 2}};
  first.match_time_ns = 123456789;
  first.apply_time_ns = -5;
  rewrites[1].pattern = std::make_shared<NamedOperation>("RemoveIdentityNodes");
  rewrites[1].matched_nodes = {3, 4};
  rewrites[1].matched_node_signatures = {{"Identity", "", {"c"}}, {"FusedMatMul", "com.microsoft", {"d", "", "é"}}};
  rewrites[2].pattern = std::make_shared<NamedOperation>("CastCastPattern");
  return rewrites;
}

void ExpectSameRecord(const LocalRewriting& loaded, const LocalRewriting& original) {
  EXPECT_EQ(loaded.Name(), original.Name());
  EXPECT_EQ(loaded.matched_nodes, original.matched_nodes);
  EXPECT_EQ(loaded.matched_node_signatures, original.matched_node_signatures);
  ASSERT_EQ(loaded.added_nodes.size(), original.added_nodes.size());
  for (int i = 0; i < loaded.added_nodes.size(); ++i)
    EXPECT_EQ(loaded.added_nodes.Get(i).SerializeAsString(), original.added_nodes.Get(i).SerializeAsString());
  EXPECT_EQ(loaded.added_nodes_positions, original.added_nodes_positions);
  ASSERT_EQ(loaded.added_initializers.size(), original.added_initializers.size());
  for (int i = 0; i < loaded.added_initializers.size(); ++i)
    EXPECT_EQ(loaded.added_initializers.Get(i).SerializeAsString(),
              original.added_initializers.Get(i).SerializeAsString());
  EXPECT_EQ(loaded.added_initializer_positions, original.added_initializer_positions);
  EXPECT_EQ(loaded.removed_initializers, original.removed_initializers);
  ASSERT_EQ(loaded.added_functions.size(), original.added_functions.size());
  for (int i = 0; i < loaded.added_functions.size(); ++i)
    EXPECT_EQ(loaded.added_functions.Get(i).SerializeAsString(), original.added_functions.Get(i).SerializeAsString());
  EXPECT_EQ(loaded.removed_functions, original.removed_functions);
  EXPECT_EQ(loaded.value_renames, original.value_renames);
  EXPECT_EQ(loaded.iteration, original.iteration);
  EXPECT_EQ(loaded.graph_path, original.graph_path);
  EXPECT_EQ(loaded.match_time_ns, original.match_time_ns);
  EXPECT_EQ(loaded.apply_time_ns, original.apply_time_ns);
}

TEST(RewriteFile, RoundTripsEveryField) {
  const std::vector<LocalRewriting> original = SampleRewrites();
  const std::string bytes = SerializeRewrites(original);
  EXPECT_TRUE(bytes.starts_with(kRewriteFileMagic));
  const std::vector<LocalRewriting> loaded = ParseRewrites(bytes);
  ASSERT_EQ(loaded.size(), original.size());
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    ExpectSameRecord(loaded[i], original[i]);
  }
  // Serializing what was loaded gives the same bytes: the format is deterministic.
  EXPECT_EQ(SerializeRewrites(loaded), bytes);
}

TEST(RewriteFile, SharesOneNamedOperationPerName) {
  const std::vector<LocalRewriting> loaded = ParseRewrites(SerializeRewrites(SampleRewrites()));
  ASSERT_EQ(loaded.size(), 3u);
  EXPECT_EQ(loaded[0].pattern.get(), loaded[2].pattern.get());
  EXPECT_NE(loaded[0].pattern.get(), loaded[1].pattern.get());
  EXPECT_NE(dynamic_cast<const NamedOperation*>(loaded[0].pattern.get()), nullptr);
}

TEST(RewriteFile, RoundTripsNoRecord) {
  const std::string bytes = SerializeRewrites({});
  EXPECT_EQ(bytes, Sealed(Header(kRewriteFileVersion, 0)));
  EXPECT_TRUE(ParseRewrites(bytes).empty());
}

TEST(RewriteFile, RoundTripsTheModelFingerprint) {
  const std::string bytes = SerializeRewrites(SampleRewrites(), "0123456789abcdef");
  const RewriteFile file = ParseRewriteFile(bytes);
  EXPECT_EQ(file.model_fingerprint, "0123456789abcdef");
  EXPECT_EQ(file.rewrites.size(), 3u);
  EXPECT_EQ(ParseRewriteFile(SerializeRewrites(SampleRewrites())).model_fingerprint, "");
  ExpectRejected(Header(kVersion, 0, std::string(300, 'f')), {"model fingerprint of 300 bytes"});
  ExpectRejected(std::string(kRewriteFileMagic) + Varint(kVersion) + Varint(5) + "ab", {"model fingerprint of 5 bytes"});
  ExpectRejected(std::string(kRewriteFileMagic) + Varint(kVersion), {"model fingerprint is missing"});
}

TEST(RewriteFile, FingerprintTellsModelsApart) {
  const ModelProto model = testing::ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) { a = Relu (x)  y = Add (a, w) })ONNX");
  ModelProto with_weight = model;
  *with_weight.mutable_graph()->add_initializer() = MakeTensor("w", "12345678");
  const std::string fingerprint = ModelFingerprint(with_weight);
  EXPECT_EQ(fingerprint.size(), 16u);
  EXPECT_EQ(ModelFingerprint(ModelProto(with_weight)), fingerprint) << "deterministic";
  EXPECT_NE(ModelFingerprint(model), fingerprint);
  ModelProto other_data = with_weight;
  other_data.mutable_graph()->mutable_initializer(0)->set_raw_data("12345679");
  EXPECT_NE(ModelFingerprint(other_data), fingerprint) << "folded constants depend on the weights";
  ModelProto other_node = with_weight;
  other_node.mutable_graph()->mutable_node(0)->set_op_type("Sigmoid");
  EXPECT_NE(ModelFingerprint(other_node), fingerprint);
  ModelProto other_opset = with_weight;
  other_opset.mutable_opset_import(0)->set_version(17);
  EXPECT_NE(ModelFingerprint(other_opset), fingerprint);
}

TEST(RewriteFile, RefusesToWriteMismatchedPositions) {
  std::vector<LocalRewriting> rewrites = SampleRewrites();
  rewrites[0].added_nodes_positions.pop_back();
  EXPECT_THROW(SerializeRewrites(rewrites), BuilderError);
}

TEST(RewriteFile, RejectsTruncationAtEveryByte) {
  const std::string bytes = SerializeRewrites(SampleRewrites(), "0123456789abcdef");
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " bytes");
    EXPECT_THROW(ParseRewrites(std::string_view(bytes).substr(0, size)), ModelError);
  }
}

TEST(RewriteFile, RejectsEveryChangedByte) {
  const std::string bytes = SerializeRewrites(SampleRewrites(), "0123456789abcdef");
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      SCOPED_TRACE("byte " + std::to_string(i) + " ^ " + std::to_string(flip));
      std::string corrupt = bytes;
      corrupt[i] = static_cast<char>(static_cast<unsigned char>(corrupt[i]) ^ flip);
      EXPECT_THROW(ParseRewrites(corrupt), ModelError);
    }
  }
}

TEST(RewriteFile, RejectsAChecksumThatDoesNotMatch) {
  std::string bytes = SerializeRewrites(SampleRewrites());
  bytes.back() = static_cast<char>(bytes.back() ^ 1);
  ExpectRejected(bytes, {"checksum does not match", "changed or damaged"}, /*seal=*/false);
  // A record changed inside its range (a position 0 -> 1) is caught the same way.
  std::string edited = SerializeRewrites(SampleRewrites());
  const std::size_t checksum_start = edited.size() - 8;
  const std::string original = edited;
  edited[checksum_start - 3] = static_cast<char>(edited[checksum_start - 3] ^ 1);
  ExpectRejected(edited, {"checksum does not match"}, /*seal=*/false);
  EXPECT_NO_THROW(ParseRewrites(original));
}

TEST(RewriteFile, CorruptBytesUnderAValidChecksumGiveModelErrorOrValidRecords) {
  // Whoever edits a file can compute the checksum again: the parser still never crashes.
  const std::string bytes = SerializeRewrites(SampleRewrites(), "0123456789abcdef");
  const std::string content = bytes.substr(0, bytes.size() - 8);
  for (std::size_t i = 0; i < content.size(); ++i) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      std::string corrupt = content;
      corrupt[i] = static_cast<char>(static_cast<unsigned char>(corrupt[i]) ^ flip);
      try {
        ParseRewrites(Sealed(corrupt));  // some flips stay valid (a position, a name byte)
      } catch (const ModelError&) {
      }
    }
  }
}

TEST(RewriteFile, RejectsWrongMagic) {
  ExpectRejected("", {"not an onnxopt rewrite file"}, /*seal=*/false);
  ExpectRejected("ORWR", {"not an onnxopt rewrite file"}, /*seal=*/false);
  std::string bytes = SerializeRewrites(SampleRewrites());
  bytes[4] = '\n';  // as a text-mode transfer would leave it
  ExpectRejected(bytes, {"not an onnxopt rewrite file"}, /*seal=*/false);
}

TEST(RewriteFile, RoundTripsTheInputShapeSettings) {
  const ir::InputShapeSettings settings{.input_shapes = {{"x", {1, 3, 224, 224}}, {"", {}}}, .dims = {{"seq", 128}}};
  const RewriteFile file = ParseRewriteFile(SerializeRewrites(SampleRewrites(), "0123456789abcdef", settings));
  EXPECT_EQ(file.input_shapes, settings);
  EXPECT_EQ(file.rewrites.size(), 3u);
  EXPECT_TRUE(ParseRewriteFile(SerializeRewrites({})).input_shapes.empty());
  // The settings field is bounded like a record: a count or a length past its end is refused.
  ExpectRejected(Header(kVersion, 0, "", Varint(1) + Bytes("x") + Varint(9)), {"input shapes", "count 9 exceeds"});
  ExpectRejected(Header(kVersion, 0, "", Varint(0) + Varint(0) + Varint(0)), {"input shapes", "1 unexpected bytes"});
  ExpectRejected(std::string(kRewriteFileMagic) + Varint(kVersion) + Bytes("") + Varint(7) + "ab",
                 {"input shape settings are missing or cut short"});
}

TEST(RewriteFile, ReadsVersionThreeFilesWhichHaveNoInputShapes) {
  const std::string current = SerializeRewrites(SampleRewrites(), "0123456789abcdef");
  // The same records in a version 3 header.
  const std::string records = current.substr(Header(kVersion, 3, "0123456789abcdef").size());
  const std::string version_three =
      Sealed(Header(3, 3, "0123456789abcdef") + records.substr(0, records.size() - 8));
  const RewriteFile file = ParseRewriteFile(version_three);
  EXPECT_EQ(file.model_fingerprint, "0123456789abcdef");
  EXPECT_TRUE(file.input_shapes.empty());
  EXPECT_EQ(SerializeRewrites(file.rewrites, file.model_fingerprint), current);
}

TEST(RewriteFile, RejectsUnknownVersion) {
  ExpectRejected(Header(5, 0), {"format version 5 is not supported", "reads versions 3 to 4"});
  ExpectRejected(Header(0, 0), {"format version 0 is not supported"});
  ExpectRejected(std::string(kRewriteFileMagic), {"format version is missing"}, /*seal=*/false);
}

TEST(RewriteFile, ExplainsThatVersionOneIsNoLongerRead) {
  // A version 1 file: no checksum, no signatures.
  ExpectRejected(Header(1, 1) + Record(BodyStart() + Varint(0) + BodyEnd().substr(3)),
                 {"format version 1 is no longer supported", "checksum", "onnxopt optimize --record"},
                 /*seal=*/false);
}

TEST(RewriteFile, ExplainsThatVersionTwoIsNoLongerRead) {
  // A version 2 file: checksum and signatures, no local functions.
  ExpectRejected(Header(2, 1) + Record(BodyStart() + Varint(0) + BodyEnd().substr(2)),
                 {"rewrite file format version 2 is no longer supported", "this build reads versions 3 to 4",
                  "version 3 added the local functions", "record the rewrites again with onnxopt optimize --record"});
}

TEST(RewriteFile, RejectsSignaturesThatDoNotMatchThePositions) {
  ExpectRejected(Header(kVersion, 1) + Record(BodyStart() + Varint(2) + Varint(0) + Varint(1) + Varint(1) + Bytes("Relu") +
                                              Bytes("") + Varint(1) + Bytes("y") + BodyEnd().substr(1)),
                 {"record 0 ('P')", "field matched_node_signatures", "1 signatures for 2 matched nodes"});
  std::vector<LocalRewriting> rewrites = SampleRewrites();
  rewrites[1].matched_node_signatures.pop_back();
  EXPECT_THROW(SerializeRewrites(rewrites), BuilderError);
}

TEST(RewriteFile, RejectsAbsurdRecordCount) {
  ExpectRejected(Header(kVersion, UINT64_MAX), {"announces 18446744073709551615 records"});
  // Each record takes at least 17 bytes, which the smallest record does.
  ExpectRejected(Header(kVersion, 2) + Record(BodyStart() + Varint(0) + BodyEnd()), {"announces 2 records"});
  const std::string smallest = Record(BodyStart() + Varint(0) + BodyEnd());
  EXPECT_EQ(smallest.size(), 17u);
  EXPECT_EQ(ParseRewrites(Sealed(Header(kVersion, 1) + smallest)).size(), 1u);
  ExpectRejected(Header(kVersion, 2) + Record(BodyStart(std::string(40, 'n')) + Varint(0) + BodyEnd()),
                 {"record 1", "truncated"});
}

TEST(RewriteFile, RejectsAbsurdLengths) {
  ExpectRejected(Padded(Header(kVersion, 1) + Varint(1ull << 62)), {"record 0", "exceeds"});
  // A pattern name longer than the record.
  ExpectRejected(Padded(Header(kVersion, 1) + Record(Varint(1000) + "abc")), {"record 0", "field pattern", "length 1000"});
  // A list count no record could hold.
  ExpectRejected(Header(kVersion, 1) + Record(BodyStart() + Varint(UINT64_MAX) + BodyEnd()),
                 {"record 0 ('P')", "field matched_nodes", "count 18446744073709551615"});
  ExpectRejected(Padded(Header(kVersion, 1) + Record(BodyStart() + Varint(0) + Varint(0) + Varint(1) + Varint(1u << 30))),
                 {"record 0 ('P')", "field added_nodes[0]", "length 1073741824"});
}

TEST(RewriteFile, RejectsPositionsThatOverflow) {
  for (std::uint64_t position : {std::uint64_t{1} << 31, std::uint64_t{1} << 40, UINT64_MAX}) {
    ExpectRejected(Header(kVersion, 1) + Record(BodyStart() + Varint(1) + Varint(position) + BodyEnd()),
                   {"record 0 ('P')", "field matched_nodes[0]", "larger than any graph"});
  }
  // Eleven continuation bytes: more than a 64-bit varint.
  ExpectRejected(Header(kVersion, 1) + Record(BodyStart() + Varint(1) + std::string(11, '\xff') + BodyEnd()),
                 {"record 0 ('P')", "matched_nodes[0]", "malformed varint"});
}

TEST(RewriteFile, RejectsMismatchedPositionCount) {
  const std::string node = MakeNode("Relu", "x", "y").SerializeAsString();
  const std::string body = BodyStart() + Varint(0) + Varint(0) + Varint(1) + Bytes(node) + Varint(0) + Varint(0) +
                           Varint(0) + Varint(0) + Varint(0) + Varint(0) + Varint(0);
  ExpectRejected(Header(kVersion, 1) + Record(body), {"record 0 ('P')", "added_nodes_positions", "0 positions for 1"});
}

TEST(RewriteFile, RejectsInvalidMessagesAndBadFields) {
  ExpectRejected(Header(kVersion, 1) + Record(BodyStart() + Varint(0) + Varint(0) + Varint(1) + Bytes("\xff\xff") +
                                              BodyEnd().substr(2)),
                 {"record 0 ('P')", "added_nodes[0]", "not a valid NodeProto"});
  // added_functions[0]: matched_nodes to removed_initializers empty, then one function.
  const std::string up_to_functions = BodyStart() + Varint(0) + BodyEnd().substr(0, 6);
  ExpectRejected(Header(kVersion, 1) + Record(up_to_functions + Varint(1) + Bytes("\xff\xff") + BodyEnd().substr(7)),
                 {"record 0 ('P')", "added_functions[0]", "not a valid FunctionProto"});
  ExpectRejected(Header(kVersion, 1) + Record(up_to_functions + Varint(0) + Varint(1) + Varint(1ull << 40) +
                                              BodyEnd().substr(8)),
                 {"record 0 ('P')", "removed_functions[0]", "larger than any graph"});
  ExpectRejected(Padded(Header(kVersion, 1) + Record(Bytes("") + Varint(0) + Varint(0) + Varint(0) + BodyEnd())),
                 {"record 0", "pattern name is empty"});
  // graph_path[0].index = -2 (zigzag 3).
  ExpectRejected(Header(kVersion, 1) + Record(Bytes("P") + Varint(0) + Varint(1) + Bytes("o") + Bytes("a") + Varint(3) +
                                        Varint(0) + BodyEnd()),
                 {"record 0 ('P')", "graph_path[0].index", "-2"});
  ExpectRejected(Header(kVersion, 1) + Record(BodyStart() + Varint(0) + BodyEnd() + "x"),
                 {"record 0 ('P')", "1 unexpected bytes"});
  const std::string file = SerializeRewrites(SampleRewrites());
  ExpectRejected(file.substr(0, file.size() - 8) + "x", {"1 unexpected bytes after the last record"});
  // A record that ends before its last fields.
  ExpectRejected(Padded(Header(kVersion, 1) + Record(BodyStart() + Varint(0))),
                 {"record 0 ('P')", "field matched_node_signatures", "missing"});
}

TEST(RewriteFile, SavesAtomicallyAndLoads) {
  TempDir dir;
  const std::string path = (dir / "out.rewrites").string();
  SaveRewrites(SampleRewrites(), path);
  EXPECT_EQ(ListFiles(dir.path()).size(), 1u);  // no temporary file left
  const std::vector<LocalRewriting> loaded = LoadRewrites(path);
  ASSERT_EQ(loaded.size(), 3u);
  ExpectSameRecord(loaded[0], SampleRewrites()[0]);
  // Saving over an existing file replaces it.
  SaveRewrites({}, path);
  EXPECT_TRUE(LoadRewrites(path).empty());
}

TEST(RewriteFile, ReportsFileErrors) {
  TempDir dir;
  EXPECT_THROW(LoadRewrites((dir / "missing.rewrites").string()), IoError);
  EXPECT_THROW(LoadRewrites(dir.path().string()), IoError);
  EXPECT_THROW(SaveRewrites(SampleRewrites(), (dir / "no" / "such" / "folder.rewrites").string()), IoError);
  EXPECT_THROW(SaveRewrites(SampleRewrites(), dir.path().string()), IoError);
  EXPECT_TRUE(ListFiles(dir.path()).empty());
  testing::WriteFile(dir / "bad.rewrites", "not a rewrite file");
  try {
    LoadRewrites((dir / "bad.rewrites").string());
    ADD_FAILURE() << "no error";
  } catch (const ModelError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.rewrites"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace onnxopt::core::builder
