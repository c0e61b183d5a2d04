#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <ostream>

#include "gemm_test_support.h"
#include "ops/gemm.h"
#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

using test::kTiled;

struct Case {
  size_t a_batch, b_batch;  // 0: unbatched
  size_t m, k, n;
  bool transpose_a, transpose_b, bias;
  float scale;
};

Shape operand_shape(size_t batch, size_t rows, size_t cols) {
  return batch ? Shape{batch, rows, cols} : Shape{rows, cols};
}

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
  EXPECT_TRUE(test::all_close(actual, expected, test::gemm_tolerance(c.k), 1e-5f));
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

// The 128×128 kernels, through the general geometry: batch strides (padded past m·k or k·n like a
// KV cache's heads, or 0 to broadcast), bias, scale and a column block of a wider output. Each
// shape is batched until it has enough 128×128 blocks to take one of them, and says which.
struct WideCase {
  ops::detail::GemmKernel kernel;
  size_t batch, m, k, n;
  bool trans_a, trans_b, bias;
  float scale;
  size_t a_stride, b_stride;  // elements between batches; 0 broadcasts
  size_t out_col_offset, out_row_stride;
};

void PrintTo(const WideCase& c, std::ostream* os) {
  *os << (c.kernel == ops::detail::GemmKernel::wide_vec4 ? "vec4" : "scalar") << ", batch "
      << c.batch << ", m " << c.m << ", k " << c.k << ", n " << c.n
      << (c.trans_a ? ", trans_a" : "") << (c.trans_b ? ", trans_b" : "")
      << (c.bias ? ", bias" : "") << ", scale " << c.scale << ", a stride " << c.a_stride
      << ", b stride " << c.b_stride << ", columns from " << c.out_col_offset << " of "
      << c.out_row_stride;
}

class GpuMatmulWide : public ::testing::TestWithParam<WideCase> {};

TEST_P(GpuMatmulWide, MatchesCpu) {
  const WideCase& c = GetParam();
  auto context = test::gpu_context();
  ops::detail::Gemm geometry{.batch = c.batch,
                             .m = c.m,
                             .k = c.k,
                             .n = c.n,
                             .a_batch_stride = c.a_stride,
                             .b_batch_stride = c.b_stride,
                             .trans_a = c.trans_a,
                             .trans_b = c.trans_b,
                             .scale = c.scale,
                             .out_col_offset = c.out_col_offset,
                             .out_row_stride = c.out_row_stride};
  ASSERT_EQ(ops::detail::gemm_kernel(geometry, context->limits()).kernel, c.kernel);
  size_t a_size = (c.batch - 1) * c.a_stride + c.m * c.k;
  size_t b_size = (c.batch - 1) * c.b_stride + c.k * c.n;
  size_t out_size = c.batch * c.m * c.out_row_stride;
  Tensor a = Tensor::from_floats(test::random_floats(a_size, 1), {a_size});
  Tensor b = Tensor::from_floats(test::random_floats(b_size, 2), {b_size});
  std::optional<Tensor> bias;
  if (c.bias) bias = Tensor::from_floats(test::random_floats(c.n, 3), {c.n});
  // Columns outside the block keep these values: the kernel must not write them.
  Tensor expected = Tensor::from_floats(test::random_floats(out_size, 4), {out_size});
  Tensor actual = expected.to_gpu(context);
  ops::detail::gemm("test", geometry, a, b, {.bias = bias}, expected);
  std::optional<Tensor> gpu_bias;
  if (bias) gpu_bias = bias->to_gpu(context);
  ops::detail::gemm("test", geometry, a.to_gpu(context), b.to_gpu(context), {.bias = gpu_bias},
                    actual);
  EXPECT_TRUE(test::all_close(actual, expected, test::gemm_tolerance(c.k), 1e-5f));
}

constexpr auto kScalar = ops::detail::GemmKernel::wide;
constexpr auto kVec4 = ops::detail::GemmKernel::wide_vec4;

