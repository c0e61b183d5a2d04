#include <gtest/gtest.h>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

class GpuElementwise : public ::testing::TestWithParam<size_t> {};

TEST_P(GpuElementwise, AddMatchesCpu) {
  size_t n = GetParam();
  auto context = test::gpu_context();
  Tensor a = Tensor::from_floats(test::random_floats(n, 1), {n});
  Tensor b = Tensor::from_floats(test::random_floats(n, 2), {n});
  Tensor gpu = ops::add(a.to_gpu(context), b.to_gpu(context));
  EXPECT_TRUE(test::all_close(gpu, ops::add(a, b), 0.0f, 0.0f));  // one rounding, both sides
}

TEST_P(GpuElementwise, GeluMatchesCpu) {
  size_t n = GetParam();
  auto context = test::gpu_context();
  Tensor x = Tensor::from_floats(test::random_floats(n, 3, -6.0f, 6.0f), {n});
  EXPECT_TRUE(test::all_close(ops::gelu(x.to_gpu(context)), ops::gelu(x), 1e-6f, 1e-5f));
}

INSTANTIATE_TEST_SUITE_P(Sizes, GpuElementwise, ::testing::Values(1, 255, 256, 257, 70000));

TEST(GpuElementwiseLarge, GridFoldsPastTheWorkgroupLimit) {
  // 65535 groups of 256 in x, plus one element: the grid must fold into y.
  size_t n = 65535 * 256 + 1;
  auto context = test::gpu_context();
  Tensor a = Tensor::from_floats(test::random_floats(n, 4), {n});
  Tensor b = Tensor::from_floats(test::random_floats(n, 5), {n});
  EXPECT_TRUE(
      test::all_close(ops::add(a.to_gpu(context), b.to_gpu(context)), ops::add(a, b), 0.0f, 0.0f));
}

TEST(GpuElementwiseLarge, GeluSaturatesWithoutNaN) {
  auto context = test::gpu_context();
  Tensor x = Tensor::from_floats({-1e4f, -50.0f, 50.0f, 1e4f, 3e38f}, {5});
  EXPECT_TRUE(test::all_close(ops::gelu(x.to_gpu(context)), ops::gelu(x), 0.0f, 1e-6f));
}

}  // namespace
}  // namespace wgpt
