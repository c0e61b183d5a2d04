#include <gtest/gtest.h>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

struct RowsCols {
  size_t rows, cols;
};

class GpuLayerNorm : public ::testing::TestWithParam<RowsCols> {};

TEST_P(GpuLayerNorm, MatchesCpu) {
  auto [rows, cols] = GetParam();
  auto context = test::gpu_context();
  // An offset mean makes the two-pass variance matter. Rows are wide enough that none is nearly
  // constant: f32 rounding of x − mean is amplified by 1/std, and that is conditioning, not error.
  Tensor x = Tensor::from_floats(test::random_floats(rows * cols, 1, 2.0f, 4.0f), {rows, cols});
  Tensor gamma = Tensor::from_floats(test::random_floats(cols, 2, 0.5f, 1.5f), {cols});
  Tensor beta = Tensor::from_floats(test::random_floats(cols, 3), {cols});
  Tensor gpu = ops::layernorm(x.to_gpu(context), gamma.to_gpu(context), beta.to_gpu(context));
  EXPECT_TRUE(test::all_close(gpu, ops::layernorm(x, gamma, beta), 1e-5f, 1e-5f));
}

// One column (output = beta), sizes around the 256-thread workgroup, GPT-2's width, and more rows
// than one grid dimension holds.
INSTANTIATE_TEST_SUITE_P(Shapes, GpuLayerNorm,
                         ::testing::Values(RowsCols{1, 1}, RowsCols{3, 255}, RowsCols{2, 257},
                                           RowsCols{5, 768}, RowsCols{70000, 16}));

}  // namespace
}  // namespace wgpt
