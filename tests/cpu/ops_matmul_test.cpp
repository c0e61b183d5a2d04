#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ops/gemm.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

// a [2, 3] = [[1, 2, 3], [4, 5, 6]], b [3, 2] = [[1, 0], [0, 1], [1, 1]] → [[4, 5], [10, 11]].
Tensor a23() { return Tensor::from_floats({1, 2, 3, 4, 5, 6}, {2, 3}); }
Tensor b32() { return Tensor::from_floats({1, 0, 0, 1, 1, 1}, {3, 2}); }

// The transpose of a 2-D CPU tensor.
Tensor transposed(const Tensor& t) {
  std::vector<float> values = t.to_floats(), out(values.size());
  size_t rows = t.dim(0), cols = t.dim(1);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
  }
  return Tensor::from_floats(out, {cols, rows});
}

TEST(OpsMatmul, MultipliesMatrices) {
  Tensor c = ops::matmul(a23(), b32());
  EXPECT_EQ(c.shape(), (Shape{2, 2}));
  EXPECT_EQ(c.to_floats(), (std::vector<float>{4, 5, 10, 11}));
}

TEST(OpsMatmul, TransposedOperandsGiveTheSameProduct) {
  std::vector<float> expected = {4, 5, 10, 11};
  EXPECT_EQ(ops::matmul(transposed(a23()), b32(), {.transpose_a = true}).to_floats(), expected);
  EXPECT_EQ(ops::matmul(a23(), transposed(b32()), {.transpose_b = true}).to_floats(), expected);
  EXPECT_EQ(
      ops::matmul(transposed(a23()), transposed(b32()), {.transpose_a = true, .transpose_b = true})
          .to_floats(),
      expected);
}

TEST(OpsMatmul, ScalesThenAddsBias) {
  Tensor bias = Tensor::from_floats({100, 200}, {2});
  Tensor c = ops::matmul(a23(), b32(), {.bias = bias, .scale = 0.5f});
  EXPECT_EQ(c.to_floats(), (std::vector<float>{102, 202.5f, 105, 205.5f}));
}

