// The backward ops' CPU references against central finite differences of the forward ops: for a
// random weighting w, the gradient of L(x) = Σ w · f(x) must equal backward(dy = w).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

Tensor random_tensor(Shape shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  return Tensor::from_floats(test::random_floats(numel(shape), seed, lo, hi), shape);
}

double weighted_sum(const Tensor& y, const Tensor& w) {
  double sum = 0.0;
  auto a = y.floats(), b = w.floats();
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

// Checks `analytic` (the gradient of Σ w · f(x) with respect to x) against central differences,
// perturbing x in place.
void expect_gradient(const std::function<Tensor()>& f, const Tensor& x, const Tensor& w,
                     const Tensor& analytic, double tolerance = 2e-3, float h = 1e-2f) {
  ASSERT_EQ(analytic.shape(), x.shape());
  auto values = x.floats();
  auto grad = analytic.floats();
  for (size_t i = 0; i < values.size(); ++i) {
    const float saved = values[i];
    values[i] = saved + h;
    const double plus = weighted_sum(f(), w);
    values[i] = saved - h;
    const double minus = weighted_sum(f(), w);
    values[i] = saved;
    const double numeric = (plus - minus) / (2.0 * h);
    EXPECT_NEAR(grad[i], numeric, tolerance * (1.0 + std::fabs(numeric))) << "element " << i;
  }
}

TEST(TrainOpsBackward, MatmulEveryTransposeAndBias) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Tensor a = random_tensor(ta ? Shape{2, 4, 3} : Shape{2, 3, 4}, 1);
      Tensor b = random_tensor(tb ? Shape{2, 5, 4} : Shape{2, 4, 5}, 2);
      ops::MatmulOptions options{.transpose_a = ta, .transpose_b = tb, .scale = 0.7f};
      Tensor w = random_tensor({2, 3, 5}, 3);
      ops::MatmulGrads g = ops::matmul_backward(a, b, w, options);
      auto f = [&] { return ops::matmul(a, b, options); };
      SCOPED_TRACE(testing::Message() << "transpose_a " << ta << ", transpose_b " << tb);
      expect_gradient(f, a, w, g.da);
      expect_gradient(f, b, w, g.db);
      EXPECT_FALSE(g.dbias.has_value());
    }
  }
  Tensor x = random_tensor({3, 4}, 4), weight = random_tensor({4, 6}, 5),
         bias = random_tensor({6}, 6), w = random_tensor({3, 6}, 7);
  ops::MatmulGrads g = ops::matmul_backward(x, weight, w, {.bias = bias});
  ASSERT_TRUE(g.dbias.has_value());
  expect_gradient([&] { return ops::matmul(x, weight, {.bias = bias}); }, bias, w, *g.dbias);
}

TEST(TrainOpsBackward, MatmulRejectsMismatchedGradient) {
  EXPECT_THROW(
      ops::matmul_backward(Tensor::zeros({2, 3}), Tensor::zeros({3, 4}), Tensor::zeros({2, 5})),
      Error);
  EXPECT_THROW(ops::matmul_backward(Tensor::zeros({2, 2, 3}), Tensor::zeros({3, 4}),
                                    Tensor::zeros({2, 2, 4})),
               Error);
}

TEST(TrainOpsBackward, SumRowsAddsColumns) {
  Tensor x = Tensor::from_floats({1, 2, 3, 10, 20, 30}, {2, 3});
  EXPECT_EQ(ops::sum_rows(x).to_floats(), (std::vector<float>{11, 22, 33}));
}

TEST(TrainOpsBackward, Gelu) {
  Tensor x = random_tensor({17}, 8, -4.0f, 4.0f), w = random_tensor({17}, 9);
  expect_gradient([&] { return ops::gelu(x); }, x, w, ops::gelu_backward(x, w));
}

TEST(TrainOpsBackward, LayerNorm) {
  Tensor x = random_tensor({3, 7}, 10, -2.0f, 2.0f), gamma = random_tensor({7}, 11, 0.5f, 1.5f),
         beta = random_tensor({7}, 12), w = random_tensor({3, 7}, 13);
  ops::LayerNormGrads g = ops::layernorm_backward(x, gamma, w, 1e-5f);
  auto f = [&] { return ops::layernorm(x, gamma, beta, 1e-5f); };
  expect_gradient(f, x, w, g.dx, 5e-3, 1e-3f);
  expect_gradient(f, gamma, w, g.dgamma);
  expect_gradient(f, beta, w, g.dbeta);
}

