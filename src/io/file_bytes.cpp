#include "io/file_bytes.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "wgpt/error.h"

#ifdef __EMSCRIPTEN__
#include <fstream>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace wgpt::io {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error("cannot read " + path.string() + ": " + what);
}

}  // namespace

#ifdef __EMSCRIPTEN__

std::shared_ptr<const FileBytes> FileBytes::open(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(path, "cannot open the file");
  const std::streamoff size = in.tellg();
  if (size < 0) fail(path, "cannot measure the file");
  std::shared_ptr<FileBytes> file(new FileBytes());
  file->size_ = static_cast<size_t>(size);
  file->buffer_ = std::make_unique<uint8_t[]>(file->size_);
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(file->buffer_.get()), size)) fail(path, "short read");
  file->data_ = file->buffer_.get();
  return file;
}

FileBytes::~FileBytes() = default;

#else

std::shared_ptr<const FileBytes> FileBytes::open(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    fail(path, std::strerror(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    fail(path, "not a regular file");
  }
  std::shared_ptr<FileBytes> file(new FileBytes());
  file->size_ = static_cast<size_t>(info.st_size);
  // mmap rejects a zero length; an empty file is simply an empty span.
  if (file->size_ > 0) {
    void* mapped = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      fail(path, std::string("mmap failed: ") + std::strerror(error));
    }
    file->data_ = static_cast<const uint8_t*>(mapped);
  }
  // The mapping stays valid after the descriptor is closed.
  ::close(fd);
  return file;
}

FileBytes::~FileBytes() {
  if (size_ > 0) ::munmap(const_cast<uint8_t*>(data_), size_);
}

#endif

}  // namespace wgpt::io