TEST(OpsMatmul, BatchedAndBroadcast) {
  // Batch of two A matrices against one B: the second is 2·A.
  std::vector<float> values = {1, 2, 3, 4, 5, 6, 2, 4, 6, 8, 10, 12};
  Tensor a = Tensor::from_floats(values, {2, 2, 3});
  Tensor c = ops::matmul(a, b32());
  EXPECT_EQ(c.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(c.to_floats(), (std::vector<float>{4, 5, 10, 11, 8, 10, 20, 22}));
  // One A against a batch of B: [b32, 2·b32].
  Tensor b = Tensor::from_floats({1, 0, 0, 1, 1, 1, 2, 0, 0, 2, 2, 2}, {2, 3, 2});
  EXPECT_EQ(ops::matmul(a23(), b).to_floats(), (std::vector<float>{4, 5, 10, 11, 8, 10, 20, 22}));
}

TEST(OpsMatmul, MismatchesNameOpAndShapes) {
  try {
    ops::matmul(a23(), a23());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("matmul"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f32[2, 3]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ops::matmul(Tensor::zeros({2, 2, 3}), Tensor::zeros({3, 3, 2})), Error);
  EXPECT_THROW(ops::matmul(a23(), b32(), {.bias = Tensor::zeros({3})}), Error);
  EXPECT_THROW(ops::matmul(Tensor::zeros({6}), b32()), Error);
}

TEST(OpsMatmul, TransposedChunksFillTheirColumns) {
  // B [3, 3] split as rows {0}, {1, 2}: a · Bᵀ equals the unsplit product.
  Tensor b = Tensor::from_floats({1, 0, 0, 0, 1, 0, 1, 1, 1}, {3, 3});
  Tensor c = ops::matmul_transposed_chunks(a23(), {b.rows(0, 1), b.rows(1, 2)}, 2.0f);
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  EXPECT_EQ(c.to_floats(), (std::vector<float>{2, 4, 12, 8, 10, 30}));
  EXPECT_THROW(ops::matmul_transposed_chunks(a23(), {Tensor::zeros({2, 2})}), Error);
}

// The definition of detail::gemm, one output element at a time: its sum over k in order, in
// double, then the scale, bias, GELU and residual.
std::vector<float> gemm_by_element(const ops::detail::Gemm& g, const std::vector<float>& a,
                                   const std::vector<float>& b, const std::vector<float>& bias,
                                   const std::vector<float>& residual, std::vector<float> out) {
  for (size_t batch = 0; batch < g.batch; ++batch) {
    for (size_t row = 0; row < g.m; ++row) {
      for (size_t col = 0; col < g.n; ++col) {
        double sum = 0.0;
        for (size_t kk = 0; kk < g.k; ++kk) {
          const float a_value = g.trans_a ? a[batch * g.a_batch_stride + kk * g.m + row]
                                          : a[batch * g.a_batch_stride + row * g.k + kk];
          const float b_value = g.trans_b ? b[batch * g.b_batch_stride + col * g.k + kk]
                                          : b[batch * g.b_batch_stride + kk * g.n + col];
          sum += static_cast<double>(a_value) * b_value;
        }
        float value = static_cast<float>(sum) * g.scale + bias[col];
        const float u = 0.7978845608028654f * (value + 0.044715f * value * value * value);
        value = 0.5f * value * (1.0f + std::tanh(u));
        const size_t at = (batch * g.m + row) * g.out_row_stride + g.out_col_offset + col;
        out[at] = value + residual[at];
      }
    }
  }
  return out;
}

// The CPU product runs in tiles and column blocks (for speed) but must stay the definition bit for
// bit: odd sizes that leave partial tiles and blocks, every transpose, strided batches, a column
// block of a wider output, and the whole epilogue.
TEST(OpsMatmul, CpuProductIsTheDefinitionBitForBit) {
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      const ops::detail::Gemm g{.batch = 3,
                                .m = 9,
                                .k = 37,
                                .n = 70,
                                .a_batch_stride = 9 * 37 + 5,
                                .b_batch_stride = 37 * 70 + 3,
                                .trans_a = trans_a,
                                .trans_b = trans_b,
                                .scale = 0.37f,
                                .out_col_offset = 2,
                                .out_row_stride = 75};
      const std::vector<float> a = test::random_floats(2 * g.a_batch_stride + 9 * 37, 1);
      const std::vector<float> b = test::random_floats(2 * g.b_batch_stride + 37 * 70, 2);
      const std::vector<float> bias = test::random_floats(70, 3);
      const std::vector<float> residual = test::random_floats(3 * 9 * 75, 4);
      const std::vector<float> before = test::random_floats(3 * 9 * 75, 5);
      const Tensor out = Tensor::from_floats(before, {3 * 9 * 75});
      ops::detail::gemm("test", g, Tensor::from_floats(a, {a.size()}),
                        Tensor::from_floats(b, {b.size()}),
                        {.bias = Tensor::from_floats(bias, {70}),
                         .gelu = true,
                         .residual = Tensor::from_floats(residual, {residual.size()})},
                        out);
      EXPECT_EQ(out.to_floats(), gemm_by_element(g, a, b, bias, residual, before))
          << "trans_a " << trans_a << ", trans_b " << trans_b;
    }
  }
}

// Devices as gemm_kernel sees them: storage bindings start at multiples of 256 bytes (WebGPU's
// default alignment), 32 KiB of workgroup memory (llvmpipe's and most browsers'); one has tensor
// cores (an H200's 16 × 16 × 16 subgroup matrices).
gpu::Limits f32_device(size_t alignment = 256) {
  gpu::Limits limits;
  limits.min_storage_buffer_offset_alignment = static_cast<uint32_t>(alignment);
  limits.max_workgroup_storage_bytes = 32768;
  limits.max_storage_buffer_binding_size = 4095ull << 20;  // an H200's, through Dawn
  return limits;
}

