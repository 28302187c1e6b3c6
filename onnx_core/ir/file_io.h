#pragma once
// Files written atomically and files read whole: the plumbing every output of onnxopt
// (models, external data, rewrite files, reports) and every input shares.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

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
// prepares them all and commits them only when everything succeeded. Every failure is an
// IoError starting with `error_prefix` ("cannot write model 'out.onnx'").
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

 private:
  [[noreturn]] void Fail(int error) const;

  std::filesystem::path destination_;
  std::string error_prefix_;
  std::filesystem::path temporary_;
  FileDescriptor fd_;
  bool committed_ = false;
};

// Writes `bytes` to `path` atomically: on error, `path` is untouched and nothing is left
// behind. `what` names the file in messages ("rewrite file"). Throws IoError.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view bytes, std::string_view what);

// The content of the regular file `path`. Throws IoError naming `what` and the path when
// it cannot be opened or read, or is no regular file; ModelError when it is larger than
// `max_bytes` (whose meaning `limit` explains, e.g. "protobuf's limit of 2 GiB - 1").
std::string ReadRegularFile(const std::filesystem::path& path, std::string_view what, std::uint64_t max_bytes,
                            std::string_view limit);

}  // namespace onnxopt::core::ir
