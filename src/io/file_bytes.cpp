#include "io/file_bytes.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>

#include "io/regular_file.h"
#include "wgpt/error.h"

#ifndef __EMSCRIPTEN__
#include <sys/mman.h>
#endif

namespace wgpt::io {
namespace {

// A tensor file is mapped (or read) whole: its size must fit the address space.
constexpr uint64_t kMaxBytes = std::numeric_limits<size_t>::max();

}  // namespace

#ifdef __EMSCRIPTEN__

std::shared_ptr<const FileBytes> FileBytes::open(const std::filesystem::path& path) {
  const RegularFile file = open_regular_file(path, kMaxBytes, "a tensor file");
  std::shared_ptr<FileBytes> bytes(new FileBytes());
  try {
    bytes->size_ = static_cast<size_t>(file.size);
    bytes->buffer_ = std::make_unique<uint8_t[]>(bytes->size_);
    read_exactly(file, path, bytes->buffer_.get());
  } catch (...) {
    ::close(file.fd);
    throw;
  }
  ::close(file.fd);
  bytes->data_ = bytes->buffer_.get();
  return bytes;
}

FileBytes::~FileBytes() = default;

#else

std::shared_ptr<const FileBytes> FileBytes::open(const std::filesystem::path& path) {
  const RegularFile file = open_regular_file(path, kMaxBytes, "a tensor file");
  std::shared_ptr<FileBytes> bytes(new FileBytes());
  bytes->size_ = static_cast<size_t>(file.size);
  // mmap rejects a zero length; an empty file is simply an empty span.
  if (bytes->size_ > 0) {
    void* mapped = ::mmap(nullptr, bytes->size_, PROT_READ, MAP_PRIVATE, file.fd, 0);
    if (mapped == MAP_FAILED) {
      const int error = errno;
      ::close(file.fd);
      throw Error("cannot read " + path.string() + ": mmap failed: " + std::strerror(error));
    }
    bytes->data_ = static_cast<const uint8_t*>(mapped);
  }
  // The mapping stays valid after the descriptor is closed.
  ::close(file.fd);
  return bytes;
}

FileBytes::~FileBytes() {
  if (size_ > 0) ::munmap(const_cast<uint8_t*>(data_), size_);
}

#endif

}  // namespace wgpt::io
