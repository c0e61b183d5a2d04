#include <cmath>

#include "wgpt/io.h"

namespace wgpt::io {
namespace {

constexpr uint32_t kF32ExponentMask = 0x7f800000u;
// f32 bits of the smallest normal f16 (2^-14) and of the first value that rounds to f16 infinity
// (65520, halfway between the largest f16 65504 and 2^16).
constexpr uint32_t kF16MinNormalAsF32 = 0x38800000u;
constexpr uint32_t kF16OverflowAsF32 = 0x477ff000u;
// (127 - 15) << 23: moves an exponent from f32's bias to f16's.
constexpr uint32_t kExponentRebias = 112u << 23;

}  // namespace

float f16_to_f32(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) return f32_from_bits(sign | kF32ExponentMask | (mantissa << 13));
  if (exponent != 0)
    return f32_from_bits(sign | (((exponent << 23) + kExponentRebias) | (mantissa << 13)));
  // Zero or subnormal: mantissa · 2^-24, exact in f32.
  const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  return sign ? -magnitude : magnitude;
}

uint16_t f32_to_f16(float value) {
  const uint32_t bits = f32_bits(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > kF32ExponentMask) {
    // NaN: keep the top mantissa bits and force the quiet bit so the result stays a NaN.
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  }
  if (magnitude >= kF16OverflowAsF32) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude >= kF16MinNormalAsF32) {
    // Round the 13 dropped mantissa bits to nearest even; a carry correctly bumps the exponent.
    const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - kExponentRebias) >> 13));
  }
  // Subnormal range: count units of 2^-24 (scaling by a power of two is exact); nearbyint rounds
  // ties to even, and 1024 units is exactly the smallest normal's bit pattern.
  const float units = std::nearbyint(std::ldexp(std::fabs(value), 24));
  return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
}

float bf16_to_f32(uint16_t bf16) { return f32_from_bits(static_cast<uint32_t>(bf16) << 16); }

uint16_t f32_to_bf16(float value) {
  const uint32_t bits = f32_bits(value);
  if ((bits & 0x7fffffffu) > kF32ExponentMask) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  const uint32_t rounded = bits + 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

}  // namespace wgpt::io
