#include "ops/gemm.h"

#include <algorithm>
#include <array>

#include "ops/op_support.h"

namespace wgpt::ops::detail {
namespace {

// Up to this many rows the matrix-vector kernel (one thread per output column, B streamed once
// per 4 rows) beats the 64×64 tiled GEMM, which would leave most of each tile empty.
constexpr size_t kGemvMaxRows = 16;
// gemv splits k until about this many workgroups are in flight, but never below kMinSplitDepth
// values of k per split (shallower slices cost more in the reduction than they save).
constexpr size_t kGemvTargetWorkgroups = 256;
constexpr size_t kMinSplitDepth = 32;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// The number of elements of a batched operand the geometry reads.
size_t extent(size_t batch, size_t batch_stride, size_t rows, size_t cols) {
  return (batch - 1) * batch_stride + rows * cols;
}

void validate(std::string_view op, const Gemm& g, const Tensor& a, const Tensor& b,
              const std::optional<Tensor>& bias, const Tensor& out) {
  require_dtype(op, "a", a, DType::f32);
  require_dtype(op, "b", b, DType::f32);
  if (g.batch == 0 || g.m == 0 || g.k == 0 || g.n == 0) {
    fail(op, "empty product: batch " + std::to_string(g.batch) + ", m " + std::to_string(g.m) +
                 ", k " + std::to_string(g.k) + ", n " + std::to_string(g.n));
  }
  if (a.numel() < extent(g.batch, g.a_batch_stride, g.m, g.k) ||
      b.numel() < extent(g.batch, g.b_batch_stride, g.k, g.n) ||
      out.numel() < g.batch * g.m * g.out_row_stride || g.out_col_offset + g.n > g.out_row_stride) {
    fail(op, "operands " + a.describe() + ", " + b.describe() + " → " + out.describe() +
                 " do not fit the product's geometry");
  }
  if (bias) {
    require_dtype(op, "bias", *bias, DType::f32);
    if (bias->shape() != Shape{g.n}) {
      fail(op, "bias must be [" + std::to_string(g.n) + "], got " + bias->describe());
    }
  }
}

void gemm_cpu(const Gemm& g, std::span<const float> a, std::span<const float> b, const float* bias,
              std::span<float> out) {
  for (size_t batch = 0; batch < g.batch; ++batch) {
    const float* a_batch = a.data() + batch * g.a_batch_stride;
    const float* b_batch = b.data() + batch * g.b_batch_stride;
    for (size_t row = 0; row < g.m; ++row) {
      for (size_t col = 0; col < g.n; ++col) {
        double sum = 0.0;
        for (size_t kk = 0; kk < g.k; ++kk) {
          float a_value = g.trans_a ? a_batch[kk * g.m + row] : a_batch[row * g.k + kk];
          float b_value = g.trans_b ? b_batch[col * g.k + kk] : b_batch[kk * g.n + col];
          sum += static_cast<double>(a_value) * b_value;
        }
        float value = static_cast<float>(sum) * g.scale + (bias ? bias[col] : 0.0f);
        out[(batch * g.m + row) * g.out_row_stride + g.out_col_offset + col] = value;
      }
    }
  }
}

// The 16 parameter words shared by matmul.wgsl, gemv.wgsl and gemv_reduce.wgsl.
std::array<uint32_t, 16> params(std::string_view op, const Gemm& g, bool has_bias, size_t nsplit,
                                size_t k_per_split) {
  return {word(op, g.m),
          word(op, g.k),
          word(op, g.n),
          word(op, g.batch),
          word(op, g.a_batch_stride),
          word(op, g.b_batch_stride),
          g.trans_a ? 1u : 0u,
          g.trans_b ? 1u : 0u,
          has_bias ? 1u : 0u,
          float_word(g.scale),
          word(op, g.out_col_offset),
          word(op, g.out_row_stride),
          word(op, nsplit),
          word(op, k_per_split),
          0u,
          0u};
}

void require_grid(std::string_view op, const gpu::Context& context, gpu::Workgroups grid) {
  uint32_t limit = context.limits().max_workgroups_per_dimension;
  if (grid.x > limit || grid.y > limit || grid.z > limit) {
    fail(op, "product too large for one dispatch (" + std::to_string(grid.x) + " × " +
                 std::to_string(grid.y) + " × " + std::to_string(grid.z) + " workgroups)");
  }
}

void gemm_tiled(std::string_view op, const Gemm& g, const Tensor& a, const Tensor& b,
                const std::optional<Tensor>& bias, const Tensor& out) {
  auto& context = *a.context();
  gpu::Workgroups grid{word(op, ceil_div(g.n, 64)), word(op, ceil_div(g.m, 64)), word(op, g.batch)};
  require_grid(op, context, grid);
  context.dispatch("matmul", params(op, g, bias.has_value(), 1, g.k),
                   Bindings(op, {a, b, bias.value_or(a)}, {out}).ranges(), grid);
}

void gemm_vector(std::string_view op, const Gemm& g, const Tensor& a, const Tensor& b,
                 const std::optional<Tensor>& bias, const Tensor& out) {
  auto& context = *a.context();
  size_t row_blocks = ceil_div(g.m, 4);
  size_t blocks = ceil_div(g.n, 64) * row_blocks * g.batch;
  size_t max_splits = std::max<size_t>(1, g.k / kMinSplitDepth);
  size_t wanted = std::clamp<size_t>(ceil_div(kGemvTargetWorkgroups, blocks), 1, max_splits);
  size_t k_per_split = ceil_div(g.k, wanted);
  size_t nsplit = ceil_div(g.k, k_per_split);  // no empty trailing split
  gpu::Workgroups grid{word(op, ceil_div(g.n, 64)), word(op, nsplit * row_blocks),
                       word(op, g.batch)};
  require_grid(op, context, grid);
  auto words = params(op, g, bias.has_value(), nsplit, k_per_split);
  if (nsplit == 1) {
    context.dispatch("gemv", words, Bindings(op, {a, b, bias.value_or(a)}, {out}).ranges(), grid);
    return;
  }
  Tensor partials = Tensor::empty_gpu(a.context(), {nsplit, g.batch, g.m, g.n});
  context.dispatch("gemv", words, Bindings(op, {a, b, a}, {partials}).ranges(), grid);
  context.dispatch("gemv_reduce", words,
                   Bindings(op, {partials, bias.value_or(partials)}, {out}).ranges(),
                   linear_grid(op, context, g.batch * g.m * g.n));
}

}  // namespace

void gemm(std::string_view op, const Gemm& geometry, const Tensor& a, const Tensor& b,
          const std::optional<Tensor>& bias, const Tensor& out) {
  validate(op, geometry, a, b, bias, out);
  const auto& context =
      bias ? common_context(op, {&a, &b, &*bias, &out}) : common_context(op, {&a, &b, &out});
  if (!context) {
    gemm_cpu(geometry, a.floats(), b.floats(), bias ? bias->floats().data() : nullptr,
             out.floats());
  } else if (geometry.m <= kGemvMaxRows) {
    gemm_vector(op, geometry, a, b, bias, out);
  } else {
    gemm_tiled(op, geometry, a, b, bias, out);
  }
}

}  // namespace wgpt::ops::detail
