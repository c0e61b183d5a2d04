#pragma once
// Where a writer's bytes go: a growing buffer in memory, or a file that appears atomically.
// Writers stream through this interface so that saving a large checkpoint to disk never needs a
// second copy of it in memory.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace wgpt::io {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(std::span<const uint8_t> bytes) = 0;
};

class VectorSink final : public ByteSink {
 public:
  void write(std::span<const uint8_t> bytes) override {
    bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  }
  std::vector<uint8_t> take() { return std::move(bytes_); }

 private:
  std::vector<uint8_t> bytes_;
};

// Writes to a temporary file beside `target`; commit() flushes it to disk and renames it over
// `target`, so readers see either the old file or the complete new one. Destroying an uncommitted
// AtomicFile (an exception while writing) removes the temporary file and leaves `target` as it was.
class AtomicFile final : public ByteSink {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile() override;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::span<const uint8_t> bytes) override;
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::filesystem::path target_;
  std::filesystem::path temporary_;
  int fd_ = -1;
};

}  // namespace wgpt::io
