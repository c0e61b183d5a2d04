#pragma once
// Facts of the GGUF layout (llama.cpp's ggml/docs/gguf.md) shared by its reader and writer.
// Little-endian throughout:
//   "GGUF", u32 version (2 or 3), u64 tensor count, u64 metadata count,
//   metadata: string key, u32 value type, value (a string is u64 length + bytes, not terminated;
//             an array is u32 element type, u64 count, elements),
//   tensors:  string name, u32 dimension count, u64 dimensions (innermost first), u32 ggml type,
//             u64 offset into the data section (a multiple of the alignment),
//   padding to the alignment (general.alignment, default 32), then the data section.

#include <cstdint>
#include <optional>
#include <string_view>

#include "wgpt/gguf.h"
#include "wgpt/io.h"

namespace wgpt::io::gguf {

inline constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
inline constexpr uint32_t kVersion = 3;
inline constexpr uint64_t kDefaultAlignment = 32;
inline constexpr uint32_t kMaxDimensions = 4;  // GGML_MAX_DIMS

// ggml's tensor types that wgpt reads and writes, by number.
inline constexpr uint32_t kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ8_0 = 8, kI32 = 26, kI64 = 27,
                          kBF16 = 30;
// Q8_0 and Q4_0 blocks: 32 elements, an f16 scale, then 32 signed bytes (Q8_0) or 16 bytes of
// 4-bit codes (Q4_0: element j in the low nibble of byte j, element j + 16 in its high nibble).
inline constexpr uint64_t kBlockElements = 32;

// A ggml type's name and storage: `block_elements` elements take `block_bytes` bytes.
struct TypeInfo {
  std::string_view name;
  uint64_t block_elements;
  uint64_t block_bytes;
};
// Every type of ggml's table, so that a file's tensors are bounds-checked whatever their type;
// nullopt for a number ggml does not define.
std::optional<TypeInfo> type_info(uint32_t type);

// The ggml type a dtype is stored as (fzm's q4 as F32), and back (nullopt: not one wgpt decodes).
uint32_t stored_type(DType dtype);
std::optional<DType> decoded_dtype(uint32_t type);

}  // namespace wgpt::io::gguf
