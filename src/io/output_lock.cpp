// OutputLock: one run at a time writes an output directory (wgpt/io.h).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "wgpt/io.h"

namespace wgpt::io {
namespace {

constexpr const char* kLockName = ".wgpt-lock";

// The pid the holder wrote into the lock file, for the message.
std::string holder(int fd) {
  char text[32] = {};
  const ssize_t got = ::pread(fd, text, sizeof text - 1, 0);
  std::string pid(text, got > 0 ? static_cast<size_t>(got) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "" : " (pid " + pid + ")";
}

}  // namespace

OutputLock::OutputLock(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kLockName;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0) throw Error("cannot lock " + dir.string() + ": " + std::strerror(errno));
  int result;
  while ((result = ::flock(fd_, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (result != 0 && errno == EWOULDBLOCK) {
    const std::string who = holder(fd_);
    ::close(fd_);
    throw Error(dir.string() + " is being written by another wgpt run" + who +
                ": wait for it to finish, or write into another directory");
  }
  // Any other failure is a file system without locks: proceed unlocked.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 ||
      ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd_);
    throw Error("cannot write " + path.string() + ": " + std::strerror(error));
  }
}

OutputLock::~OutputLock() { ::close(fd_); }

}  // namespace wgpt::io
