// F16 and BF16 conversions, checked exhaustively over every 16-bit pattern.

#include <gtest/gtest.h>

#include <cmath>

#include "wgpt/io.h"

namespace wgpt::io {
namespace {

bool is_f16_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }

TEST(IoHalf, F16RoundTripsEveryPattern) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const auto half = static_cast<uint16_t>(h);
    const float value = f16_to_f32(half);
    if (is_f16_nan(half)) {
      EXPECT_TRUE(std::isnan(value)) << h;
      EXPECT_TRUE(is_f16_nan(f32_to_f16(value))) << h;
    } else {
      EXPECT_EQ(f32_to_f16(value), half) << "pattern 0x" << std::hex << h;
    }
  }
}

TEST(IoHalf, F16DecodesKnownValues) {
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));
  EXPECT_TRUE(std::isinf(f16_to_f32(0xfc00)) && f16_to_f32(0xfc00) < 0);
  EXPECT_TRUE(std::signbit(f16_to_f32(0x8000)));
}

// Between two adjacent finite halves, values below the midpoint round down, above it up, and the
// midpoint itself to the half with an even mantissa.
TEST(IoHalf, F16RoundsToNearestEven) {
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    const double lo = f16_to_f32(h);
    const double hi = f16_to_f32(static_cast<uint16_t>(h + 1));
    const auto mid = static_cast<float>((lo + hi) / 2);  // exact: 12 significant bits
    const uint16_t even = (h % 2 == 0) ? h : static_cast<uint16_t>(h + 1);
    ASSERT_EQ(f32_to_f16(mid), even) << "between 0x" << std::hex << h << " and its successor";
    ASSERT_EQ(f32_to_f16(std::nextafter(mid, 0.0f)), h) << std::hex << h;
    ASSERT_EQ(f32_to_f16(std::nextafter(mid, INFINITY)), h + 1) << std::hex << h;
    ASSERT_EQ(f32_to_f16(-mid), 0x8000 | even) << std::hex << h;
  }
}

TEST(IoHalf, F16OverflowsToInfinity) {
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);
  EXPECT_EQ(f32_to_f16(-1e30f), 0xfc00);
  EXPECT_EQ(f32_to_f16(INFINITY), 0x7c00);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -26)), 0);  // below half the smallest subnormal
}

TEST(IoHalf, Bf16RoundTripsEveryPattern) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bf16 = static_cast<uint16_t>(b);
    const float value = bf16_to_f32(bf16);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(value)))) << b;
    } else {
      EXPECT_EQ(f32_to_bf16(value), bf16) << "pattern 0x" << std::hex << b;
    }
  }
}

TEST(IoHalf, Bf16RoundsToNearestEven) {
  for (uint16_t b = 0x0080; b < 0x7f7f; b = static_cast<uint16_t>(b + 37)) {
    const double lo = bf16_to_f32(b);
    const double hi = bf16_to_f32(static_cast<uint16_t>(b + 1));
    const auto mid = static_cast<float>((lo + hi) / 2);
    const uint16_t even = (b % 2 == 0) ? b : static_cast<uint16_t>(b + 1);
    ASSERT_EQ(f32_to_bf16(mid), even) << std::hex << b;
    ASSERT_EQ(f32_to_bf16(std::nextafter(mid, 0.0f)), b) << std::hex << b;
    ASSERT_EQ(f32_to_bf16(std::nextafter(mid, INFINITY)), b + 1) << std::hex << b;
  }
}

}  // namespace
}  // namespace wgpt::io
