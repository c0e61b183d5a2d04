#include <gtest/gtest.h>

#include <cmath>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

struct Case {
  size_t a_batch, b_batch;  // 0: unbatched
  size_t m, k, n;
  bool transpose_a, transpose_b, bias;
  float scale;
};

Shape operand_shape(size_t batch, size_t rows, size_t cols) {
  return batch ? Shape{batch, rows, cols} : Shape{rows, cols};
}

// f32 sums of k products in [-1, 1], against the CPU's double sums.
float tolerance(size_t k) { return 2e-6f * std::sqrt(static_cast<float>(k)) + 1e-6f; }

class GpuMatmul : public ::testing::TestWithParam<Case> {};

TEST_P(GpuMatmul, MatchesCpu) {
  const Case& c = GetParam();
  auto context = test::gpu_context();
  Shape a_shape =
      c.transpose_a ? operand_shape(c.a_batch, c.k, c.m) : operand_shape(c.a_batch, c.m, c.k);
  Shape b_shape =
      c.transpose_b ? operand_shape(c.b_batch, c.n, c.k) : operand_shape(c.b_batch, c.k, c.n);
  Tensor a = Tensor::from_floats(test::random_floats(numel(a_shape), 1), a_shape);
  Tensor b = Tensor::from_floats(test::random_floats(numel(b_shape), 2), b_shape);
  ops::MatmulOptions cpu{
      .transpose_a = c.transpose_a, .transpose_b = c.transpose_b, .scale = c.scale};
  ops::MatmulOptions gpu = cpu;
  if (c.bias) {
    cpu.bias = Tensor::from_floats(test::random_floats(c.n, 3), {c.n});
    gpu.bias = cpu.bias->to_gpu(context);
  }
  Tensor expected = ops::matmul(a, b, cpu);
  Tensor actual = ops::matmul(a.to_gpu(context), b.to_gpu(context), gpu);
  EXPECT_TRUE(test::all_close(actual, expected, tolerance(c.k), 1e-5f));
}

INSTANTIATE_TEST_SUITE_P(
    Gemv, GpuMatmul,
    ::testing::Values(Case{0, 0, 1, 1, 1, false, false, false, 1.0f},
                      Case{0, 0, 1, 5, 3, false, false, true, 1.0f},       // one split
                      Case{0, 0, 1, 768, 2304, false, false, true, 1.0f},  // decode qkv, split-k
                      Case{0, 0, 1, 768, 515, false, true, false, 0.5f},   // LM-head-like
                      Case{0, 0, 1, 50, 40, true, false, false, 1.0f},
                      Case{0, 0, 3, 255, 257, false, false, true, 0.125f},
                      Case{0, 4, 2, 64, 33, false, true, false, 1.0f},  // broadcast A
                      Case{0, 0, 16, 100, 70, true, true, true, 1.0f}));

INSTANTIATE_TEST_SUITE_P(
    Tiled, GpuMatmul,
    ::testing::Values(Case{0, 0, 17, 100, 70, false, false, false, 1.0f},
                      Case{0, 0, 65, 257, 129, true, false, true, 1.0f},
                      Case{0, 0, 70, 33, 65, false, true, true, 2.0f},
                      Case{0, 0, 100, 64, 100, true, true, false, 1.0f},
                      Case{0, 0, 64, 1, 64, false, false, false, 1.0f},
                      Case{3, 3, 20, 30, 40, false, false, true, 1.0f},   // batched
                      Case{4, 0, 33, 17, 9, false, true, false, 1.0f}));  // broadcast B

TEST(GpuMatmulChunks, TransposedChunksMatchCpu) {
  // An LM head over a table split into uneven row chunks, at decode (m = 1, gemv) and prefill
  // (m = 20, tiled) sizes.
  auto context = test::gpu_context();
  size_t k = 64, rows = 512;
  Tensor table = Tensor::from_floats(test::random_floats(rows * k, 1), {rows, k});
  std::vector<Tensor> cpu_chunks = {table.rows(0, 300), table.rows(300, 1), table.rows(301, 211)};
  std::vector<Tensor> gpu_chunks;
  for (const Tensor& chunk : cpu_chunks) gpu_chunks.push_back(chunk.to_gpu(context));
  for (size_t m : {1, 20}) {
    Tensor x = Tensor::from_floats(test::random_floats(m * k, 2), {m, k});
    Tensor gpu = ops::matmul_transposed_chunks(x.to_gpu(context), gpu_chunks);
    EXPECT_TRUE(
        test::all_close(gpu, ops::matmul(x, table, {.transpose_b = true}), tolerance(k), 1e-5f))
        << "m = " << m;
  }
}

TEST(GpuMatmulViews, MisalignedViewIsCopiedBeforeBinding) {
  // Rows 1..18 of a [19, 3] matrix start 12 bytes in: below any storage offset alignment.
  auto context = test::gpu_context();
  Tensor all = Tensor::from_floats(test::random_floats(19 * 3, 1), {19, 3});
  Tensor b = Tensor::from_floats(test::random_floats(3 * 5, 2), {3, 5});
  Tensor gpu = ops::matmul(all.to_gpu(context).rows(1, 18), b.to_gpu(context));
  EXPECT_TRUE(test::all_close(gpu, ops::matmul(all.rows(1, 18), b), tolerance(3), 1e-5f));
}

}  // namespace
}  // namespace wgpt
