#include "onnx_core/ir/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <utility>

#include "onnx_core/common/error.h"

namespace onnxopt::core::ir {

namespace fs = std::filesystem;

namespace {

// Linux transfers at most about 2 GiB per read or write call.
constexpr std::uint64_t kMaxIoChunk = 1 << 30;

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string RandomSuffix() {
  static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 engine{std::random_device{}()};
  std::string suffix(6, ' ');
  for (char& c : suffix) c = kAlphabet[engine() % kAlphabet.size()];
  return suffix;
}

// Writes `size` bytes at `offset`; returns errno, 0 on success.
int WriteFully(int fd, const char* data, std::uint64_t size, std::uint64_t offset) {
  while (size > 0) {
    const ssize_t count = pwrite(fd, data, std::min(size, kMaxIoChunk), static_cast<off_t>(offset));
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return errno;
    data += count;
    size -= count;
    offset += count;
  }
  return 0;
}

}  // namespace

FileDescriptor::FileDescriptor(FileDescriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) close(fd_);
}

std::string ReadFully(int fd, char* data, std::uint64_t size, std::uint64_t offset) {
  while (size > 0) {
    const ssize_t count = pread(fd, data, std::min(size, kMaxIoChunk), static_cast<off_t>(offset));
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return std::strerror(errno);
    if (count == 0) return "unexpected end of file";
    data += count;
    size -= count;
    offset += count;
  }
  return {};
}

AtomicFile::AtomicFile(fs::path destination, std::string error_prefix)
    : destination_(std::move(destination)), error_prefix_(std::move(error_prefix)) {
  for (int attempt = 0; attempt < 100 && !fd_.valid(); ++attempt) {
    temporary_ = destination_;
    temporary_ += ".tmp-" + RandomSuffix();
    // open() rather than mkstemp(): the file gets the umask's permissions, not 0600.
    fd_ = FileDescriptor(open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (!fd_.valid() && errno != EEXIST) {
      const int error = errno;
      temporary_.clear();
      Fail(error);
    }
  }
  if (!fd_.valid()) {
    temporary_.clear();
    Fail(EEXIST);
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !temporary_.empty()) unlink(temporary_.c_str());
}

void AtomicFile::WriteAt(std::string_view bytes, std::uint64_t offset) {
  if (int error = WriteFully(fd_.get(), bytes.data(), bytes.size(), offset); error != 0) Fail(error);
}

void AtomicFile::Sync() {
  if (fsync(fd_.get()) != 0) Fail(errno);
}

void AtomicFile::Commit() {
  if (committed_) return;
  Sync();
  if (rename(temporary_.c_str(), destination_.c_str()) != 0) Fail(errno);
  committed_ = true;
  // Makes the rename durable; a failure here leaves the complete file in place.
  const fs::path folder = destination_.has_parent_path() ? destination_.parent_path() : fs::path(".");
  FileDescriptor folder_fd(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder_fd.valid()) fsync(folder_fd.get());
}

void AtomicFile::Fail(int error) const { throw IoError(error_prefix_ + ": " + std::strerror(error)); }

void WriteFileAtomically(const fs::path& path, std::string_view bytes, std::string_view what) {
  AtomicFile file(path, "cannot write " + std::string(what) + " " + Quote(path.string()));
  file.WriteAt(bytes, 0);
  file.Commit();
}

std::string ReadRegularFile(const fs::path& path, std::string_view what, std::uint64_t max_bytes,
                            std::string_view limit) {
  const std::string origin = path.string();
  FileDescriptor fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (!fd.valid() || fstat(fd.get(), &info) != 0) {
    const int error = errno;
    throw IoError("cannot open " + std::string(what) + " " + Quote(origin) + ": " + std::strerror(error));
  }
  if (!S_ISREG(info.st_mode))
    throw IoError("cannot open " + std::string(what) + " " + Quote(origin) + ": not a regular file");
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes)
    throw ModelError(origin + ": the file has " + std::to_string(info.st_size) + " bytes, more than " +
                     std::string(limit));
  std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
  if (std::string error = ReadFully(fd.get(), bytes.data(), bytes.size(), 0); !error.empty())
    throw IoError("cannot read " + std::string(what) + " " + Quote(origin) + ": " + error);
  return bytes;
}

}  // namespace onnxopt::core::ir
