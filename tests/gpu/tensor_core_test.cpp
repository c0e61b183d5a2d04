// The tensor-core path: the feature values wgpt asks the pinned Dawn for, the tensor-core GEMM
// kernels compiled for every subgroup-matrix configuration they accept (on Dawn's Null adapter,
// which machines without tensor cores have too), and mixed-precision products against the CPU
// reference on the device the tests run on: within f16's rounding where it has tensor cores (the
// H200: docs/benchmarks.md records the run), identical to the f32 products where it has none
// (llvmpipe in CI), since those take the same f32 kernels.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <set>

#include "gpu/validation_context.h"
#include "ops/gemm.h"
#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

using ops::detail::GemmKernel;

// A geometry that takes `kernel` under mixed precision on a device with tensor cores (asserted
// below): ragged in m, n and k where the kernel reads single floats.
struct KernelCase {
  GemmKernel kernel;
  size_t batch, m, k, n;
  bool trans_a, trans_b;
};

constexpr KernelCase kKernelCases[] = {
    {GemmKernel::tensor_vec4, 1, 1024, 68, 2304, false, false},
    {GemmKernel::tensor_vec4, 1, 1024, 68, 2304, true, true},
    {GemmKernel::tensor, 1, 1025, 67, 2301, false, false},
    {GemmKernel::tensor, 1, 1025, 67, 2301, true, true},
    {GemmKernel::tensor_64_vec4, 3, 100, 520, 132, false, true},
    {GemmKernel::tensor_64_vec4, 3, 100, 520, 132, true, false},
    {GemmKernel::tensor_64, 2, 70, 1001, 33, false, false},
    {GemmKernel::tensor_64, 2, 70, 1001, 33, true, true},
};

ops::detail::Gemm geometry_of(const KernelCase& c) {
  return {.batch = c.batch,
          .m = c.m,
          .k = c.k,
          .n = c.n,
          .a_batch_stride = c.m * c.k,
          .b_batch_stride = c.k * c.n,
          .trans_a = c.trans_a,
          .trans_b = c.trans_b,
          .scale = 0.5f,
          .out_row_stride = c.n,
          .precision = ops::Precision::mixed};
}

TEST(TensorCores, FeatureValuesNameTheirWgslExtensions) {
  // The Null device gets wgpt's requests by the pinned library's values (gpu/dawn_features.h):
  // each WGSL extension compiles only if its value named the right feature. (The Null adapter's
  // subgroups may be 128 wide: a subgroup-matrix kernel's workgroups must be a multiple of that.)
  auto context = gpu::create_validation_context({16, 16, 16, 32});
  ASSERT_TRUE(context->limits().shader_f16);
  const Tensor out = Tensor::empty_gpu(context, {64});
  context->add_kernel("uses_f16", R"(enable f16;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() { out[0] = f32(f16(1.5)); })");
  context->add_kernel("uses_subgroups", R"(enable subgroups;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(32)
fn main(@builtin(subgroup_invocation_id) lane: u32) { out[lane] = subgroupAdd(1.0); })");
  context->add_kernel("uses_subgroup_matrices", R"(enable f16;
enable chromium_experimental_subgroup_matrix;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(SUBGROUP_SIZE * 4u)
fn main() {
  let zero = subgroup_matrix_result<f32, SUBGROUP_MATRIX_N, SUBGROUP_MATRIX_M>();
  subgroupMatrixStore(&out, 0u, zero, false, SUBGROUP_MATRIX_N);
})");
  for (const char* kernel : {"uses_f16", "uses_subgroups", "uses_subgroup_matrices"}) {
    EXPECT_NO_THROW({
      context->dispatch(kernel, {}, {gpu::BufferRange(out.buffer(), 0, 0)}, {1, 1, 1});
      context->finish();
    }) << kernel;
  }
}

bool is_tensor_kernel(GemmKernel kernel) {
  return kernel == GemmKernel::tensor || kernel == GemmKernel::tensor_vec4 ||
         kernel == GemmKernel::tensor_64 || kernel == GemmKernel::tensor_64_vec4;
}

