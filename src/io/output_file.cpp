// OutputFile: the one checked, atomic way wgpt writes a file (wgpt/io.h, "writing files").
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/directory_lock.h"
#include "io/pending_update.h"
#include "io/regular_file.h"
#include "io/temporaries.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

std::filesystem::path folder_of(const std::filesystem::path& target) {
  return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

// Only a regular file is ever replaced: renaming over a device node or a FIFO would turn it into
// a file, and over a symbolic link would cut the link (or, followed, write into a shared blob).
std::string why_not_replaceable(const std::filesystem::path& target) {
  struct stat info {};
  if (::lstat(target.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return {};
  return std::string("it is ") + file_kind(info.st_mode) + ", and wgpt only replaces regular files";
}

// Writes every byte, retrying short writes; 0, or the errno of the write that failed.
int write_all(int fd, std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return errno;
    if (written == 0) return ENOSPC;
    bytes = bytes.subspan(static_cast<size_t>(written));
  }
  return 0;
}

std::span<const uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

}  // namespace

OutputFile::OutputFile(std::filesystem::path target)
    : target_(std::move(target)), temporary_(temporary_beside(target_)) {
  if (target_.empty()) throw Error("no output file was named");
  if (!target_.has_filename()) fail("the name ends in a '/', so it is a directory's");
  check_target();
  const std::filesystem::path folder = folder_of(target_);
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    fail("the directory " + folder.string() + " does not exist");
  }
  {
    // Temporaries a killed writer of this target left behind; not while a pending update may
    // still need one of them.
    DirectoryLock lock(folder, DirectoryLock::Mode::exclusive);
    if (!has_pending_update(folder)) remove_dead_temporaries(folder, target_.filename().string());
  }
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(std::string("cannot create a temporary file: ") + std::strerror(errno));
  // The new file keeps the permissions of the one it replaces (best effort: a file system
  // without permissions refuses fchmod, and the bytes matter more).
  struct stat info {};
  if (::stat(target_.c_str(), &info) == 0) ::fchmod(fd_, info.st_mode & 07777);
}

OutputFile::~OutputFile() {
  if (committed_) return;
  if (fd_ >= 0) ::close(fd_);
  ::unlink(temporary_.c_str());
}

void OutputFile::write(std::span<const uint8_t> bytes) {
  if (fd_ < 0) fail("the file is already closed");
  if (const int error = write_all(fd_, bytes)) {
    fail(std::string("write failed: ") + std::strerror(error));
  }
}

void OutputFile::write(std::string_view text) { write(bytes_of(text)); }

void OutputFile::close() {
  if (fd_ < 0) return;
  // Data must be on disk before the rename makes it visible, or a crash could leave an empty file.
  if (::fsync(fd_) != 0) fail(std::string("fsync failed: ") + std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(std::string("close failed: ") + std::strerror(errno));
}

void OutputFile::check_target() const {
  if (const std::string why = why_not_replaceable(target_); !why.empty()) fail(why);
}

void OutputFile::release() { committed_ = true; }

void OutputFile::commit() {
  close();
  check_target();  // again: something else may have taken the target's name meanwhile
  if (std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    fail(std::string("rename failed: ") + std::strerror(errno));
  }
  committed_ = true;
  sync_directory(folder_of(target_));
}

void OutputFile::fail(const std::string& what) const {
  throw Error("cannot write " + target_.string() + ": " + what);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  OutputFile file(path);
  file.write(content);
  file.commit();
}

void append_to_file(const std::filesystem::path& path, std::string_view content) {
  auto fail = [&](const std::string& what) {
    throw Error("cannot append to " + path.string() + ": " + what);
  };
  if (const std::string why = why_not_replaceable(path); !why.empty()) fail(why);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) fail(std::strerror(errno));
  if (const int error = write_all(fd, bytes_of(content))) {
    ::close(fd);
    fail(std::strerror(error));
  }
  if (::close(fd) != 0) fail(std::string("close failed: ") + std::strerror(errno));
}

}  // namespace wgpt::io
