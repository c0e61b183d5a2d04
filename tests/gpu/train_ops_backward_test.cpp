// Every training kernel against its CPU reference on random inputs, with sizes that are not
// multiples of the workgroup size and reductions longer than one workgroup.
#include <gtest/gtest.h>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

Tensor random_tensor(Shape shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  return Tensor::from_floats(test::random_floats(numel(shape), seed, lo, hi), shape);
}

Tensor gpu(const Tensor& t) { return t.to_gpu(test::gpu_context()); }

TEST(GpuTrainOps, MatmulBackwardEveryLayout) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      // m = 70 takes the tiled kernel, m = 5 the matrix-vector one; k and n are not multiples of
      // the tiles.
      for (size_t m : {70u, 5u}) {
        Tensor a = random_tensor(ta ? Shape{3, 33, m} : Shape{3, m, 33}, 1);
        Tensor b = random_tensor(tb ? Shape{3, 65, 33} : Shape{3, 33, 65}, 2);
        Tensor dy = random_tensor({3, m, 65}, 3);
        ops::MatmulOptions options{.transpose_a = ta, .transpose_b = tb, .scale = 0.5f};
        ops::MatmulGrads want = ops::matmul_backward(a, b, dy, options);
        ops::MatmulGrads got = ops::matmul_backward(gpu(a), gpu(b), gpu(dy), options);
        SCOPED_TRACE(testing::Message() << "ta " << ta << " tb " << tb << " m " << m);
        EXPECT_TRUE(test::all_close(got.da, want.da, 1e-4f, 1e-4f));
        EXPECT_TRUE(test::all_close(got.db, want.db, 1e-4f, 1e-4f));
      }
    }
  }
  Tensor x = random_tensor({300, 17}, 4), w = random_tensor({17, 23}, 5),
         bias = random_tensor({23}, 6), dy = random_tensor({300, 23}, 7);
  ops::MatmulGrads got = ops::matmul_backward(gpu(x), gpu(w), gpu(dy), {.bias = gpu(bias)});
  ops::MatmulGrads want = ops::matmul_backward(x, w, dy, {.bias = bias});
  EXPECT_TRUE(test::all_close(*got.dbias, *want.dbias, 1e-4f, 1e-5f));
}

// Attention's two products as training records them, triangular (causal scores, probabilities
// read as lower triangular), on the 64×64 and the 128×128 kernels.
TEST(GpuTrainOps, TriangularMatmulBackward) {
  for (size_t batch : {2u, 24u}) {
    const size_t t = 200, head = 64;
    const Tensor q = random_tensor({batch, t, head}, 1), k = random_tensor({batch, t, head}, 2),
                 dscores = random_tensor({batch, t, t}, 3), probs = random_tensor({batch, t, t}, 4),
                 dattended = random_tensor({batch, t, head}, 5);
    SCOPED_TRACE(testing::Message() << "batch " << batch);
    const ops::MatmulOptions scores{
        .transpose_b = true, .scale = 0.125f, .triangle = ops::Triangle::lower_output};
    ops::MatmulGrads want = ops::matmul_backward(q, k, dscores, scores);
    ops::MatmulGrads got = ops::matmul_backward(gpu(q), gpu(k), gpu(dscores), scores);
    EXPECT_TRUE(test::all_close(got.da, want.da, 1e-4f, 1e-4f));
    EXPECT_TRUE(test::all_close(got.db, want.db, 1e-4f, 1e-4f));
    const ops::MatmulOptions values{.triangle = ops::Triangle::lower_a};
    want = ops::matmul_backward(probs, k, dattended, values);
    got = ops::matmul_backward(gpu(probs), gpu(k), gpu(dattended), values);
    EXPECT_TRUE(test::all_close(got.da, want.da, 1e-4f, 1e-4f));
    EXPECT_TRUE(test::all_close(got.db, want.db, 1e-4f, 1e-4f));
  }
}

TEST(GpuTrainOps, SumRowsOverSeveralPasses) {
  // 9000 rows take three passes (141 blocks, then 3, then 1); 300 columns two workgroups.
  Tensor x = random_tensor({9000, 300}, 8);
  EXPECT_TRUE(test::all_close(ops::sum_rows(gpu(x)), ops::sum_rows(x), 1e-3f, 1e-5f));
  Tensor column = random_tensor({5, 1}, 9);
  EXPECT_TRUE(test::all_close(ops::sum_rows(gpu(column)), ops::sum_rows(column), 1e-6f, 1e-6f));
}

TEST(GpuTrainOps, GeluBackward) {
  Tensor x = random_tensor({1000}, 10, -6.0f, 6.0f), dy = random_tensor({1000}, 11);
  EXPECT_TRUE(test::all_close(ops::gelu_backward(gpu(x), gpu(dy)), ops::gelu_backward(x, dy), 1e-5f,
                              1e-5f));
}

TEST(GpuTrainOps, LayerNormBackward) {
  for (size_t cols : {1u, 7u, 300u, 768u}) {
    Tensor x = random_tensor({67, cols}, 12, -2.0f, 3.0f);
    Tensor gamma = random_tensor({cols}, 13, 0.5f, 1.5f), dy = random_tensor({67, cols}, 14);
    ops::LayerNormGrads want = ops::layernorm_backward(x, gamma, dy);
    ops::LayerNormGrads got = ops::layernorm_backward(gpu(x), gpu(gamma), gpu(dy));
    SCOPED_TRACE(testing::Message() << "cols " << cols);
    EXPECT_TRUE(test::all_close(got.dx, want.dx, 1e-4f, 1e-4f));
    EXPECT_TRUE(test::all_close(got.dgamma, want.dgamma, 1e-4f, 1e-4f));
    EXPECT_TRUE(test::all_close(got.dbeta, want.dbeta, 1e-4f, 1e-5f));
  }
}

