#pragma once
// The whole content of a file as read-only bytes. Native builds memory-map the file, so a 500 MB
// checkpoint costs no copy and only the pages actually touched are read; the browser build (no
// mmap in Emscripten's file system) reads the file into memory instead. Either way the bytes live
// as long as the FileBytes object, so tensors may view into them through a shared_ptr.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

namespace wgpt::io {

class FileBytes {
 public:
  // Throws wgpt::Error naming the path when it cannot be opened or read, or is not a regular file
  // (io/regular_file.h).
  static std::shared_ptr<const FileBytes> open(const std::filesystem::path& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  FileBytes() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
#ifdef __EMSCRIPTEN__
  std::unique_ptr<uint8_t[]> buffer_;
#endif
};

}  // namespace wgpt::io
