#include "io/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string>

#include "wgpt/error.h"

namespace wgpt::io {
namespace {

std::string bytes_text(uint64_t bytes) {
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  if (bytes >= kMiB) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& why) {
  throw Error("cannot read " + path.string() + ": " + why);
}

void require_regular(const std::filesystem::path& path, const struct stat& info, uint64_t max_bytes,
                     const char* what) {
  if (!S_ISREG(info.st_mode)) {
    fail(path, std::string("it is ") + file_kind(info.st_mode) + ", not a regular file");
  }
  const auto size = static_cast<uint64_t>(info.st_size);
  if (size > max_bytes) {
    fail(path,
         "it holds " + bytes_text(size) + ", and " + what + " is at most " + bytes_text(max_bytes));
  }
}

}  // namespace

const char* file_kind(unsigned mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

RegularFile open_regular_file(const std::filesystem::path& path, uint64_t max_bytes,
                              const char* what) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    fail(path, errno == ENOENT ? "no such file" : std::strerror(errno));
  }
  require_regular(path, info, max_bytes, what);
  // O_NONBLOCK: should the name have become a FIFO since the check, open() must not wait for it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) fail(path, std::strerror(errno));
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path, std::strerror(error));
  }
  try {
    require_regular(path, info, max_bytes, what);
  } catch (...) {
    ::close(fd);
    throw;
  }
  return {fd, static_cast<uint64_t>(info.st_size)};
}

void read_exactly(const RegularFile& file, const std::filesystem::path& path, void* out) {
  auto* cursor = static_cast<char*>(out);
  for (uint64_t left = file.size; left > 0;) {
    const ssize_t got =
        ::read(file.fd, cursor, static_cast<size_t>(std::min<uint64_t>(left, 1 << 30)));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail(path, std::strerror(errno));
    if (got == 0) fail(path, "the file shrank while it was read");
    cursor += got;
    left -= static_cast<uint64_t>(got);
  }
}

std::string read_file(const std::filesystem::path& path, uint64_t max_bytes, const char* what) {
  const uint64_t addressable = std::numeric_limits<size_t>::max();
  const RegularFile file = open_regular_file(path, std::min(max_bytes, addressable), what);
  std::string content;
  try {
    content.resize(static_cast<size_t>(file.size));
    read_exactly(file, path, content.data());
  } catch (...) {
    ::close(file.fd);
    throw;
  }
  ::close(file.fd);
  return content;
}

}  // namespace wgpt::io