INSTANTIATE_TEST_SUITE_P(
    Wide, GpuMatmulWide,
    ::testing::Values(
        // Ragged in m, n and k (67 and 68 are not multiples of the k tile), every layout.
        WideCase{kScalar, 22, 257, 67, 130, false, false, true, 0.5f, 257 * 67, 67 * 130, 0, 130},
        WideCase{kScalar, 22, 257, 67, 130, true, false, false, 1.0f, 257 * 67, 67 * 130, 0, 130},
        WideCase{kScalar, 22, 257, 67, 130, false, true, true, 1.0f, 257 * 67, 67 * 130, 0, 130},
        WideCase{kScalar, 22, 257, 67, 130, true, true, true, 2.0f, 257 * 67, 67 * 130, 0, 130},
        WideCase{kVec4, 22, 257, 68, 132, false, false, true, 0.5f, 257 * 68, 68 * 132, 0, 132},
        WideCase{kVec4, 22, 260, 67, 132, true, false, false, 1.0f, 260 * 67, 67 * 132, 0, 132},
        WideCase{kVec4, 22, 257, 68, 130, false, true, true, 1.0f, 257 * 68, 68 * 130, 0, 130},
        WideCase{kVec4, 22, 260, 68, 130, true, true, true, 2.0f, 260 * 68, 68 * 130, 0, 130},
        // Rows of whole vec4s, but A's batches one float apart from a vec4 boundary.
        WideCase{kScalar, 22, 257, 68, 132, false, false, false, 1.0f, 257 * 68 + 1, 68 * 132, 0,
                 132},
        // Exactly one block and one k tile per batch; B broadcast.
        WideCase{kVec4, 128, 128, 8, 128, false, false, false, 1.0f, 128 * 8, 0, 0, 128},
        // k shorter than a k tile; A broadcast, B's batches padded apart.
        WideCase{kScalar, 64, 200, 5, 150, true, false, true, 1.0f, 0, 5 * 150 + 11, 0, 150},
        WideCase{kVec4, 64, 200, 4, 152, true, false, true, 1.0f, 0, 4 * 152 + 12, 0, 152},
        // Three large batches written as columns 77..77+n of rows 1000 wide, A padded apart.
        WideCase{kScalar, 3, 1000, 45, 700, false, true, true, 0.25f, 1000 * 45 + 3, 45 * 700, 77,
                 1000},
        WideCase{kVec4, 3, 1000, 48, 700, false, true, true, 0.25f, 1000 * 48 + 4, 48 * 700, 77,
                 1000},
        // Many small batches, as attention's per-head products.
        WideCase{kScalar, 40, 140, 33, 190, true, true, false, 0.125f, 140 * 33, 33 * 190, 0,
                 190}));

// The epilogue (bias, GELU, residual) in every kernel, with and without split-k (whose reduction
// pass applies it instead), each case asserting the kernel and the number of splits it takes.
struct EpilogueCase {
  ops::detail::GemmKernel kernel;
  size_t splits;
  size_t batch, m, k, n;
};

void PrintTo(const EpilogueCase& c, std::ostream* os) {
  *os << "batch " << c.batch << ", m " << c.m << ", k " << c.k << ", n " << c.n << ", " << c.splits
      << " split(s)";
}

class GpuMatmulEpilogue : public ::testing::TestWithParam<EpilogueCase> {};