gpu::Limits tensor_device() {
  gpu::Limits limits = f32_device();
  limits.max_workgroup_storage_bytes = 49152;
  limits.max_invocations_per_workgroup = 1024;
  limits.f16_matrix = {16, 16, 16, 32};
  return limits;
}

TEST(OpsMatmul, GpuKernelFollowsTheProductsSize) {
  using ops::detail::GemmKernel;
  auto kernel = [](ops::detail::Gemm g) {
    return ops::detail::gemm_kernel(g, f32_device()).kernel;
  };
  // GPT-2 124M training on 8 × 1024 tokens: the linear layers forward and backward (the weight
  // gradient 768×8192 · 8192×2304 has A transposed), the LM head, attention's products per head.
  EXPECT_EQ(kernel({.m = 8192, .k = 768, .n = 2304}), GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.m = 8192, .k = 2304, .n = 768, .trans_b = true}), GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.m = 768, .k = 8192, .n = 2304, .trans_a = true}), GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.m = 8192, .k = 768, .n = 50257, .trans_b = true}), GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.batch = 96,
                    .m = 1024,
                    .k = 64,
                    .n = 1024,
                    .a_batch_stride = 1024 * 64,
                    .b_batch_stride = 1024 * 64,
                    .trans_b = true}),
            GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.batch = 96,
                    .m = 1024,
                    .k = 1024,
                    .n = 64,
                    .a_batch_stride = 1024 * 1024,
                    .b_batch_stride = 1024 * 64}),
            GemmKernel::wide_vec4);
  // The LM head's gradient with respect to the embedding: rows of 50257 are not whole vec4s.
  EXPECT_EQ(kernel({.m = 50257, .k = 8192, .n = 768, .trans_a = true}), GemmKernel::wide);
  // Nor are bindings that may start 4 bytes apart.
  EXPECT_EQ(ops::detail::gemm_kernel({.m = 8192, .k = 768, .n = 2304}, f32_device(4)).kernel,
            GemmKernel::wide);
  // A device with WebGPU's default 16 KiB of workgroup memory cannot hold the 128×128 tiles (18
  // KiB).
  gpu::Limits small_workgroups = f32_device();
  small_workgroups.max_workgroup_storage_bytes = 16384;
  EXPECT_EQ(ops::detail::gemm_kernel({.m = 8192, .k = 768, .n = 2304}, small_workgroups).kernel,
            GemmKernel::tiled);
  // Operands read as vec4s take a 128×128 kernel from 32 blocks on (768×768: 36 blocks, 512×768:
  // 24), scalar ones from 96 (513×2304: 90 blocks, 1025×2304: 162).
  EXPECT_EQ(kernel({.m = 768, .k = 8192, .n = 768, .trans_a = true}), GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.m = 512, .k = 768, .n = 768}), GemmKernel::tiled);
  EXPECT_EQ(kernel({.m = 513, .k = 767, .n = 2304}), GemmKernel::tiled);
  EXPECT_EQ(kernel({.m = 1025, .k = 767, .n = 2304}), GemmKernel::wide);
  // A few rows: the matrix-vector kernel.
  EXPECT_EQ(kernel({.m = 16, .k = 768, .n = 50257}), GemmKernel::vector);
  // Mixed precision changes nothing on a device without tensor cores.
  EXPECT_EQ(kernel({.m = 128, .k = 768, .n = 2304, .precision = ops::Precision::mixed}),
            GemmKernel::tiled);
}

