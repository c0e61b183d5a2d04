#pragma once
// A gpu::Context on Dawn's Null adapter, for tests only: it validates and compiles kernels (WGSL,
// bindings, workgroup sizes, the device's features) but runs nothing, so what it reads back is
// meaningless. It lets the tests compile the tensor-core kernels on machines without tensor cores
// (llvmpipe in CI). Nothing outside src/gpu and the tests includes this header; the public
// ContextOptions cannot reach the Null adapter.

#include <memory>

#include "wgpt/gpu.h"

namespace wgpt::gpu {

// A Null device with every feature and the subgroup-matrix configuration `f16_matrix`. Throws
// wgpt::Error where Dawn has no Null adapter (the browser).
std::shared_ptr<Context> create_validation_context(const SubgroupMatrix& f16_matrix);

}  // namespace wgpt::gpu