TEST_P(GpuMatmulEpilogue, MatchesCpu) {
  const EpilogueCase& c = GetParam();
  auto context = test::gpu_context();
  ops::detail::Gemm geometry{.batch = c.batch,
                             .m = c.m,
                             .k = c.k,
                             .n = c.n,
                             .a_batch_stride = c.m * c.k,
                             .b_batch_stride = c.k * c.n,
                             .scale = 0.5f,
                             .out_row_stride = c.n};
  const ops::detail::GemmChoice choice = ops::detail::gemm_kernel(geometry, context->limits());
  ASSERT_EQ(choice.kernel, c.kernel);
  ASSERT_EQ(choice.splits, c.splits);
  const size_t outputs = c.batch * c.m * c.n;
  Tensor a =
      Tensor::from_floats(test::random_floats(c.batch * c.m * c.k, 1), {c.batch * c.m * c.k});
  Tensor b =
      Tensor::from_floats(test::random_floats(c.batch * c.k * c.n, 2), {c.batch * c.k * c.n});
  Tensor bias = Tensor::from_floats(test::random_floats(c.n, 3), {c.n});
  Tensor residual = Tensor::from_floats(test::random_floats(outputs, 4), {outputs});
  for (bool gelu : {false, true}) {
    Tensor expected = Tensor::zeros({outputs});
    ops::detail::gemm("test", geometry, a, b, {.bias = bias, .gelu = gelu, .residual = residual},
                      expected);
    Tensor actual = Tensor::empty_gpu(context, {outputs});
    ops::detail::gemm(
        "test", geometry, a.to_gpu(context), b.to_gpu(context),
        {.bias = bias.to_gpu(context), .gelu = gelu, .residual = residual.to_gpu(context)}, actual);
    EXPECT_TRUE(test::all_close(actual, expected, test::gemm_tolerance(c.k), 1e-5f))
        << "gelu " << gelu;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Epilogue, GpuMatmulEpilogue,
    ::testing::Values(EpilogueCase{ops::detail::GemmKernel::vector, 1, 1, 3, 20, 50},
                      EpilogueCase{ops::detail::GemmKernel::vector, 21, 1, 3, 700, 50},
                      EpilogueCase{ops::detail::GemmKernel::tiled, 1, 2, 70, 40, 90},
                      EpilogueCase{ops::detail::GemmKernel::tiled, 11, 1, 70, 700, 90},
                      EpilogueCase{ops::detail::GemmKernel::wide_vec4, 7, 32, 100, 520, 100}));

// Triangular products (an attention's causal scores and probabilities) in each f32 tiled kernel,
// with and without split-k, A random on both sides of the diagonal (its zeros by the triangle must
// not be read), sizes not multiples of the blocks.
struct TriangleCase {
  ops::detail::GemmKernel kernel;
  ops::Triangle triangle;
  size_t batch, t, other;  // other: k for a triangular output, n for a triangular A
  bool trans_a, trans_b;
  size_t k_splits;
};

void PrintTo(const TriangleCase& c, std::ostream* os) {
  const char* names[] = {"none", "lower output", "lower a", "upper a"};
  *os << names[static_cast<int>(c.triangle)] << ", batch " << c.batch << ", t " << c.t << ", "
      << c.other << (c.trans_a ? ", trans_a" : "") << (c.trans_b ? ", trans_b" : "") << ", "
      << c.k_splits << " splits asked";
}

class GpuMatmulTriangle : public ::testing::TestWithParam<TriangleCase> {};

TEST_P(GpuMatmulTriangle, MatchesCpu) {
  const TriangleCase& c = GetParam();
  auto context = test::gpu_context();
  const bool output = c.triangle == ops::Triangle::lower_output;
  const size_t m = c.t, k = output ? c.other : c.t, n = output ? c.t : c.other;
  const ops::detail::Gemm geometry{.batch = c.batch,
                                   .m = m,
                                   .k = k,
                                   .n = n,
                                   .a_batch_stride = m * k,
                                   .b_batch_stride = k * n,
                                   .trans_a = c.trans_a,
                                   .trans_b = c.trans_b,
                                   .scale = 0.5f,
                                   .out_row_stride = n,
                                   .k_splits = c.k_splits,
                                   .triangle = c.triangle};
  const ops::detail::GemmChoice choice = ops::detail::gemm_kernel(geometry, context->limits());
  ASSERT_EQ(choice.kernel, c.kernel);
  if (c.k_splits > 1) {
    ASSERT_GT(choice.splits, 1u);
  }
  const size_t a_size = c.batch * m * k, b_size = c.batch * k * n, out_size = c.batch * m * n;
  const Tensor a = Tensor::from_floats(test::random_floats(a_size, 1), {a_size});
  const Tensor b = Tensor::from_floats(test::random_floats(b_size, 2), {b_size});
  Tensor expected = Tensor::zeros({out_size});
  ops::detail::gemm("test", geometry, a, b, {}, expected);
  // Filled first, so that an entry the kernel leaves unwritten shows.
  Tensor actual = Tensor::from_floats(test::random_floats(out_size, 3), {out_size}).to_gpu(context);
  ops::detail::gemm("test", geometry, a.to_gpu(context), b.to_gpu(context), {}, actual);
  EXPECT_TRUE(test::all_close(actual, expected, test::gemm_tolerance(k), 1e-5f));
}

constexpr auto kLowerOutput = ops::Triangle::lower_output;
constexpr auto kLowerA = ops::Triangle::lower_a;
constexpr auto kUpperA = ops::Triangle::upper_a;

INSTANTIATE_TEST_SUITE_P(
    Triangle, GpuMatmulTriangle,
    ::testing::Values(
        // 64×64 blocks: few rows (never gemv), and 200 rows (several blocks), split or not.
        TriangleCase{kTiled, kLowerA, 1, 10, 20, false, false, 0},
        TriangleCase{kTiled, kLowerOutput, 2, 200, 24, false, true, 0},
        TriangleCase{kTiled, kLowerOutput, 2, 200, 24, true, false, 3},
        TriangleCase{kTiled, kLowerA, 2, 200, 24, false, false, 0},
        TriangleCase{kTiled, kLowerA, 2, 200, 24, true, true, 3},
        TriangleCase{kTiled, kUpperA, 2, 200, 24, true, false, 0},
        TriangleCase{kTiled, kUpperA, 2, 200, 24, false, false, 3},
        // 128×128 blocks read as vec4s (t, k and n multiples of 4), as attention's products.
        TriangleCase{kVec4, kLowerOutput, 12, 260, 36, false, true, 0},
        TriangleCase{kVec4, kLowerOutput, 12, 260, 36, false, true, 2},
        TriangleCase{kVec4, kLowerA, 12, 260, 68, false, false, 0},
        TriangleCase{kVec4, kLowerA, 12, 260, 68, true, false, 3},
        TriangleCase{kVec4, kUpperA, 12, 260, 68, true, false, 0},
        TriangleCase{kVec4, kUpperA, 12, 260, 68, false, true, 3},
        // 128×128 blocks read a float at a time.
        TriangleCase{kScalar, kLowerOutput, 11, 257, 33, false, true, 0},
        TriangleCase{kScalar, kLowerA, 16, 257, 130, false, false, 2},
        TriangleCase{kScalar, kUpperA, 16, 257, 130, true, false, 0}));

// k cut into as many slices as asked (wgpt bench --product-splits), by the tiled and the
// matrix-vector kernels, still gives the CPU's product.
TEST(GpuMatmulSplits, ForcedSplitsMatchCpu) {
  auto context = test::gpu_context();
  for (size_t m : {70, 2}) {
    Tensor a = Tensor::from_floats(test::random_floats(m * 700, 1), {m, 700});
    Tensor b = Tensor::from_floats(test::random_floats(700 * 90, 2), {700, 90});
    Tensor bias = Tensor::from_floats(test::random_floats(90, 3), {90});
    const Tensor expected = ops::matmul(a, b, {.bias = bias});
    for (size_t splits : {1, 3, 7}) {
      const ops::MatmulOptions options{.bias = bias.to_gpu(context), .k_splits = splits};
      const std::string kernel =
          ops::matmul_kernel(context->limits(), a.shape(), b.shape(), options);
      const std::string named = std::to_string(splits) + " splits)";
      EXPECT_EQ(kernel.find(named) != std::string::npos, splits > 1) << kernel;
      const Tensor actual = ops::matmul(a.to_gpu(context), b.to_gpu(context), options);
      EXPECT_TRUE(test::all_close(actual, expected, test::gemm_tolerance(700), 1e-5f))
          << m << " rows, " << splits << " splits";
    }
  }
}

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
    EXPECT_TRUE(test::all_close(gpu, ops::matmul(x, table, {.transpose_b = true}),
                                test::gemm_tolerance(k), 1e-5f))
        << "m = " << m;
  }
}

