#include <gtest/gtest.h>

#include <cmath>

#include "wgpt/ops.h"

namespace wgpt {
namespace {

TEST(OpsLayerNorm, NormalizesEachRowWithBiasedVariance) {
  // Row [1, 2, 3, 4]: mean 2.5, biased variance 1.25. Row [5, 5, 5, 5]: variance 0 → beta.
  Tensor x = Tensor::from_floats({1, 2, 3, 4, 5, 5, 5, 5}, {2, 4});
  Tensor gamma = Tensor::from_floats({1, 1, 2, 1}, {4});
  Tensor beta = Tensor::from_floats({0, 0, 0, 10}, {4});
  std::vector<float> y = ops::layernorm(x, gamma, beta, 1e-5f).to_floats();
  float inv_std = 1.0f / std::sqrt(1.25f + 1e-5f);
  EXPECT_NEAR(y[0], -1.5f * inv_std, 1e-6);
  EXPECT_NEAR(y[1], -0.5f * inv_std, 1e-6);
  EXPECT_NEAR(y[2], 2 * 0.5f * inv_std, 1e-6);
  EXPECT_NEAR(y[3], 1.5f * inv_std + 10, 1e-5);
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_EQ(y[7], 10.0f);
}

TEST(OpsLayerNorm, ParameterWidthMismatchThrows) {
  EXPECT_THROW(ops::layernorm(Tensor::zeros({2, 4}), Tensor::zeros({3}), Tensor::zeros({3})),
               Error);
  EXPECT_THROW(ops::layernorm(Tensor::zeros({2, 4}), Tensor::zeros({4}), Tensor::zeros({2})),
               Error);
}

}  // namespace
}  // namespace wgpt
