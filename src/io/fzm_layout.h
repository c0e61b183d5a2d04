#pragma once
// Facts of the `.fzm` layout shared by its reader and writer. Everything is little-endian and
// packed:
//   "FZM1", u32 tensor count, then per tensor: u16 name length, name, u8 ndim, ndim × u32 dims,
//   u32 group size, u32 group count, count × (f32 scale, f32 min), ceil(numel / 2) bytes of 4-bit
//   codes (element i in byte i / 2: low nibble when i is even, high nibble when odd).

#include <algorithm>
#include <cstdint>

namespace wgpt::io::fzm {

inline constexpr char kMagic[4] = {'F', 'Z', 'M', '1'};
inline constexpr uint32_t kMaxCode = 15;
inline constexpr uint64_t kGroupRecordBytes = 8;  // scale, min

// Groups cover consecutive row-major elements; even an empty tensor carries one.
inline uint64_t group_count(uint64_t numel, uint64_t group_size) {
  return std::max<uint64_t>(1, (numel + group_size - 1) / group_size);
}

inline uint64_t packed_bytes(uint64_t numel) { return (numel + 1) / 2; }

}  // namespace wgpt::io::fzm
