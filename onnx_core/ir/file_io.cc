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
#include "onnx_core/common/quote.h"

namespace onnxopt::core::ir {

namespace fs = std::filesystem;

namespace {

// Linux transfers at most about 2 GiB per read or write call.
constexpr std::uint64_t kMaxIoChunk = 1 << 30;

std::string RandomSuffix() {
  static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 engine{std::random_device{}()};
  std::string suffix(6, ' ');
  for (char& c : suffix) c = kAlphabet[engine() % kAlphabet.size()];
  return suffix;
}

// "a FIFO" for the kinds of file that are no regular file.
std::string FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "a special file";
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
  struct stat existing {};
  if (lstat(destination_.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode) && !S_ISLNK(existing.st_mode))
    throw IoError(error_prefix_ + ": " + FileKind(existing.st_mode) + ", not a regular file");
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

AtomicFile& OutputFiles::Add(fs::path destination, std::string error_prefix) {
  return *files_.emplace_back(std::make_unique<AtomicFile>(std::move(destination), std::move(error_prefix)));
}

std::vector<fs::path> OutputFiles::Destinations() const {
  std::vector<fs::path> destinations;
  for (const auto& file : files_) destinations.push_back(file->Destination());
  return destinations;
}

void OutputFiles::Commit() {
  // Every file reaches the disk before the first one is published.
  for (const auto& file : files_) file->Sync();
  for (const auto& file : files_) file->Commit();
}

void WriteFileAtomically(const fs::path& path, std::string_view bytes, std::string_view what) {
  AtomicFile file(path, "cannot write " + std::string(what) + " " + Quote(path.string()));
  file.WriteAt(bytes, 0);
  file.Commit();
}

OpenedFile OpenRegularFile(const fs::path& path, std::string_view what) {
  auto fail = [&](const std::string& problem) -> void {
    throw IoError("cannot open " + std::string(what) + " " + Quote(path.string()) + ": " + problem);
  };
  // stat first: what is no regular file is never opened (opening a device may act on it).
  struct stat named {};
  if (stat(path.c_str(), &named) != 0) fail(std::strerror(errno));
  if (!S_ISREG(named.st_mode)) fail(FileKind(named.st_mode) + ", not a regular file");
  // O_NONBLOCK: should the path have been swapped for a FIFO since stat, open returns at
  // once instead of waiting for a writer; fstat then refuses it. It changes nothing for a
  // regular file.
  OpenedFile file{FileDescriptor(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)), 0};
  struct stat opened {};
  if (!file.fd.valid() || fstat(file.fd.get(), &opened) != 0) fail(std::strerror(errno));
  if (!S_ISREG(opened.st_mode)) fail(FileKind(opened.st_mode) + ", not a regular file");
  if (opened.st_dev != named.st_dev || opened.st_ino != named.st_ino) fail("the file changed while it was opened");
  file.size = static_cast<std::uint64_t>(opened.st_size);
  return file;
}

std::string ReadRegularFile(const fs::path& path, std::string_view what, std::uint64_t max_bytes,
                            std::string_view limit) {
  const OpenedFile file = OpenRegularFile(path, what);
  if (file.size > max_bytes)
    throw ModelError(path.string() + ": the file has " + std::to_string(file.size) + " bytes, more than " +
                     std::string(limit));
  std::string bytes(static_cast<std::size_t>(file.size), '\0');
  if (std::string error = ReadFully(file.fd.get(), bytes.data(), bytes.size(), 0); !error.empty())
    throw IoError("cannot read " + std::string(what) + " " + Quote(path.string()) + ": " + error);
  return bytes;
}

fs::path ResolvedReadPath(const fs::path& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error) return path.lexically_normal();
  const fs::path resolved = fs::weakly_canonical(absolute, error);
  return error ? absolute.lexically_normal() : resolved;
}

fs::path ResolvedWritePath(const fs::path& path) {
  const fs::path normal = path.lexically_normal();
  // "dir/", "." and "..": the folder itself (no AtomicFile can replace it).
  if (!normal.has_filename() || normal.filename() == "." || normal.filename() == "..")
    return ResolvedReadPath(normal);
  return ResolvedReadPath(normal.has_parent_path() ? normal.parent_path() : fs::path(".")) / normal.filename();
}

}  // namespace onnxopt::core::ir
