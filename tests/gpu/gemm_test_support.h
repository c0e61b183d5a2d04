#pragma once
// Shared by the GEMM parity tests (ops_matmul_test.cpp, ops_packed_weights_test.cpp): the kernels
// a case may ask for by short name, and how far the GPU's f32 sums may lie from the CPU's.

#include <cmath>
#include <cstddef>

#include "ops/gemm.h"

namespace wgpt::test {

inline constexpr auto kVector = ops::detail::GemmKernel::vector;
inline constexpr auto kTiled = ops::detail::GemmKernel::tiled;
inline constexpr auto kWide = ops::detail::GemmKernel::wide;
inline constexpr auto kWideVec4 = ops::detail::GemmKernel::wide_vec4;

// The GPU sums in f32 what the CPU sums in double: for sums of k products in [-1, 1].
inline float gemm_tolerance(size_t k) { return 2e-6f * std::sqrt(static_cast<float>(k)) + 1e-6f; }

}  // namespace wgpt::test
