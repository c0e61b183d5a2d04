// The general ops read weights stored in f16, bf16 or q4 (matmul's b in every GEMM kernel, the
// token table of the embedding and the LM head) exactly as their CPU references read them: widened
// to f32; and b in column strips (Layout) as in rows.
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
using test::kVector;
using test::kWide;
using test::kWideVec4;

struct PackedCase {
  DType dtype;
  ops::detail::GemmKernel kernel;
  size_t batch, m, k, n;
  bool trans_b;
  Layout layout = Layout::rows;  // b's on the GPU
};

void PrintTo(const PackedCase& c, std::ostream* os) {
  *os << to_string(c.dtype) << ", kernel " << static_cast<int>(c.kernel) << ", batch " << c.batch
      << ", " << c.m << "×" << c.k << "·" << c.k << "×" << c.n << (c.trans_b ? " (bᵀ)" : "")
      << (c.layout == Layout::column_strips ? ", b in column strips" : "");
}

class PackedWeights : public ::testing::TestWithParam<PackedCase> {};

TEST_P(PackedWeights, EveryGemmKernelReadsThemAsTheReferenceDoes) {
  const PackedCase& c = GetParam();
  auto context = test::gpu_context();
  // A batched a against one weight matrix (broadcast), as the forward pass multiplies.
  ops::detail::Gemm geometry{.batch = c.batch,
                             .m = c.m,
                             .k = c.k,
                             .n = c.n,
                             .a_batch_stride = c.m * c.k,
                             .trans_b = c.trans_b,
                             .out_row_stride = c.n,
                             .b_dtype = c.dtype};
  ASSERT_EQ(ops::detail::gemm_kernel(geometry, context->limits()).kernel, c.kernel);
  Tensor a =
      Tensor::from_floats(test::random_floats(c.batch * c.m * c.k, 1), {c.batch * c.m * c.k});
  const Shape b_shape = c.layout == Layout::rows ? Shape{c.k * c.n} : Shape{c.k, c.n};
  Tensor b = Tensor::from_floats(test::random_floats(c.k * c.n, 2), b_shape, c.dtype);
  Tensor bias = Tensor::from_floats(test::random_floats(c.n, 3), {c.n});
  Tensor expected = Tensor::zeros({c.batch * c.m * c.n});
  ops::detail::gemm("test", geometry, a, b, {.bias = bias}, expected);
  Tensor actual = Tensor::empty_gpu(context, {c.batch * c.m * c.n});
  ops::detail::gemm("test", geometry, a.to_gpu(context), b.to_gpu(context, c.layout),
                    {.bias = bias.to_gpu(context)}, actual);
  EXPECT_TRUE(test::all_close(actual, expected, test::gemm_tolerance(c.k), 1e-5f));
}

std::vector<PackedCase> cases() {
  std::vector<PackedCase> all;
  for (DType dtype : {DType::f16, DType::bf16, DType::q4}) {
    // Odd sizes: a q4 row straddles blocks; f16 rows start mid-word.
    all.push_back({dtype, kVector, 1, 3, 77, 45, false});
    all.push_back({dtype, kVector, 1, 1, 130, 33, true});
    all.push_back({dtype, kTiled, 1, 20, 45, 37, false});
    all.push_back({dtype, kTiled, 1, 33, 70, 19, true});
  }
  // The 128×128 kernels are slow on a software adapter: one case per way they read B.
  all.push_back({DType::q4, kWide, 48, 128, 5, 129, false});
  all.push_back({DType::f16, kWideVec4, 4, 128, 8, 1024, false});
  all.push_back({DType::bf16, kWideVec4, 4, 128, 8, 1024, true});
  all.push_back({DType::q4, kWideVec4, 4, 128, 16, 1024, false});
  // b in column strips (the model's packed matrices on a GPU): widths of whole strips (q4: blocks).
  constexpr auto kStrips = Layout::column_strips;
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::q4}) {
    const size_t n = dtype == DType::q4 ? 128 : 40;
    all.push_back({dtype, kVector, 1, 3, 77, n, false, kStrips});
    all.push_back({dtype, kTiled, 1, 20, 45, n, false, kStrips});
  }
  all.push_back({DType::q4, kWide, 48, 128, 5, 192, false, kStrips});
  all.push_back({DType::f16, kWideVec4, 4, 128, 8, 1024, false, kStrips});
  all.push_back({DType::q4, kWideVec4, 4, 128, 16, 1024, false, kStrips});
  return all;
}

INSTANTIATE_TEST_SUITE_P(Kernels, PackedWeights, ::testing::ValuesIn(cases()));

TEST(PackedWeights, EmbeddingAndTheLmHeadOverAPackedTokenTable) {
  auto context = test::gpu_context();
  const size_t vocab = 300, width = 40, positions = 16;
  for (DType dtype : {DType::f16, DType::bf16, DType::q4}) {
    SCOPED_TRACE(to_string(dtype));
    Tensor table =
        Tensor::from_floats(test::random_floats(vocab * width, 1), {vocab, width}, dtype);
    Tensor wpe = Tensor::from_floats(test::random_floats(positions * width, 2), {positions, width});
    // Chunks start on a q4 block: 40 · 8 = 320 elements is 5 blocks.
    const std::vector<Tensor> cpu = {table.rows(0, 8), table.rows(8, 192), table.rows(200, 100)};
    std::vector<Tensor> gpu;
    for (const Tensor& chunk : cpu) gpu.push_back(chunk.to_gpu(context));
    Tensor ids = Tensor::from_u32({0, 299, 7, 8, 150, 200}, {6});
    // A GPU may fuse q4's code · scale + min into one rounding.
    EXPECT_TRUE(test::all_close(ops::embedding(ids.to_gpu(context), gpu, wpe.to_gpu(context), 3),
                                ops::embedding(ids, cpu, wpe, 3), 1e-6f, 1e-6f));
    for (size_t m : {1, 20}) {
      Tensor x = Tensor::from_floats(test::random_floats(m * width, 3), {m, width});
      EXPECT_TRUE(test::all_close(ops::matmul_transposed_chunks(x.to_gpu(context), gpu),
                                  ops::matmul_transposed_chunks(x, cpu),
                                  test::gemm_tolerance(width), 1e-5f))
          << "m = " << m;
    }
  }
}

TEST(PackedWeights, AMisalignedViewIsCopiedWordForWord) {
  // Rows 2.. of an f16 [10, 6] matrix start 24 bytes in: below any storage offset alignment.
  auto context = test::gpu_context();
  Tensor b = Tensor::from_floats(test::random_floats(60, 1), {10, 6}, DType::f16);
  Tensor a = Tensor::from_floats(test::random_floats(8 * 5, 2), {5, 8});
  Tensor gpu = ops::matmul(a.to_gpu(context), b.to_gpu(context).rows(2, 8));
  EXPECT_TRUE(test::all_close(gpu, ops::matmul(a, b.rows(2, 8)), test::gemm_tolerance(8), 1e-5f));
}

}  // namespace
}  // namespace wgpt
