// The council's ops on the CPU, their definitions checked on cases worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "wgpt/ops.h"

namespace wgpt {
namespace {

TEST(OpsConcatRows, StacksRowBlocksInOrder) {
  Tensor a = Tensor::from_floats({1, 2, 3, 4}, {2, 2});
  Tensor b = Tensor::from_floats({5, 6}, {1, 2});
  Tensor stacked = ops::concat_rows({a, b, a.rows(1, 1)});
  EXPECT_EQ(stacked.shape(), (Shape{4, 2}));
  EXPECT_EQ(stacked.to_floats(), (std::vector<float>{1, 2, 3, 4, 5, 6, 3, 4}));
}

TEST(OpsConcatRows, RejectsDifferentWidths) {
  Tensor a = Tensor::zeros({1, 2});
  Tensor b = Tensor::zeros({1, 3});
  EXPECT_THROW(ops::concat_rows({a, b}), Error);
  EXPECT_THROW(ops::concat_rows({}), Error);
}

TEST(OpsSoftmaxEntropy, UniformIsLogNAndCertainIsZero) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x =
      Tensor::from_floats({3, 3, 3, 3, 0, -inf, -inf, -inf, 0, std::log(3.0f), 0, 0}, {3, 4});
  std::vector<float> h = ops::softmax_entropy(x).to_floats();
  EXPECT_NEAR(h[0], std::log(4.0), 1e-6);
  EXPECT_EQ(h[1], 0.0f);  // −∞ logits have probability 0 and add nothing (no NaN)
  // p = (1, 3, 1, 1) / 6
  const double expected = -(3 * (1.0 / 6) * std::log(1.0 / 6) + 0.5 * std::log(0.5));
  EXPECT_NEAR(h[2], expected, 1e-6);
}

TEST(OpsRouterMix, WeightsAreASoftminOfTheScores) {
  Tensor x = Tensor::from_floats({1, 0, 0, 1, 2, 2}, {3, 2});
  Tensor scores = Tensor::from_floats({1.0f, 2.0f, 1.0f}, {3});
  ops::Mixture m = ops::router_mix(x, scores, 2.0f);
  const double e = std::exp(-2.0);  // the middle row's weight relative to the others
  const double w0 = 1 / (2 + e), w1 = e / (2 + e);
  std::vector<float> w = m.weights.to_floats();
  EXPECT_NEAR(w[0], w0, 1e-7);
  EXPECT_NEAR(w[1], w1, 1e-7);
  EXPECT_NEAR(w[2], w0, 1e-7);
  EXPECT_EQ(m.mixed.shape(), (Shape{1, 2}));
  std::vector<float> mixed = m.mixed.to_floats();
  EXPECT_NEAR(mixed[0], w0 * 1 + w1 * 0 + w0 * 2, 1e-6);
  EXPECT_NEAR(mixed[1], w0 * 0 + w1 * 1 + w0 * 2, 1e-6);
}

TEST(OpsRouterMix, BetaZeroAveragesAndLargeBetaPicksTheLowestScore) {
  Tensor x = Tensor::from_floats({4, 8}, {2, 1});
  Tensor scores = Tensor::from_floats({0.5f, 0.25f}, {2});
  EXPECT_NEAR(ops::router_mix(x, scores, 0.0f).mixed.to_floats()[0], 6.0f, 1e-6);
  ops::Mixture sharp = ops::router_mix(x, scores, 1000.0f);
  EXPECT_NEAR(sharp.mixed.to_floats()[0], 8.0f, 1e-6);
  EXPECT_EQ(sharp.weights.to_floats()[1], 1.0f);
}

TEST(OpsRouterMix, RejectsBadArguments) {
  Tensor x = Tensor::zeros({2, 3});
  EXPECT_THROW(ops::router_mix(x, Tensor::zeros({3}), 1.0f), Error);
  EXPECT_THROW(ops::router_mix(x, Tensor::zeros({2}), -1.0f), Error);
  EXPECT_THROW(ops::router_mix(x, Tensor::zeros({2}), std::nanf("")), Error);
}

}  // namespace
}  // namespace wgpt