TEST(GpuMatmulRowInvariant, ARowIsTheSameAloneAndAmongOthers) {
  // Row 2 of a 37-row product with bias and GELU, and of the chunked LM head, is bit for bit the
  // same row computed alone; and both match the CPU.
  auto context = test::gpu_context();
  const size_t m = 37, k = 300, n = 131;
  Tensor x = Tensor::from_floats(test::random_floats(m * k, 3), {m, k});
  Tensor w = Tensor::from_floats(test::random_floats(k * n, 4), {k, n});
  Tensor bias = Tensor::from_floats(test::random_floats(n, 5), {n});
  const ops::MatmulOptions options{.bias = bias, .gelu = true, .row_invariant = true};
  ops::MatmulOptions gpu_options = options;
  gpu_options.bias = bias.to_gpu(context);
  Tensor all = ops::matmul(x.to_gpu(context), w.to_gpu(context), gpu_options);
  Tensor one = ops::matmul(x.rows(2, 1).to_gpu(context), w.to_gpu(context), gpu_options);
  EXPECT_TRUE(test::all_close(one, all.rows(2, 1), 0.0f, 0.0f));
  EXPECT_TRUE(test::all_close(all, ops::matmul(x, w, options), test::gemm_tolerance(k), 1e-5f));
  Tensor table = Tensor::from_floats(test::random_floats(n * k, 6), {n, k});
  const std::vector<Tensor> chunks = {table.rows(0, 100).to_gpu(context),
                                      table.rows(100, 31).to_gpu(context)};
  Tensor head = ops::matmul_transposed_chunks(x.to_gpu(context), chunks, 1.0f, true);
  Tensor head_one = ops::matmul_transposed_chunks(x.rows(2, 1).to_gpu(context), chunks, 1.0f, true);
  EXPECT_TRUE(test::all_close(head_one, head.rows(2, 1), 0.0f, 0.0f));
}

TEST(GpuMatmulViews, MisalignedViewIsCopiedBeforeBinding) {
  // Rows 1..18 of a [19, 3] matrix start 12 bytes in: below any storage offset alignment.
  auto context = test::gpu_context();
  Tensor all = Tensor::from_floats(test::random_floats(19 * 3, 1), {19, 3});
  Tensor b = Tensor::from_floats(test::random_floats(3 * 5, 2), {3, 5});
  Tensor gpu = ops::matmul(all.to_gpu(context).rows(1, 18), b.to_gpu(context));
  EXPECT_TRUE(
      test::all_close(gpu, ops::matmul(all.rows(1, 18), b), test::gemm_tolerance(3), 1e-5f));
}

}  // namespace
}  // namespace wgpt