TEST(TrainOpsBackward, CausalSoftmax) {
  Tensor scores = random_tensor({2, 4, 4}, 14, -2.0f, 2.0f), w = random_tensor({2, 4, 4}, 15);
  Tensor dx = ops::softmax_backward(ops::causal_softmax(scores, 0), w);
  expect_gradient([&] { return ops::causal_softmax(scores, 0); }, scores, w, dx);
  // A masked score gets no gradient.
  EXPECT_EQ(dx.floats()[1], 0.0f);
}

TEST(TrainOpsBackward, SplitAndMergeHeadsInvertTheirForward) {
  Tensor qkv = random_tensor({3, 12}, 16);
  ops::Heads heads = ops::split_heads(qkv, 2);
  EXPECT_EQ(ops::split_heads_backward(heads).to_floats(), qkv.to_floats());
  Tensor merged = random_tensor({3, 6}, 17);
  EXPECT_EQ(ops::merge_heads(ops::merge_heads_backward(merged, 2)).to_floats(), merged.to_floats());
  // k's gradient lands in k's third of each row and nowhere else.
  Tensor dk = random_tensor({2, 3, 2}, 18);
  Tensor dqkv = ops::split_heads_backward({Tensor::zeros({2, 3, 2}), dk, Tensor::zeros({2, 3, 2})});
  expect_gradient([&] { return ops::split_heads(qkv, 2).k; }, qkv, dk, dqkv);
}

TEST(TrainOpsBackward, EmbeddingScatterAddsTokensAndSumsPositions) {
  // Two sequences of 3: ids 1 0 1 | 2 1 1, width 2, 5 positions.
  std::vector<uint32_t> ids = {1, 0, 1, 2, 1, 1};
  std::vector<float> dy(12);
  for (size_t i = 0; i < dy.size(); ++i) dy[i] = static_cast<float>(i);
  ops::EmbeddingGrads g = ops::embedding_backward(ids, Tensor::from_floats(dy, {6, 2}), 4, 5, 3);
  // Token 1 appears at 0, 2, 4, 5: rows (0,1)+(4,5)+(8,9)+(10,11).
  EXPECT_EQ(g.dwte.to_floats(), (std::vector<float>{2, 3, 22, 26, 6, 7, 0, 0}));
  // Position p sums rows p and 3 + p; positions 3 and 4 get none.
  EXPECT_EQ(g.dwpe.to_floats(), (std::vector<float>{6, 8, 10, 12, 14, 16, 0, 0, 0, 0}));
  EXPECT_THROW(ops::embedding_backward(ids, Tensor::from_floats(dy, {6, 2}), 2, 5, 3), Error);
  EXPECT_THROW(ops::embedding_backward(ids, Tensor::from_floats(dy, {6, 2}), 4, 5, 4), Error);
}

TEST(TrainOpsBackward, CrossEntropy) {
  Tensor logits = random_tensor({4, 5}, 21, -3.0f, 3.0f);
  Tensor targets = Tensor::from_u32({0, 4, 2, 2}, {4});
  std::vector<float> loss = ops::cross_entropy(logits, targets).to_floats();
  auto x = logits.floats();
  for (size_t r = 0; r < 4; ++r) {
    double sum = 0.0;
    for (size_t c = 0; c < 5; ++c) sum += std::exp(x[r * 5 + c]);
    EXPECT_NEAR(loss[r], std::log(sum) - x[r * 5 + targets.u32s()[r]], 1e-5);
  }
  Tensor w = random_tensor({4}, 22);
  expect_gradient([&] { return ops::cross_entropy(logits, targets); }, logits, w,
                  ops::cross_entropy_backward(logits, targets, w));
  EXPECT_THROW(ops::cross_entropy(logits, Tensor::from_u32({0, 5, 0, 0}, {4})), Error);
}

