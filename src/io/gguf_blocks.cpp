#include "io/gguf_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "io/gguf_layout.h"
#include "wgpt/io.h"

namespace wgpt::io::gguf {
namespace {

float block_scale(const uint8_t* block) {
  uint16_t half;
  std::memcpy(&half, block, sizeof half);
  return f16_to_f32(half);
}

// The reciprocal of a block's scale for its codes, or 0 when the scale as stored (f16) is 0 — a
// block of values too small for f16 — so that its codes are those of zeros, which it decodes to.
float code_inverse(float scale) { return f16_to_f32(f32_to_f16(scale)) != 0 ? 1 / scale : 0; }

void append_scale(std::vector<uint8_t>& out, float scale) {
  const uint16_t half = f32_to_f16(scale);
  const auto* bytes = reinterpret_cast<const uint8_t*>(&half);
  out.insert(out.end(), bytes, bytes + sizeof half);
}

}  // namespace

std::vector<float> dequantize_q8_0(std::span<const uint8_t> blocks, uint64_t numel) {
  std::vector<float> values(static_cast<size_t>(numel));
  for (size_t b = 0; b * kBlockElements < values.size(); ++b) {
    const uint8_t* block = blocks.data() + b * kQ8_0BlockBytes;
    const float scale = block_scale(block);
    for (size_t j = 0; j < kBlockElements; ++j) {
      values[b * kBlockElements + j] =
          scale * static_cast<float>(static_cast<int8_t>(block[2 + j]));
    }
  }
  return values;
}

std::vector<float> dequantize_q4_0(std::span<const uint8_t> blocks, uint64_t numel) {
  std::vector<float> values(static_cast<size_t>(numel));
  constexpr size_t kHalf = kBlockElements / 2;
  for (size_t b = 0; b * kBlockElements < values.size(); ++b) {
    const uint8_t* block = blocks.data() + b * kQ4_0BlockBytes;
    const float scale = block_scale(block);
    float* out = values.data() + b * kBlockElements;
    for (size_t j = 0; j < kHalf; ++j) {
      out[j] = scale * static_cast<float>((block[2 + j] & 0x0f) - 8);
      out[j + kHalf] = scale * static_cast<float>((block[2 + j] >> 4) - 8);
    }
  }
  return values;
}

void quantize_q8_0(std::span<const float> values, std::vector<uint8_t>& out) {
  for (size_t begin = 0; begin < values.size(); begin += kBlockElements) {
    const auto block = values.subspan(begin, kBlockElements);
    float largest = 0;
    for (const float x : block) largest = std::max(largest, std::fabs(x));
    const float scale = largest / 127;
    const float inverse = code_inverse(scale);
    append_scale(out, scale);
    for (const float x : block) {
      out.push_back(static_cast<uint8_t>(static_cast<int8_t>(std::round(x * inverse))));
    }
  }
}

void quantize_q4_0(std::span<const float> values, std::vector<uint8_t>& out) {
  constexpr size_t kHalf = kBlockElements / 2;
  for (size_t begin = 0; begin < values.size(); begin += kBlockElements) {
    const auto block = values.subspan(begin, kBlockElements);
    float largest = 0, signed_largest = 0;
    for (const float x : block) {
      if (std::fabs(x) > largest) {
        largest = std::fabs(x);
        signed_largest = x;
      }
    }
    const float inverse = code_inverse(signed_largest / -8);
    // A block that stores a zero scale stores an all-zero block's, 0 / -8 = -0 (llama.cpp's), so
    // that what it decodes to writes the same bytes again.
    append_scale(out, inverse != 0 ? signed_largest / -8 : -0.0f);
    const auto code = [&](float x) {
      return static_cast<uint8_t>(std::min(15, static_cast<int>(x * inverse + 8.5f)));
    };
    for (size_t j = 0; j < kHalf; ++j) {
      out.push_back(static_cast<uint8_t>(code(block[j]) | (code(block[j + kHalf]) << 4)));
    }
  }
}

}  // namespace wgpt::io::gguf
