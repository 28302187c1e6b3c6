#pragma once
// Saving and loading LocalRewriting records ("rewrite files").
//
// A rewrite file captures what GraphGraph::Optimize did to a model, so that Replay can
// do it again on a fresh copy of the same model without matching. The format is a small
// versioned binary one built on protobuf's varints and length-delimited fields; it is
// documented byte by byte in docs/record-format.md.
//
// A rewrite file is untrusted input: it ends with a checksum of its content, checked
// before anything else is read (a changed byte is refused), and parsing checks every
// count, length and position against the bytes that remain, so a truncated or hostile
// file raises ModelError naming the record and the field, and never allocates more than
// the file's size suggests. Whether the records fit a given model is Replay's business
// (BuilderError).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "onnx_core/ir/input_shapes.h"
#include "onnx_core/optimizer/local_rewriting.h"

namespace onnxopt::core::builder {

// The first bytes of every rewrite file, and the only format version this build writes
// and reads (version 1 had no checksum and no removed-node signatures, version 2 no
// local functions).
inline constexpr std::string_view kRewriteFileMagic{"ORWR\r\n\x1a\n", 8};
inline constexpr std::uint32_t kRewriteFileVersion = 4;
// The oldest version this build still reads (version 3 has no input shape settings).
inline constexpr std::uint32_t kOldestReadableRewriteFileVersion = 3;

// Records refer to the graph by position only, so a record replayed on another model
// would silently rewrite the wrong nodes. A rewrite file therefore stores the fingerprint
// of the model it was recorded on (optional: empty when unknown), which replay compares.
//
// The fingerprint covers what a replay depends on: opset imports, graph inputs and
// outputs, every node (nested graphs included), every initializer with its data (a
// folded constant depends on it) and the local functions. 16 hexadecimal digits of a 64-bit hash: it detects
// mistakes, it is not a cryptographic signature.
std::string ModelFingerprint(const ModelProto& model);

// A rewrite file's content.
struct RewriteFile {
  std::string model_fingerprint;  // empty: not recorded
  // The input shapes fixed before optimizing (--overwrite-input-shape, --dim): the records
  // fit the model only once these are applied to it.
  ir::InputShapeSettings input_shapes;
  std::vector<LocalRewriting> rewrites;
};

// The records in the rewrite file format. Throws BuilderError for a record whose position
// lists do not match its added elements (Replay could not apply it either).
std::string SerializeRewrites(const std::vector<LocalRewriting>& rewrites, std::string_view model_fingerprint = {},
                              const ir::InputShapeSettings& input_shapes = {});

// The 8 bytes that end a rewrite file: a checksum of `content`, every byte before them
// (docs/record-format.md).
std::string RewriteFileChecksum(std::string_view content);

// Parses a rewrite file's bytes; `origin` names them in error messages. Loaded records
// point to one NamedOperation per distinct pattern name (the pattern objects that made
// them are not needed to replay them). Throws ModelError.
RewriteFile ParseRewriteFile(std::string_view bytes, std::string_view origin = "rewrite file");
std::vector<LocalRewriting> ParseRewrites(std::string_view bytes, std::string_view origin = "rewrite file");

// Writes the records to `path` atomically (temporary file in the same folder, then
// rename): on error, `path` is untouched and no partial file remains. Throws IoError.
void SaveRewrites(const std::vector<LocalRewriting>& rewrites, const std::string& path,
                  std::string_view model_fingerprint = {});

// Reads and parses `path`. Throws IoError (cannot read) or ModelError (not a valid file).
RewriteFile LoadRewriteFile(const std::string& path);
std::vector<LocalRewriting> LoadRewrites(const std::string& path);

}  // namespace onnxopt::core::builder