TEST(OpsMatmul, MixedPrecisionTakesTheTensorCoresWhereTheDeviceHasThem) {
  using ops::detail::GemmKernel;
  auto kernel = [](ops::detail::Gemm g) {
    g.precision = ops::Precision::mixed;
    return ops::detail::gemm_kernel(g, tensor_device()).kernel;
  };
  // 128×128 blocks from one per multiprocessor of an H200 (132) on: pp1024's products (8 × 18
  // blocks) and training's; 64×64 blocks below (pp128: 1 × 18).
  EXPECT_EQ(kernel({.m = 1024, .k = 768, .n = 2304}), GemmKernel::tensor_vec4);
  EXPECT_EQ(kernel({.m = 8192, .k = 3072, .n = 768}), GemmKernel::tensor_vec4);
  EXPECT_EQ(kernel({.m = 768, .k = 8192, .n = 768, .trans_a = true}), GemmKernel::tensor_64_vec4);
  EXPECT_EQ(kernel({.m = 128, .k = 768, .n = 2304}), GemmKernel::tensor_64_vec4);
  // Rows that are not whole vec4s read one float at a time.
  EXPECT_EQ(kernel({.m = 50257, .k = 8192, .n = 768, .trans_a = true}), GemmKernel::tensor);
  EXPECT_EQ(kernel({.m = 128, .k = 767, .n = 2304}), GemmKernel::tensor_64);
  // WebGPU's default 16 KiB of workgroup memory holds only the 64×64 blocks.
  gpu::Limits small = tensor_device();
  small.max_workgroup_storage_bytes = 16384;
  EXPECT_EQ(ops::detail::gemm_kernel(
                {.m = 1024, .k = 768, .n = 2304, .precision = ops::Precision::mixed}, small)
                .kernel,
            GemmKernel::tensor_64_vec4);
  // f32 products keep the f32 kernels; a few rows keep the matrix-vector kernel.
  EXPECT_EQ(ops::detail::gemm_kernel({.m = 1024, .k = 768, .n = 2304}, tensor_device()).kernel,
            GemmKernel::wide_vec4);
  EXPECT_EQ(kernel({.m = 1, .k = 768, .n = 2304}), GemmKernel::vector);
}

// A triangular product is the full product with the triangle's zeros in place: op(a)'s entries
// above (lower_a) or below (upper_a) the diagonal, or the output's above it (lower_output),
// whatever a holds there — bit for bit on the CPU, whose sums are exact in double.
TEST(OpsMatmul, TriangularProductsAreTheFullProductOverTheirZeros) {
  constexpr size_t kBatch = 2, kT = 9, kN = 5;
  // `values` [batch, rows, cols] with entry (i, j) zeroed where keep(i, j) is false.
  auto masked = [](const Tensor& values, auto keep) {
    std::vector<float> out = values.to_floats();
    const size_t rows = values.dim(1), cols = values.dim(2);
    for (size_t i = 0; i < out.size(); ++i) {
      if (!keep((i / cols) % rows, i % cols)) out[i] = 0.0f;
    }
    return Tensor::from_floats(out, values.shape());
  };
  auto lower = [](size_t row, size_t col) { return col <= row; };
  auto upper = [](size_t row, size_t col) { return col >= row; };
  const Tensor a = Tensor::from_floats(test::random_floats(kBatch * kT * kT, 1), {kBatch, kT, kT});
  const Tensor b = Tensor::from_floats(test::random_floats(kBatch * kT * kN, 2), {kBatch, kT, kN});
  for (bool transpose_a : {false, true}) {
    const ops::MatmulOptions plain{.transpose_a = transpose_a, .scale = 0.5f};
    for (ops::Triangle triangle : {ops::Triangle::lower_a, ops::Triangle::upper_a}) {
      ops::MatmulOptions options = plain;
      options.triangle = triangle;
      const bool is_lower = triangle == ops::Triangle::lower_a;
      // Stored transposed, op(a)'s (row, k) is a's (k, row): the mask swaps its arguments.
      const Tensor zeroed = transpose_a ? (is_lower ? masked(a, upper) : masked(a, lower))
                                        : (is_lower ? masked(a, lower) : masked(a, upper));
      EXPECT_EQ(ops::matmul(a, b, options).to_floats(), ops::matmul(zeroed, b, plain).to_floats())
          << "transpose_a " << transpose_a << ", lower " << is_lower;
    }
  }
  const Tensor bt = Tensor::from_floats(test::random_floats(kBatch * kT * kN, 3), {kBatch, kT, kN});
  const Tensor q = Tensor::from_floats(test::random_floats(kBatch * kT * kN, 4), {kBatch, kT, kN});
  const ops::MatmulOptions scores{.transpose_b = true, .scale = 0.25f};
  ops::MatmulOptions causal = scores;
  causal.triangle = ops::Triangle::lower_output;
  EXPECT_EQ(ops::matmul(q, bt, causal).to_floats(),
            masked(ops::matmul(q, bt, scores), lower).to_floats());
}

