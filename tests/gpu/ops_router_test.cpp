// The council's ops on the GPU equal their CPU references, on random inputs of odd sizes.
#include <gtest/gtest.h>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

Tensor random_tensor(Shape shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> values = test::random_floats(numel(shape), seed, lo, hi);
  return Tensor::from_floats(std::move(values), std::move(shape));
}

TEST(GpuConcatRows, EqualsCpuIncludingUnalignedViews) {
  auto context = test::gpu_context();
  Tensor big = random_tensor({9, 13}, 1);
  std::vector<Tensor> cpu_parts = {big.rows(2, 1), random_tensor({3, 13}, 2), big.rows(8, 1)};
  std::vector<Tensor> gpu_parts;
  for (const Tensor& part : cpu_parts) gpu_parts.push_back(part.to_gpu(context));
  // Views of one GPU tensor at offsets that are not binding-aligned.
  Tensor big_gpu = big.to_gpu(context);
  gpu_parts.push_back(big_gpu.rows(5, 2));
  cpu_parts.push_back(big.rows(5, 2));
  EXPECT_TRUE(test::all_close(ops::concat_rows(gpu_parts), ops::concat_rows(cpu_parts), 0, 0));
}

struct EntropyCase {
  size_t rows, cols;
};
class GpuSoftmaxEntropy : public ::testing::TestWithParam<EntropyCase> {};

TEST_P(GpuSoftmaxEntropy, EqualsCpu) {
  const auto [rows, cols] = GetParam();
  Tensor x = random_tensor({rows, cols}, 3, -12.0f, 12.0f);
  Tensor gpu = ops::softmax_entropy(x.to_gpu(test::gpu_context()));
  EXPECT_TRUE(test::all_close(gpu, ops::softmax_entropy(x), 2e-5f, 2e-5f));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuSoftmaxEntropy,
                         ::testing::Values(EntropyCase{1, 1}, EntropyCase{4, 65},
                                           EntropyCase{5, 257}, EntropyCase{3, 50257},
                                           EntropyCase{2, 1}));

struct MixCase {
  size_t n, cols;
  float beta;
};
class GpuRouterMix : public ::testing::TestWithParam<MixCase> {};

TEST_P(GpuRouterMix, EqualsCpu) {
  const auto [n, cols, beta] = GetParam();
  auto context = test::gpu_context();
  Tensor x = random_tensor({n, cols}, 4, -3.0f, 3.0f);
  Tensor scores = random_tensor({n}, 5, 0.0f, 4.0f);
  ops::Mixture gpu = ops::router_mix(x.to_gpu(context), scores.to_gpu(context), beta);
  ops::Mixture cpu = ops::router_mix(x, scores, beta);
  EXPECT_TRUE(test::all_close(gpu.weights, cpu.weights, 1e-6f, 1e-5f));
  EXPECT_TRUE(test::all_close(gpu.mixed, cpu.mixed, 1e-5f, 1e-5f));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuRouterMix,
                         ::testing::Values(MixCase{1, 1, 2.0f}, MixCase{4, 128, 2.0f},
                                           MixCase{7, 3, 0.0f}, MixCase{300, 5, 0.5f},
                                           MixCase{3, 1001, 12.0f}));

}  // namespace
}  // namespace wgpt
