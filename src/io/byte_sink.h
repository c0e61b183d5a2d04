#pragma once
// Where a writer's bytes go: a growing buffer in memory, or an OutputFile (wgpt/io.h).
// Writers stream through this interface so that saving a large checkpoint to disk never needs a
// second copy of it in memory.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "wgpt/io.h"

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

// An OutputFile as a sink, for the format writers.
class OutputSink final : public ByteSink {
 public:
  explicit OutputSink(OutputFile& file) : file_(file) {}
  void write(std::span<const uint8_t> bytes) override { file_.write(bytes); }

 private:
  OutputFile& file_;
};

}  // namespace wgpt::io