TEST(OpsMatmul, TriangularProductsRefuseWhatTheyCannotBe) {
  const Tensor square = Tensor::from_floats(test::random_floats(16, 1), {4, 4});
  const Tensor wide = Tensor::from_floats(test::random_floats(12, 2), {4, 3});
  EXPECT_THROW(ops::matmul(square, wide, {.triangle = ops::Triangle::lower_output}), Error);
  EXPECT_THROW(ops::matmul(wide, wide, {.transpose_b = true, .triangle = ops::Triangle::lower_a}),
               Error);
  EXPECT_NO_THROW(ops::matmul(square, wide, {.triangle = ops::Triangle::lower_a}));
  EXPECT_THROW(ops::matmul(square, square,
                           {.bias = Tensor::zeros({4}), .triangle = ops::Triangle::lower_output}),
               Error);
  // Gradients exist where the triangle falls on the first operand of each gradient product.
  EXPECT_THROW(ops::matmul_backward(square, square, square,
                                    {.transpose_a = true, .triangle = ops::Triangle::lower_a}),
               Error);
  EXPECT_THROW(ops::matmul_backward(square, square, square, {.triangle = ops::Triangle::upper_a}),
               Error);
}

// The gradients of attention's two products, triangular, equal those of the full products with
// the zeros made explicit.
TEST(OpsMatmul, TriangularGradientsAreTheFullProductsOverTheirZeros) {
  constexpr size_t kT = 11, kHead = 6;
  auto lower_only = [](const Tensor& t) {
    std::vector<float> v = t.to_floats();
    for (size_t i = 0; i < v.size(); ++i) {
      if (i % kT > (i / kT) % kT) v[i] = 0.0f;
    }
    return Tensor::from_floats(v, t.shape());
  };
  auto random = [](Shape shape, uint32_t seed) {
    return Tensor::from_floats(test::random_floats(numel(shape), seed), shape);
  };
  // scores = s·q·kᵀ, zero above the diagonal: dy's entries there reach nothing.
  const Tensor q = random({2, kT, kHead}, 1), k = random({2, kT, kHead}, 2),
               dscores = random({2, kT, kT}, 3);
  const ops::MatmulOptions scores{.transpose_b = true, .scale = 0.5f};
  ops::MatmulOptions causal = scores;
  causal.triangle = ops::Triangle::lower_output;
  const ops::MatmulGrads got = ops::matmul_backward(q, k, dscores, causal);
  const ops::MatmulGrads want = ops::matmul_backward(q, k, lower_only(dscores), scores);
  EXPECT_EQ(got.da.to_floats(), want.da.to_floats());
  EXPECT_EQ(got.db.to_floats(), want.db.to_floats());
  // attended = probs·v with probs read as lower triangular: no gradient reaches its upper part.
  const Tensor probs = random({2, kT, kT}, 4), v = random({2, kT, kHead}, 5),
               dattended = random({2, kT, kHead}, 6);
  const ops::MatmulGrads got_values =
      ops::matmul_backward(probs, v, dattended, {.triangle = ops::Triangle::lower_a});
  const ops::MatmulGrads want_values = ops::matmul_backward(lower_only(probs), v, dattended, {});
  EXPECT_EQ(got_values.da.to_floats(), lower_only(want_values.da).to_floats());
  EXPECT_EQ(got_values.db.to_floats(), want_values.db.to_floats());
}

