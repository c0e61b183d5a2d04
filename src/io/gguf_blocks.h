#pragma once
// GGUF's Q8_0 and Q4_0 blocks (gguf_layout.h), as llama.cpp's reference code defines them.

#include <cstdint>
#include <span>
#include <vector>

namespace wgpt::io::gguf {

inline constexpr uint64_t kQ8_0BlockBytes = 34;
inline constexpr uint64_t kQ4_0BlockBytes = 18;

// `blocks` holds exactly numel / 32 blocks (numel a multiple of 32).
std::vector<float> dequantize_q8_0(std::span<const uint8_t> blocks, uint64_t numel);
std::vector<float> dequantize_q4_0(std::span<const uint8_t> blocks, uint64_t numel);

// Appends the blocks of `values` (finite, their count a multiple of 32). Q8_0: scale = max|x| /
// 127, codes round(x / scale). Q4_0: scale = −(the value of largest magnitude) / 8, codes min(15,
// trunc(x / scale + 8.5)).
void quantize_q8_0(std::span<const float> values, std::vector<uint8_t>& out);
void quantize_q4_0(std::span<const float> values, std::vector<uint8_t>& out);

}  // namespace wgpt::io::gguf
