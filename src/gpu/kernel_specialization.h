#pragma once
// Kernels written for the device's tensor cores: a kernel that enables subgroup matrices
// (`enable chromium_experimental_subgroup_matrix;`) is tiled in units of the device's subgroup
// matrices and subgroups, which only the device knows. The context supplies them as WGSL constants
// when it compiles such a kernel (pipeline creation), after the kernel's directives:
//   SUBGROUP_MATRIX_M, SUBGROUP_MATRIX_N, SUBGROUP_MATRIX_K: an m×k by k×n product per step;
//   SUBGROUP_SIZE: the invocations that share one matrix (the adapter's largest subgroup, which
//   Dawn makes every subgroup of such a kernel).

#include <string>
#include <string_view>

#include "wgpt/gpu.h"

namespace wgpt::gpu {

// `source` as the device compiles it: unchanged unless it enables subgroup matrices. Throws
// wgpt::Error naming the kernel when it does and the device has none.
std::string specialize_kernel(std::string_view name, std::string_view source, const Limits& limits);

}  // namespace wgpt::gpu