// Only the f32 tiled kernels know triangles: a few rows take the 64×64 one rather than gemv, and
// mixed precision keeps the f32 kernels on a device with tensor cores.
TEST(OpsMatmul, TriangularProductsTakeTheF32TiledKernels) {
  using ops::detail::GemmKernel;
  for (const gpu::Limits& device : {f32_device(), tensor_device()}) {
    auto kernel = [&](ops::detail::Gemm g) {
      g.precision = ops::Precision::mixed;
      return ops::detail::gemm_kernel(g, device).kernel;
    };
    EXPECT_EQ(kernel({.m = 8, .k = 8, .n = 64, .triangle = ops::Triangle::lower_a}),
              GemmKernel::tiled);
    EXPECT_EQ(kernel({.batch = 96,
                      .m = 1024,
                      .k = 64,
                      .n = 1024,
                      .trans_b = true,
                      .triangle = ops::Triangle::lower_output}),
              GemmKernel::wide_vec4);
    EXPECT_EQ(
        kernel({.batch = 96, .m = 1024, .k = 1024, .n = 64, .triangle = ops::Triangle::lower_a}),
        GemmKernel::wide_vec4);
  }
}

TEST(OpsMatmul, RowInvariantProductsChooseAsFor64Rows) {
  // A batched decode step's products (GPT-2 124M's QKV, MLP down and LM head) take the same
  // kernel and split of k for 1, 5, 64 or 200 rows, on either device: a row's sums then do not
  // depend on how many rows the step has.
  for (const gpu::Limits& device : {f32_device(), tensor_device()}) {
    for (ops::Precision precision : {ops::Precision::f32, ops::Precision::mixed}) {
      for (ops::detail::Gemm g :
           {ops::detail::Gemm{.k = 768, .n = 2304}, ops::detail::Gemm{.k = 3072, .n = 768},
            ops::detail::Gemm{.k = 768, .n = 50257, .trans_b = true}}) {
        g.precision = precision;
        g.row_invariant = true;
        g.m = 64;
        const ops::detail::GemmChoice fixed = ops::detail::gemm_kernel(g, device);
        EXPECT_NE(fixed.kernel, ops::detail::GemmKernel::vector);
        for (size_t m : {1, 5, 200}) {
          g.m = m;
          const ops::detail::GemmChoice choice = ops::detail::gemm_kernel(g, device);
          EXPECT_EQ(choice.kernel, fixed.kernel) << m << " rows, n " << g.n;
          EXPECT_EQ(choice.splits, fixed.splits) << m << " rows, n " << g.n;
          EXPECT_EQ(choice.k_per_split, fixed.k_per_split) << m << " rows, n " << g.n;
        }
      }
    }
  }
  // Without it, one row takes the matrix-vector kernel.
  EXPECT_EQ(ops::detail::gemm_kernel({.m = 1, .k = 768, .n = 2304}, f32_device()).kernel,
            ops::detail::GemmKernel::vector);
  // Their k splits as the general target asks, down to 64 deep: GPT-2 124M's attention projection
  // (12 blocks of output) runs in 12 splits of 64 (a plain 64-row product on the f32 kernel, 16
  // of 48).
  const ops::detail::GemmChoice projection =
      ops::detail::gemm_kernel({.m = 64, .k = 768, .n = 768, .row_invariant = true}, f32_device());
  EXPECT_EQ(projection.splits, 12u);
  EXPECT_EQ(projection.k_per_split, 64u);
  EXPECT_EQ(ops::detail::gemm_kernel({.m = 64, .k = 768, .n = 768}, f32_device()).splits, 16u);
}

