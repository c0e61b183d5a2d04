#include "io/host_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "wgpt/error.h"

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#include <process.h>
#include <sys/stat.h>
#include <windows.h>
#elif defined(__EMSCRIPTEN__)
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace wgpt::io::host {
namespace {

[[noreturn]] void cannot_read(const std::filesystem::path& path, const std::string& why) {
  throw Error("cannot read " + path.string() + ": " + why);
}

bool failed(std::string& error, const char* what) {
  error = std::string(what) + ": " + std::strerror(errno);
  return false;
}

}  // namespace

#if defined(_WIN32)

int create_new(const std::filesystem::path& path, std::string& error) {
  const int file = _wopen(path.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT,
                          _S_IREAD | _S_IWRITE);
  if (file < 0) failed(error, "cannot create a temporary file");
  return file;
}

bool write_all(int file, std::span<const uint8_t> bytes, std::string& error) {
  while (!bytes.empty()) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(bytes.size(), 1u << 30));
    const int written = _write(file, bytes.data(), chunk);
    if (written <= 0) return failed(error, "write failed");
    bytes = bytes.subspan(static_cast<size_t>(written));
  }
  return true;
}

bool flush_to_disk(int file, std::string& error) {
  return _commit(file) == 0 || failed(error, "flush failed");
}

bool close(int file, std::string& error) {
  return _close(file) == 0 || failed(error, "close failed");
}

bool replace(const std::filesystem::path& from, const std::filesystem::path& to,
             std::string& error) {
  if (MoveFileExW(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    return true;
  }
  error = "replacing the file failed (Windows error " + std::to_string(GetLastError()) + ")";
  return false;
}

void remove(const std::filesystem::path& path) { _wunlink(path.c_str()); }

uint64_t process_id() { return static_cast<uint64_t>(_getpid()); }

Mapping map_whole_file(const std::filesystem::path& path) {
  const HANDLE file = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr,
                                  OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    cannot_read(path, "cannot open it (Windows error " + std::to_string(GetLastError()) + ")");
  }
  BY_HANDLE_FILE_INFORMATION info{};
  LARGE_INTEGER size{};
  if (GetFileType(file) != FILE_TYPE_DISK || !GetFileInformationByHandle(file, &info) ||
      (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) || !GetFileSizeEx(file, &size)) {
    CloseHandle(file);
    cannot_read(path, "not a regular file");
  }
  Mapping mapping;
  mapping.size = static_cast<size_t>(size.QuadPart);
  // A zero-length file cannot be mapped; it is simply empty.
  if (mapping.size > 0) {
    const HANDLE section = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    const void* view = section ? MapViewOfFile(section, FILE_MAP_READ, 0, 0, 0) : nullptr;
    if (section) CloseHandle(section);  // the view keeps the section alive
    if (!view) {
      CloseHandle(file);
      cannot_read(path, "mapping failed (Windows error " + std::to_string(GetLastError()) + ")");
    }
    mapping.data = static_cast<const uint8_t*>(view);
  }
  CloseHandle(file);
  return mapping;
}

void unmap(const Mapping& mapping) {
  if (mapping.size > 0) UnmapViewOfFile(mapping.data);
}

#else  // POSIX, and Emscripten's POSIX-like file system

int create_new(const std::filesystem::path& path, std::string& error) {
  const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (file < 0) failed(error, "cannot create a temporary file");
  return file;
}

bool write_all(int file, std::span<const uint8_t> bytes, std::string& error) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(file, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return failed(error, "write failed");
    bytes = bytes.subspan(static_cast<size_t>(written));
  }
  return true;
}

bool flush_to_disk(int file, std::string& error) {
#if defined(__APPLE__)
  // fsync only reaches the drive's cache on macOS; F_FULLFSYNC asks the drive to write it out.
  if (::fcntl(file, F_FULLFSYNC) == 0) return true;
#endif
  return ::fsync(file) == 0 || failed(error, "fsync failed");
}

bool close(int file, std::string& error) {
  return ::close(file) == 0 || failed(error, "close failed");
}

bool replace(const std::filesystem::path& from, const std::filesystem::path& to,
             std::string& error) {
  return std::rename(from.c_str(), to.c_str()) == 0 || failed(error, "rename failed");
}

void remove(const std::filesystem::path& path) { ::unlink(path.c_str()); }

uint64_t process_id() { return static_cast<uint64_t>(::getpid()); }

#if defined(__EMSCRIPTEN__)

// No mmap in Emscripten's file system: the file is read into memory, which `release` owns.
Mapping map_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) cannot_read(path, "cannot open the file");
  const std::streamoff size = in.tellg();
  if (size < 0) cannot_read(path, "cannot measure the file");
  auto* buffer = new uint8_t[static_cast<size_t>(size) + 1];
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(buffer), size)) {
    delete[] buffer;
    cannot_read(path, "short read");
  }
  return {buffer, static_cast<size_t>(size), buffer};
}

void unmap(const Mapping& mapping) { delete[] static_cast<uint8_t*>(mapping.release); }

#else

Mapping map_whole_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) cannot_read(path, std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    cannot_read(path, std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    cannot_read(path, "not a regular file");
  }
  Mapping mapping;
  mapping.size = static_cast<size_t>(info.st_size);
  // mmap rejects a zero length; an empty file is simply an empty span.
  if (mapping.size > 0) {
    void* mapped = ::mmap(nullptr, mapping.size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      cannot_read(path, std::string("mmap failed: ") + std::strerror(error));
    }
    mapping.data = static_cast<const uint8_t*>(mapped);
  }
  // The mapping stays valid after the descriptor is closed.
  ::close(fd);
  return mapping;
}

void unmap(const Mapping& mapping) {
  if (mapping.size > 0) ::munmap(const_cast<uint8_t*>(mapping.data), mapping.size);
}

#endif
#endif

}  // namespace wgpt::io::host
