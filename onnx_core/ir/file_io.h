#pragma once
// Files written atomically and files read whole: the plumbing every output of onnxopt
// (models, external data, rewrite files, reports) and every input shares.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace onnxopt::core::ir {

// An open file descriptor, closed on destruction.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept;
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Reads `size` bytes at `offset`; returns an error text, empty on success.
std::string ReadFully(int fd, char* data, std::uint64_t size, std::uint64_t offset);

// A file written under a temporary name next to its destination and renamed over it by
// Commit(); removed when destroyed before that. A caller that writes several files
// prepares them all and commits them only when everything succeeded (OutputFiles). Every
// failure is an IoError starting with `error_prefix` ("cannot write model 'out.onnx'"),
// among them a destination that exists and is no regular file (a directory, a FIFO, a
// device...: the rename would fail or replace it), refused before anything is written.
// A symbolic link as destination is replaced by the file, its target left alone.
class AtomicFile {
 public:
  AtomicFile(std::filesystem::path destination, std::string error_prefix);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  void WriteAt(std::string_view bytes, std::uint64_t offset);
  // Flushes the data to the disk (Commit does it too).
  void Sync();
  // Flushes, renames the file over its destination, and makes the rename durable.
  void Commit();
  const std::filesystem::path& Destination() const { return destination_; }

 private:
  [[noreturn]] void Fail(int error) const;

  std::filesystem::path destination_;
  std::string error_prefix_;
  std::filesystem::path temporary_;
  FileDescriptor fd_;
  bool committed_ = false;
};

// Files written together: each is prepared as an AtomicFile, and Commit() renames them all,
// in the order they were added, once all were written and flushed. Destroyed before
// Commit(), it removes every temporary file: a command that fails anywhere leaves none of
// its outputs. (A rename itself failing midway, after the destinations were checked, would
// leave the earlier ones in place: renames in one folder do not fail but on a broken disk.)
class OutputFiles {
 public:
  // A new file to prepare; the reference stays valid as long as `this`.
  AtomicFile& Add(std::filesystem::path destination, std::string error_prefix);
  // The destinations, in the order of Add.
  std::vector<std::filesystem::path> Destinations() const;
  void Commit();

 private:
  std::vector<std::unique_ptr<AtomicFile>> files_;
};

// Writes `bytes` to `path` atomically: on error, `path` is untouched and nothing is left
// behind. `what` names the file in messages ("rewrite file"). Throws IoError.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string_view what);

// A regular file opened for reading, and its size.
struct OpenedFile {
  FileDescriptor fd;
  std::uint64_t size = 0;
};

// Opens `path` (symbolic links followed) when it is a regular file. Anything else is
// refused without blocking and without opening it for good (a FIFO would wait for a
// writer for ever, a device could be read for ever): IoError "cannot open WHAT 'PATH': a
// FIFO, not a regular file" (a directory, a socket, a character or block device alike).
// `what` names the file's role ("model", "input file").
OpenedFile OpenRegularFile(const std::filesystem::path& path, std::string_view what);

// The content of the regular file `path`. Throws IoError naming `what` and the path when
// it cannot be opened or read, or is no regular file (OpenRegularFile); ModelError when
// it is larger than `max_bytes` (whose meaning `limit` explains, e.g. "protobuf's limit of
// 2 GiB - 1").
std::string ReadRegularFile(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes,
                            std::string_view limit);

// Which file a path designates, so that two paths can be compared whatever their
// spelling ("m.onnx", "./m.onnx", "../dir/m.onnx", a folder reached through a link):
// - read: the file opened by reading `path`, every symbolic link resolved;
// - written: the folder entry that an AtomicFile for `path` replaces, i.e. the folder
//   resolved and the last name kept (a link there is replaced, its target untouched).
// An output replaces an input exactly when ResolvedWritePath(output) equals
// ResolvedReadPath(input). Paths that do not exist yet are resolved as far as they exist.
std::filesystem::path ResolvedReadPath(const std::filesystem::path& path);
std::filesystem::path ResolvedWritePath(const std::filesystem::path& path);

}  // namespace onnxopt::core::ir
