#pragma once
// A bounds-checked little-endian cursor over untrusted bytes: every read first checks that the
// bytes are there, and a short input becomes a wgpt::Error naming the source, the field and the
// offset — never a read past the end.

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "wgpt/error.h"

namespace wgpt::io {

// Both formats are little-endian on disk and are read by plain copies.
static_assert(std::endian::native == std::endian::little, "wgpt io assumes a little-endian host");

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> bytes, std::string_view source)
      : bytes_(bytes), source_(source) {}

  size_t offset() const { return offset_; }
  size_t remaining() const { return bytes_.size() - offset_; }

  // The next n bytes, or an error saying `what` was cut short.
  // n is 64-bit so that a lying 64-bit size cannot wrap on a 32-bit (wasm32) host.
  std::span<const uint8_t> take(uint64_t n, std::string_view what) {
    if (n > remaining()) {
      fail(std::string(what) + " needs " + std::to_string(n) + " bytes at offset " +
           std::to_string(offset_) + " but only " + std::to_string(remaining()) +
           " remain (truncated file?)");
    }
    const auto piece = bytes_.subspan(offset_, static_cast<size_t>(n));
    offset_ += piece.size();
    return piece;
  }

  template <class T>
  T read(std::string_view what) {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof(T), what).data(), sizeof(T));
    return value;
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw Error(std::string(source_) + ": " + problem);
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string_view source_;
  size_t offset_ = 0;
};

}  // namespace wgpt::io
