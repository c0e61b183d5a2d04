#include <gtest/gtest.h>

#include <cmath>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

struct SoftmaxCase {
  Shape shape;  // [..., q_len, kv_len]
  size_t offset;
};

class GpuCausalSoftmax : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(GpuCausalSoftmax, MatchesCpuWithExactZeros) {
  const SoftmaxCase& c = GetParam();
  auto context = test::gpu_context();
  Tensor x = Tensor::from_floats(test::random_floats(numel(c.shape), 1, -8.0f, 8.0f), c.shape);
  Tensor gpu = ops::causal_softmax(x.to_gpu(context), c.offset);
  Tensor cpu = ops::causal_softmax(x, c.offset);
  EXPECT_TRUE(test::all_close(gpu, cpu, 1e-6f, 1e-5f));
  std::vector<float> got = gpu.to_floats(), want = cpu.to_floats();
  for (size_t i = 0; i < got.size(); ++i) {
    if (want[i] == 0.0f) {
      ASSERT_EQ(got[i], 0.0f) << "masked entry " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuCausalSoftmax,
    ::testing::Values(SoftmaxCase{{1, 1}, 0},         // one query, one key
                      SoftmaxCase{{12, 7, 7}, 0},     // no cache
                      SoftmaxCase{{3, 1, 300}, 299},  // decode: one query sees the whole cache
                      SoftmaxCase{{2, 5, 257}, 252},  // prefill after a cache of 252
                      SoftmaxCase{{2, 4, 600}, 3},    // keys past offset + q_len stay masked
                      SoftmaxCase{{70000, 3}, 1}));   // rows fold past the grid limit

TEST(GpuSoftmax, UnmaskedMatchesCpuAndSumsToOne) {
  auto context = test::gpu_context();
  Tensor x = Tensor::from_floats(test::random_floats(3 * 1000, 2, -20.0f, 20.0f), {3, 1000});
  Tensor gpu = ops::softmax(x.to_gpu(context));
  EXPECT_TRUE(test::all_close(gpu, ops::softmax(x), 1e-6f, 1e-5f));
  std::vector<float> p = gpu.to_floats();
  for (size_t row = 0; row < 3; ++row) {
    double sum = 0;
    for (size_t j = 0; j < 1000; ++j) sum += p[row * 1000 + j];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

}  // namespace
}  // namespace wgpt