TEST(OpsMatmul, ForcedSplitsCutKIntoWholeTilesNoneEmpty) {
  // pp1024's qkv projection: the 128×128 vec4 kernel (k tiles of 8), 3 splits of its own accord.
  auto choice = [](size_t k_splits, size_t m = 1024) {
    return ops::detail::gemm_kernel({.m = m, .k = 768, .n = 2304, .k_splits = k_splits},
                                    f32_device());
  };
  EXPECT_EQ(choice(0).splits, 3u);
  EXPECT_EQ(choice(1).splits, 1u);
  EXPECT_EQ(choice(1).k_per_split, 768u);
  EXPECT_EQ(choice(5).kernel, ops::detail::GemmKernel::wide_vec4);
  EXPECT_EQ(choice(5).splits, 5u);
  EXPECT_EQ(choice(5).k_per_split, 160u);  // 768 / 5 rounded up to the tile
  EXPECT_EQ(choice(1000).splits, 96u);     // one tile each at most
  EXPECT_EQ(choice(1000).k_per_split, 8u);
  // The matrix-vector kernel has no k tile.
  EXPECT_EQ(choice(7, 1).kernel, ops::detail::GemmKernel::vector);
  EXPECT_EQ(choice(7, 1).splits, 7u);
  EXPECT_EQ(choice(7, 1).k_per_split, 110u);
  EXPECT_EQ(ops::matmul_kernel(f32_device(), {1024, 768}, {768, 2304}, {.k_splits = 5}),
            "matmul_wide_vec4 (5 splits)");
}

TEST(OpsMatmul, PackedWeightsTakeTheF32KernelsDtypeVariantsEvenInMixedPrecision) {
  using ops::detail::GemmKernel;
  // The tensor-core kernels read B as f32: a B stored as f16, bf16 or q4 goes to the f32 kernels,
  // which have a variant for each, with the vec4 reads where B's rows hold whole words of 8.
  for (DType dtype : {DType::f16, DType::bf16, DType::q4}) {
    SCOPED_TRACE(to_string(dtype));
    auto kernel = [&](ops::detail::Gemm g) {
      g.precision = ops::Precision::mixed;
      g.b_dtype = dtype;
      return ops::detail::gemm_kernel(g, tensor_device()).kernel;
    };
    EXPECT_EQ(kernel({.m = 1024, .k = 768, .n = 2304}), GemmKernel::wide_vec4);
    EXPECT_EQ(kernel({.m = 128, .k = 768, .n = 2304}), GemmKernel::tiled);
    EXPECT_EQ(kernel({.m = 1025, .k = 767, .n = 2304}), GemmKernel::wide);
    EXPECT_EQ(kernel({.m = 4096, .k = 768, .n = 2300}), GemmKernel::wide);  // rows of 2300: not 8s
    EXPECT_EQ(kernel({.m = 1, .k = 768, .n = 2304}), GemmKernel::vector);
  }
  // Reports name the variant (and the splits of k).
  EXPECT_EQ(ops::matmul_kernel(tensor_device(), {1, 768}, {768, 2304}, {}, DType::q4),
            "gemv.q4 (8 splits)");
  EXPECT_EQ(ops::matmul_kernel(tensor_device(), {8192, 768}, {768, 2304},
                               {.precision = ops::Precision::mixed}, DType::f16),
            "matmul_wide_vec4.f16");
  EXPECT_EQ(ops::matmul_kernel(tensor_device(), {8192, 768}, {768, 2304},
                               {.precision = ops::Precision::mixed}),
            "matmul_tensor_vec4");
}

