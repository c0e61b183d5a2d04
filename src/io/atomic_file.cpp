#include <atomic>

#include "io/byte_sink.h"
#include "io/host_file.h"
#include "wgpt/error.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

// Unique among the threads and processes that might save the same target at once.
std::filesystem::path temporary_beside(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  return target.string() + ".tmp." + std::to_string(host::process_id()) + "." +
         std::to_string(counter.fetch_add(1));
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)), temporary_(temporary_beside(target_)) {
  std::string error;
  fd_ = host::create_new(temporary_, error);
  if (fd_ < 0) fail(error);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    std::string ignored;
    host::close(fd_, ignored);
    host::remove(temporary_);
  }
}

void AtomicFile::write(std::span<const uint8_t> bytes) {
  std::string error;
  if (!host::write_all(fd_, bytes, error)) fail(error);
}

void AtomicFile::commit() {
  // Data must be on disk before the rename makes it visible, or a crash could leave an empty file.
  std::string error;
  if (!host::flush_to_disk(fd_, error)) fail(error);
  const int fd = fd_;
  fd_ = -1;
  if (!host::close(fd, error) || !host::replace(temporary_, target_, error)) {
    host::remove(temporary_);
    fail(error);
  }
}

void AtomicFile::fail(const std::string& what) const {
  throw Error("cannot write " + target_.string() + ": " + what);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.write(std::span(reinterpret_cast<const uint8_t*>(content.data()), content.size()));
  file.commit();
}

}  // namespace wgpt::io
