#pragma once
// flock(2) on a directory: shared while a reader reads several of its files, exclusive while a
// writer changes which files it holds (a DirectoryUpdate's renames, finishing an interrupted one,
// removing dead temporaries). The kernel releases it when the process dies, so a killed process
// never leaves a stale lock. On a file system without flock (some network ones) it locks nothing.

#include <filesystem>

namespace wgpt::io {

class DirectoryLock {
 public:
  enum class Mode { shared, exclusive };
  // Blocks until granted: holders of either mode only hold it for a few file operations or reads.
  DirectoryLock(const std::filesystem::path& dir, Mode mode);
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  // Converts the lock (not atomically: another process may take it in between).
  void change(Mode mode);

 private:
  int fd_ = -1;
};

// fsync of a directory, so that the renames made in it are on disk (best effort: some file systems
// refuse a directory's fsync).
void sync_directory(const std::filesystem::path& dir);

}  // namespace wgpt::io
