#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "io/byte_sink.h"
#include "wgpt/error.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

// Unique among the threads and processes that might save the same target at once.
std::filesystem::path temporary_beside(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  return target.string() + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)), temporary_(temporary_beside(target_)) {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(std::string("cannot create a temporary file: ") + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temporary_.c_str());
  }
}

void AtomicFile::write(std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) fail(std::string("write failed: ") + std::strerror(errno));
    bytes = bytes.subspan(static_cast<size_t>(written));
  }
}

void AtomicFile::commit() {
  // Data must be on disk before the rename makes it visible, or a crash could leave an empty file.
  if (::fsync(fd_) != 0) fail(std::string("fsync failed: ") + std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    ::unlink(temporary_.c_str());
    fail(std::string("close failed: ") + std::strerror(errno));
  }
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    fail(std::string("rename failed: ") + std::strerror(error));
  }
}

void AtomicFile::fail(const std::string& what) const {
  throw Error("cannot write " + target_.string() + ": " + what);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.write(std::span(reinterpret_cast<const uint8_t*>(content.data()), content.size()));
  file.commit();
}

}  // namespace wgpt::io
