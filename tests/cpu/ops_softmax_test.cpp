#include <gtest/gtest.h>

#include <cmath>

#include "wgpt/ops.h"

namespace wgpt {
namespace {

TEST(OpsSoftmax, NormalizesRows) {
  Tensor x = Tensor::from_floats({0, std::log(2.0f), 7, 7, 7, 7}, {3, 2});
  std::vector<float> y = ops::softmax(x).to_floats();
  EXPECT_NEAR(y[0], 1.0f / 3, 1e-7);
  EXPECT_NEAR(y[1], 2.0f / 3, 1e-7);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[5], 0.5f);
}

TEST(OpsSoftmax, CausalMaskWithoutCache) {
  // q_len = kv_len = 3: row i sees keys 0..i; masked entries are exactly 0.
  Tensor scores = Tensor::zeros({1, 3, 3});
  std::vector<float> y = ops::causal_softmax(scores, 0).to_floats();
  std::vector<float> expected = {1, 0, 0, 0.5f, 0.5f, 0, 1.0f / 3, 1.0f / 3, 1.0f / 3};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], expected[i], 1e-7) << i;
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[5], 0.0f);
}

TEST(OpsSoftmax, CausalMaskWithCacheOffset) {
  // Two heads, q_len 2 at positions 3 and 4 of a cache of kv_len 5: query 0 sees keys 0..3.
  Tensor scores = Tensor::zeros({2, 2, 5});
  std::vector<float> y = ops::causal_softmax(scores, 3).to_floats();
  for (size_t head = 0; head < 2; ++head) {
    const float* q0 = y.data() + head * 10;
    for (size_t j = 0; j < 4; ++j) EXPECT_EQ(q0[j], 0.25f);
    EXPECT_EQ(q0[4], 0.0f);
    for (size_t j = 0; j < 5; ++j) EXPECT_NEAR(q0[5 + j], 0.2f, 1e-7);
  }
}

TEST(OpsSoftmax, MaskedLargeScoresDoNotLeak) {
  // A huge masked score must not affect the visible ones.
  Tensor scores = Tensor::from_floats({1, 1e30f, 2, 1}, {2, 2});
  std::vector<float> y = ops::causal_softmax(scores, 0).to_floats();
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_NEAR(y[2], 1.0f / (1.0f + std::exp(-1.0f)), 1e-7);
}

TEST(OpsSoftmax, CausalNeedsTwoDimensions) {
  EXPECT_THROW(ops::causal_softmax(Tensor::zeros({4}), 0), Error);
}

}  // namespace
}  // namespace wgpt
