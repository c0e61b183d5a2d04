#include "io/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "wgpt/error.h"

namespace wgpt::io {

DirectoryLock::DirectoryLock(const std::filesystem::path& dir, Mode mode) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0)
    throw Error("cannot open the directory " + dir.string() + ": " + std::strerror(errno));
  change(mode);
}

DirectoryLock::~DirectoryLock() { ::close(fd_); }

void DirectoryLock::change(Mode mode) {
  const int operation = mode == Mode::shared ? LOCK_SH : LOCK_EX;
  // ENOLCK, EOPNOTSUPP, EINVAL: a file system without locks; proceed unlocked. (Emscripten's
  // flock always succeeds: one process, nothing to exclude.)
  while (::flock(fd_, operation) != 0 && errno == EINTR) {
  }
}

void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace wgpt::io