TEST(OpsMatmul, ProductsWithFewBlocksSplitK) {
  auto choice = [](ops::detail::Gemm g, const gpu::Limits& limits) {
    return ops::detail::gemm_kernel(g, limits);
  };
  // pp128's MLP down-projection, 128×3072 · 3072×768: 24 blocks of 64×64. The f32 kernel splits
  // until about 384 workgroups, 16 ways of 192 (a multiple of its 16-deep k tile); the tensor
  // cores' until about 264, 11 ways of 288 (32-deep tiles).
  auto f32 = choice({.m = 128, .k = 3072, .n = 768}, f32_device());
  EXPECT_EQ(f32.splits, 16u);
  EXPECT_EQ(f32.k_per_split, 192u);
  auto mixed =
      choice({.m = 128, .k = 3072, .n = 768, .precision = ops::Precision::mixed}, tensor_device());
  EXPECT_EQ(mixed.splits, 11u);
  EXPECT_EQ(mixed.k_per_split, 288u);
  // pp128's other products on the f32 kernel: QKV (72 blocks) 6 ways, MLP up (96) 4, and the
  // attention projection (24) 16 ways of 48, the shallowest split it takes.
  EXPECT_EQ(choice({.m = 128, .k = 768, .n = 2304}, f32_device()).splits, 6u);
  EXPECT_EQ(choice({.m = 128, .k = 768, .n = 3072}, f32_device()).splits, 4u);
  const auto projection = choice({.m = 128, .k = 768, .n = 768}, f32_device());
  EXPECT_EQ(projection.splits, 16u);
  EXPECT_EQ(projection.k_per_split, 48u);
  // The tensor cores' kernels split no shallower than 256: QKV 3 ways, not 4.
  EXPECT_EQ(
      choice({.m = 128, .k = 768, .n = 2304, .precision = ops::Precision::mixed}, tensor_device())
          .splits,
      3u);
}

// The 128×128 f32 kernels split k as gemm.cpp's model of their rounds finds fastest.
TEST(OpsMatmul, WideProductsSplitKIntoWholeRounds) {
  auto splits = [](ops::detail::Gemm g, const gpu::Limits& limits = f32_device()) {
    return ops::detail::gemm_kernel(g, limits).splits;
  };
  // pp1024's products: qkv 144 blocks in 3 splits of 256 (432 workgroups, two rounds: 2 splits
  // also take two, of 384), the projection's 48 in 5 of 160 (one round), the MLP's first 192
  // blocks whole (one round of 768), its second 48 in 5 of 616 (one round).
  EXPECT_EQ(splits({.m = 1024, .k = 768, .n = 2304}), 3u);
  EXPECT_EQ(splits({.m = 1024, .k = 768, .n = 768}), 5u);
  EXPECT_EQ(splits({.m = 1024, .k = 768, .n = 3072}), 1u);
  EXPECT_EQ(splits({.m = 1024, .k = 3072, .n = 768}), 5u);
  // Training on 8 × 1024: qkv's 1,152 blocks whole; the MLP's second product (384 blocks, two
  // rounds of 3072) in 2 splits (three rounds of 1536); the LM head's input gradient likewise.
  EXPECT_EQ(splits({.m = 8192, .k = 768, .n = 2304}), 1u);
  EXPECT_EQ(splits({.m = 8192, .k = 3072, .n = 768}), 2u);
  EXPECT_EQ(splits({.m = 8192, .k = 50257, .n = 768}), 2u);
  // A weight gradient 768×8192ᵀ · 8192×768: 36 blocks in 7 splits (252 workgroups, one round).
  const ops::detail::GemmChoice gradient =
      ops::detail::gemm_kernel({.m = 768, .k = 8192, .n = 768, .trans_a = true}, f32_device());
  EXPECT_EQ(gradient.splits, 7u);
  EXPECT_EQ(gradient.k_per_split, 1176u);
  // The model's time for the choice, for reports: pp1024's qkv in 3 splits, two rounds of 256
  // (2 · (256 · 0.255 + 13.6) µs) and a reduction of 4 · 1024 · 2304 floats (5 µs + 12.6 µs).
  const std::optional<double> qkv =
      ops::matmul_modelled_micros(f32_device(), {1024, 768}, {768, 2304});
  ASSERT_TRUE(qkv.has_value());
  EXPECT_NEAR(*qkv, 175.3, 0.1);
  EXPECT_FALSE(ops::matmul_modelled_micros(f32_device(), {128, 768}, {768, 2304}).has_value());
  // Partial sums that would not fit one storage binding rule a split out.
  gpu::Limits small = f32_device();
  small.max_storage_buffer_binding_size = 8u << 20;
  EXPECT_EQ(splits({.m = 8192, .k = 3072, .n = 768}, small), 1u);
}

}  // namespace
}  // namespace wgpt