TEST(TrainOpsBackward, DropoutKeepsOneMinusPScaled) {
  const size_t n = 100000;
  const Tensor ones = Tensor::from_floats(std::vector<float>(n, 1.0f), {n});
  for (float p : {0.1f, 0.5f}) {
    const std::vector<float> y =
        ops::dropout(ones, {.p = p, .seed = 7, .step = 3, .site = 2}).to_floats();
    size_t kept = 0;
    for (float v : y) {
      if (v != 0.0f) {
        ++kept;
        EXPECT_EQ(v, 1.0f / (1.0f - p));
      }
    }
    // The kept fraction's standard deviation is √(p(1 − p) / n) ≤ 0.0016: 0.01 is six of them.
    EXPECT_NEAR(static_cast<double>(kept) / n, 1.0 - p, 0.01) << "p " << p;
  }
  // Each of seed, step and site redraws the mask; the same options draw the same one.
  const ops::DropoutOptions base{.p = 0.5f, .seed = 7, .step = 3, .site = 2};
  const std::vector<float> mask = ops::dropout(ones, base).to_floats();
  EXPECT_EQ(ops::dropout(ones, base).to_floats(), mask);
  EXPECT_NE(ops::dropout(ones, {.p = 0.5f, .seed = 8, .step = 3, .site = 2}).to_floats(), mask);
  EXPECT_NE(ops::dropout(ones, {.p = 0.5f, .seed = 7, .step = 4, .site = 2}).to_floats(), mask);
  EXPECT_NE(ops::dropout(ones, {.p = 0.5f, .seed = 7, .step = 3, .site = 3}).to_floats(), mask);
  // p = 0 is the identity.
  const Tensor x = random_tensor({3, 5}, 23);
  EXPECT_EQ(ops::dropout(x, {.seed = 7}).to_floats(), x.to_floats());
  for (float bad : {1.0f, -0.1f, std::nanf("")}) {
    EXPECT_THROW(ops::dropout(x, {.p = bad}), Error) << "p " << bad;
  }
}

TEST(TrainOpsBackward, DropoutGradientIsItsMask) {
  const ops::DropoutOptions options{.p = 0.3f, .seed = 1, .step = 2, .site = 3};
  const Tensor x = random_tensor({5, 7}, 24), w = random_tensor({5, 7}, 25);
  const Tensor dx = ops::dropout(w, options);
  expect_gradient([&] { return ops::dropout(x, options); }, x, w, dx);
  // Analytically: dx = w / (1 − p) where x was kept, 0 where it was dropped.
  const std::vector<float> y = ops::dropout(x, options).to_floats(), g = dx.to_floats();
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(g[i], y[i] == 0.0f ? 0.0f : w.floats()[i] * (1.0f / (1.0f - options.p)))
        << "element " << i;
  }
}

TEST(TrainOpsBackward, SumOfSquaresCoversEveryTensor) {
  Tensor a = Tensor::from_floats({1, 2}, {2}), b = Tensor::from_floats({3, 4, 5, 6}, {2, 2});
  EXPECT_EQ(ops::sum_of_squares({a, b}).to_floats(), (std::vector<float>{91}));
}

TEST(TrainOpsBackward, AdamWFirstStepMovesByLrAgainstTheGradient) {
  // Step 1: m̂ = g, v̂ = g², so the update is lr · g / (|g| + eps) = lr · sign(g), after decay.
  Tensor param = Tensor::from_floats({1.0f, -2.0f, 0.5f}, {3});
  Tensor grad = Tensor::from_floats({0.3f, -4.0f, 0.0f}, {3});
  Tensor m = Tensor::zeros({3}), v = Tensor::zeros({3});
  ops::adamw_update(param, grad, m, v, ops::sum_of_squares({grad}),
                    {.lr = 0.1f, .weight_decay = 0.5f, .step = 1});
  std::vector<float> p = param.to_floats();
  EXPECT_NEAR(p[0], 1.0f * 0.95f - 0.1f, 1e-6);
  EXPECT_NEAR(p[1], -2.0f * 0.95f + 0.1f, 1e-6);
  EXPECT_NEAR(p[2], 0.5f * 0.95f, 1e-6);
  EXPECT_NEAR(m.to_floats()[1], -0.4f, 1e-6);
  EXPECT_NEAR(v.to_floats()[1], 0.05f * 16.0f, 1e-5);
}

TEST(TrainOpsBackward, AdamWClipsByTheGlobalNorm) {
  // ‖g‖ = 5 clipped to 1: g becomes (0.6, 0.8); m after one step is (1 − β1) of that.
  Tensor param = Tensor::zeros({2}), m = Tensor::zeros({2}), v = Tensor::zeros({2});
  Tensor grad = Tensor::from_floats({3, 4}, {2});
  ops::adamw_update(param, grad, m, v, ops::sum_of_squares({grad}),
                    {.lr = 0.1f, .step = 1, .clip = 1.0f});
  EXPECT_NEAR(m.to_floats()[0], 0.1f * 0.6f, 1e-6);
  EXPECT_NEAR(m.to_floats()[1], 0.1f * 0.8f, 1e-6);
}

}  // namespace
}  // namespace wgpt
