#pragma once
// IEEE half precision (F16) and bfloat16 (BF16) to and from f32. Narrowing rounds to nearest, ties
// to even (what PyTorch and safetensors writers do), overflows to infinity and keeps NaN a NaN.

#include <cstdint>

namespace wgpt::io {

float f16_to_f32(uint16_t half);
uint16_t f32_to_f16(float value);
float bf16_to_f32(uint16_t bf16);
uint16_t f32_to_bf16(float value);

}  // namespace wgpt::io