TEST(TensorCores, KernelsCompileForEveryConfigurationTheyTile) {
  // The Null adapter has WebGPU's default 16 KiB of workgroup memory: the products take the 64×64
  // kernels, in both operand readings (the 128×128 ones, 27 KiB, run in the parity test below on
  // a device with tensor cores).
  for (gpu::SubgroupMatrix matrix :
       {gpu::SubgroupMatrix{16, 16, 16, 32}, gpu::SubgroupMatrix{8, 8, 8, 32},
        gpu::SubgroupMatrix{16, 8, 16, 32}, gpu::SubgroupMatrix{8, 16, 8, 64}}) {
    auto context = gpu::create_validation_context(matrix);
    std::set<GemmKernel> compiled;
    for (const KernelCase& c : kKernelCases) {
      const ops::detail::Gemm g = geometry_of(c);
      const GemmKernel kernel = ops::detail::gemm_kernel(g, context->limits()).kernel;
      ASSERT_TRUE(is_tensor_kernel(kernel));
      Tensor a = Tensor::empty_gpu(context, {c.batch * c.m * c.k});
      Tensor b = Tensor::empty_gpu(context, {c.batch * c.k * c.n});
      Tensor bias = Tensor::empty_gpu(context, {c.n});
      Tensor residual = Tensor::empty_gpu(context, {c.batch * c.m * c.n});
      Tensor out = Tensor::empty_gpu(context, {c.batch * c.m * c.n});
      EXPECT_NO_THROW({
        ops::detail::gemm("test", g, a, b, {.bias = bias, .gelu = true, .residual = residual}, out);
        context->finish();
      }) << "m "
         << matrix.m << ", n " << matrix.n << ", k " << matrix.k << ", subgroup "
         << matrix.subgroup_size;
      compiled.insert(kernel);
    }
    EXPECT_EQ(compiled, (std::set<GemmKernel>{GemmKernel::tensor_64, GemmKernel::tensor_64_vec4}));
  }
}

// Σ |a|·|b| per output element: f16 rounds each operand to 11 significant bits, so a product's
// error is at most 2^-10 of this (and the f32 sums add far less).
Tensor magnitude_sums(const ops::detail::Gemm& g, const Tensor& a, const Tensor& b) {
  auto absolute = [](const Tensor& t) {
    std::vector<float> values = t.to_floats();
    for (float& v : values) v = std::fabs(v);
    return Tensor::from_floats(values, t.shape());
  };
  ops::detail::Gemm plain = g;
  plain.scale = std::fabs(g.scale);
  Tensor sums = Tensor::zeros({g.batch * g.m * g.out_row_stride});
  ops::detail::gemm("test", plain, absolute(a), absolute(b), {}, sums);
  return sums;
}

TEST(TensorCores, MixedProductsMatchTheCpu) {
  auto context = test::gpu_context();
  const bool tensor_cores = context->limits().f16_matrix.available();
  for (const KernelCase& c : kKernelCases) {
    // Without tensor cores only the small cases run (llvmpipe is slow); they take the same kernels.
    if (!tensor_cores && c.batch * c.m * c.n > 100000) continue;
    const ops::detail::Gemm g = geometry_of(c);
    const GemmKernel kernel = ops::detail::gemm_kernel(g, context->limits()).kernel;
    Tensor a =
        Tensor::from_floats(test::random_floats(c.batch * c.m * c.k, 1), {c.batch * c.m * c.k});
    Tensor b =
        Tensor::from_floats(test::random_floats(c.batch * c.k * c.n, 2), {c.batch * c.k * c.n});
    Tensor bias = Tensor::from_floats(test::random_floats(c.n, 3), {c.n});
    const size_t outputs = c.batch * c.m * c.n;
    Tensor mixed = Tensor::empty_gpu(context, {outputs});
    ops::detail::gemm("test", g, a.to_gpu(context), b.to_gpu(context),
                      {.bias = bias.to_gpu(context)}, mixed);
    if (!tensor_cores) {
      // No tensor cores: mixed precision is the f32 product, bit for bit.
      ops::detail::Gemm f32 = g;
      f32.precision = ops::Precision::f32;
      EXPECT_EQ(kernel, ops::detail::gemm_kernel(f32, context->limits()).kernel);
      Tensor exact = Tensor::empty_gpu(context, {outputs});
      ops::detail::gemm("test", f32, a.to_gpu(context), b.to_gpu(context),
                        {.bias = bias.to_gpu(context)}, exact);
      EXPECT_EQ(mixed.to_floats(), exact.to_floats());
      continue;
    }
    EXPECT_EQ(kernel, c.kernel);
    Tensor expected = Tensor::zeros({outputs});
    ops::detail::gemm("test", g, a, b, {.bias = bias}, expected);
    const std::vector<float> got = mixed.to_floats(), want = expected.to_floats();
    const std::vector<float> bound = magnitude_sums(g, a, b).to_floats();
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (!(std::fabs(got[i] - want[i]) <= std::ldexp(bound[i], -10) + 1e-5f)) ++bad;
    }
    EXPECT_EQ(bad, 0u) << "kernel " << static_cast<int>(c.kernel) << ", m " << c.m << ", k " << c.k
                       << ", n " << c.n;
  }
}

}  // namespace
}  // namespace wgpt