TEST(GpuTrainOps, SoftmaxBackward) {
  for (size_t t : {5u, 300u}) {
    Tensor y = ops::causal_softmax(random_tensor({3, t, t}, 15, -3.0f, 3.0f), 0);
    Tensor dy = random_tensor({3, t, t}, 16);
    SCOPED_TRACE(testing::Message() << "t " << t);
    EXPECT_TRUE(test::all_close(ops::softmax_backward(gpu(y), gpu(dy)),
                                ops::softmax_backward(y, dy), 1e-5f, 1e-4f));
  }
}

TEST(GpuTrainOps, SplitAndMergeHeadsBackward) {
  ops::Heads grads{random_tensor({3, 37, 5}, 17), random_tensor({3, 37, 5}, 18),
                   random_tensor({3, 37, 5}, 19)};
  ops::Heads on_gpu{gpu(grads.q), gpu(grads.k), gpu(grads.v)};
  EXPECT_TRUE(test::all_close(ops::split_heads_backward(on_gpu), ops::split_heads_backward(grads),
                              0.0f, 0.0f));
  Tensor dy = random_tensor({37, 15}, 20);
  EXPECT_TRUE(test::all_close(ops::merge_heads_backward(gpu(dy), 3),
                              ops::merge_heads_backward(dy, 3), 0.0f, 0.0f));
}

TEST(GpuTrainOps, EmbeddingBackward) {
  // 4 sequences of 29 tokens from a vocabulary of 50, one id repeated often; 64 positions.
  std::vector<uint32_t> ids(4 * 29);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = i % 3 == 0 ? 7 : (i * 31) % 50;
  Tensor dy = random_tensor({ids.size(), 33}, 21);
  ops::EmbeddingGrads want = ops::embedding_backward(ids, dy, 50, 64, 29);
  ops::EmbeddingGrads got = ops::embedding_backward(ids, gpu(dy), 50, 64, 29);
  EXPECT_TRUE(test::all_close(got.dwte, want.dwte, 1e-5f, 1e-5f));
  EXPECT_TRUE(test::all_close(got.dwpe, want.dwpe, 1e-5f, 1e-5f));
}

TEST(GpuTrainOps, CrossEntropyAndItsGradient) {
  for (size_t vocab : {65u, 1000u}) {
    Tensor logits = random_tensor({37, vocab}, 22, -5.0f, 5.0f);
    std::vector<uint32_t> targets(37);
    for (size_t i = 0; i < targets.size(); ++i) targets[i] = (i * 97) % vocab;
    Tensor ids = Tensor::from_u32(targets, {37});
    Tensor dloss = random_tensor({37}, 23);
    SCOPED_TRACE(testing::Message() << "vocab " << vocab);
    EXPECT_TRUE(test::all_close(ops::cross_entropy(gpu(logits), gpu(ids)),
                                ops::cross_entropy(logits, ids), 1e-5f, 1e-5f));
    EXPECT_TRUE(test::all_close(ops::cross_entropy_backward(gpu(logits), gpu(ids), gpu(dloss)),
                                ops::cross_entropy_backward(logits, ids, dloss), 1e-6f, 1e-4f));
  }
}

// The kernel draws the CPU's masks: equal to the bit. Dropout's gradient is the same op on dy.
TEST(GpuTrainOps, DropoutDrawsTheCpuMask) {
  const Tensor x = random_tensor({3, 7001}, 31);
  for (float p : {0.0f, 0.1f, 0.5f}) {
    const ops::DropoutOptions options{.p = p, .seed = 1337, .step = 12, .site = 5};
    SCOPED_TRACE(testing::Message() << "p " << p);
    EXPECT_TRUE(
        test::all_close(ops::dropout(gpu(x), options), ops::dropout(x, options), 0.0f, 0.0f));
  }
}

TEST(GpuTrainOps, SumOfSquaresAcrossTensors) {
  Tensor a = random_tensor({5000}, 24), b = random_tensor({3, 7}, 25), c = random_tensor({1}, 26);
  EXPECT_TRUE(test::all_close(ops::sum_of_squares({gpu(a), gpu(b), gpu(c)}),
                              ops::sum_of_squares({a, b, c}), 1e-3f, 1e-5f));
}

TEST(GpuTrainOps, AdamWWithAndWithoutClipping) {
  for (float clip : {0.0f, 0.5f}) {
    Tensor param = random_tensor({1001}, 27), grad = random_tensor({1001}, 28);
    Tensor m = random_tensor({1001}, 29, -0.1f, 0.1f), v = random_tensor({1001}, 30, 0.0f, 0.1f);
    Tensor p_gpu = gpu(param), m_gpu = gpu(m), v_gpu = gpu(v), g_gpu = gpu(grad);
    ops::AdamWOptions options{.lr = 3e-3f, .weight_decay = 0.1f, .step = 4, .clip = clip};
    ops::adamw_update(param, grad, m, v, ops::sum_of_squares({grad}), options);
    ops::adamw_update(p_gpu, g_gpu, m_gpu, v_gpu, ops::sum_of_squares({g_gpu}), options);
    SCOPED_TRACE(testing::Message() << "clip " << clip);
    EXPECT_TRUE(test::all_close(p_gpu, param, 1e-6f, 1e-6f));
    EXPECT_TRUE(test::all_close(m_gpu, m, 1e-7f, 1e-6f));
    EXPECT_TRUE(test::all_close(v_gpu, v, 1e-7f, 1e-6f));
  }
}

}  // namespace
}  // namespace wgpt
