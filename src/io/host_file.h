#pragma once
// What src/io asks of the operating system, one small function each, with a POSIX branch (Linux,
// macOS, the BSDs), a Windows branch and, where it differs, the browser's (Emscripten):
// host_file.cpp. Failures come back as the system's own words; callers name the file.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace wgpt::io::host {

// A new file (never an existing one) opened for writing, not inherited by child processes;
// -1 on failure, with the reason in `error`.
int create_new(const std::filesystem::path& path, std::string& error);
// Each returns false on failure, with the reason in `error`.
bool write_all(int file, std::span<const uint8_t> bytes, std::string& error);
// Through the operating system's caches to the disk (on macOS F_FULLFSYNC, past the drive's own).
bool flush_to_disk(int file, std::string& error);
bool close(int file, std::string& error);
// Renames `from` over `to` in one step: a reader sees the old `to` or the new one, never neither.
bool replace(const std::filesystem::path& from, const std::filesystem::path& to,
             std::string& error);
void remove(const std::filesystem::path& path);
uint64_t process_id();

// A regular file's whole content, mapped read-only (read into memory in the browser).
struct Mapping {
  const uint8_t* data = nullptr;
  size_t size = 0;
  void* release = nullptr;  // what unmap needs besides data and size
};
// Throws wgpt::Error naming `path` when it cannot be opened, is not a regular file, or cannot be
// mapped.
Mapping map_whole_file(const std::filesystem::path& path);
void unmap(const Mapping& mapping);

}  // namespace wgpt::io::host
