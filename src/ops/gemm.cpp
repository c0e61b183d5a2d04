#include "ops/gemm.h"

#include <algorithm>
#include <array>

#include "ops/kernel_call.h"
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
// The 128×128 kernels (matmul_wide*.wgsl) compute more per workgroup-memory read and per
// instruction than the 64×64 one, but make a quarter as many workgroups: a product takes them from
// this many 128×128 blocks on. The vec4 kernel wins even with a quarter of an H200's 132
// multiprocessors busy; the scalar one only once the GPU is nearly full. Measured on an H200
// (Vulkan), TFLOP/s of the 128×128 kernel against the 64×64 one: vec4, 8192×768 · 768×2304 31.8
// against 21.1, 768×8192ᵀ · 8192×2304 (108 blocks) 23.2 against 13.8, 768×8192ᵀ · 8192×768 (36
// blocks) 7.8 against 5.5, 512×768 · 768×2304 (72 blocks) 13.4 against 11.2, 512×768 · 768×768
// (24 blocks) 4.1 against 5.1; scalar, 72 blocks 10.6 against 11.2, 108 blocks 17.7 against 13.8.
constexpr size_t kWideVec4MinBlocks = 32;
constexpr size_t kWideMinBlocks = 96;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// The number of elements of a batched operand the geometry reads.
size_t extent(size_t batch, size_t batch_stride, size_t rows, size_t cols) {
  return (batch - 1) * batch_stride + rows * cols;
}

void validate(std::string_view op, const Gemm& g, const Tensor& a, const Tensor& b,
              const std::optional<Tensor>& bias, const Tensor& out) {
  require_dtype(op, "a", a, DType::f32);
  if (b.dtype() != DType::f32 && !is_packed(b.dtype())) {
    fail(op, "b must be f32, f16, bf16 or q4, got " + b.describe());
  }
  if (b.dtype() == DType::q4 && g.batch > 1 && g.b_batch_stride % kQ4Block != 0) {
    fail(op, "a batched q4 b needs batches that start on a block of " + std::to_string(kQ4Block));
  }
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

// The parameter block every GEMM kernel shares (lib/gemm_params.wgsl), as `Kernel` declares it.
template <class Kernel>
typename Kernel::Params params(std::string_view op, const Gemm& g, bool has_bias, size_t nsplit,
                               size_t k_per_split) {
  return {.m = word(op, g.m),
          .k = word(op, g.k),
          .n = word(op, g.n),
          .batch = word(op, g.batch),
          .a_batch_stride = word(op, g.a_batch_stride),
          .b_batch_stride = word(op, g.b_batch_stride),
          .trans_a = g.trans_a ? 1u : 0u,
          .trans_b = g.trans_b ? 1u : 0u,
          .has_bias = has_bias ? 1u : 0u,
          .scale = g.scale,
          .out_col_offset = word(op, g.out_col_offset),
          .out_row_stride = word(op, g.out_row_stride),
          .nsplit = word(op, nsplit),
          .k_per_split = word(op, k_per_split)};
}

void require_grid(std::string_view op, const gpu::Context& context, gpu::Workgroups grid) {
  uint32_t limit = context.limits().max_workgroups_per_dimension;
  if (grid.x > limit || grid.y > limit || grid.z > limit) {
    fail(op, "product too large for one dispatch (" + std::to_string(grid.x) + " × " +
                 std::to_string(grid.y) + " × " + std::to_string(grid.z) + " workgroups)");
  }
}

// The square block of C a workgroup of the tiled kernels computes.
constexpr size_t kTile = 64;       // matmul.wgsl
constexpr size_t kWideTile = 128;  // matmul_wide.wgsl, matmul_wide_vec4.wgsl

// Whether matmul_wide_vec4.wgsl can read both operands as vec4s: every contiguous row (k, or m
// for a transposed A; n, or k for a transposed B) and both batch strides are multiples of 4
// floats (8 elements for a packed B, whose words hold 8), and bindings start 16-byte aligned (they
// start at multiples of the device's storage offset alignment).
bool vec4_operands(const Gemm& g, size_t storage_offset_alignment) {
  size_t a_row = g.trans_a ? g.m : g.k;
  size_t b_row = g.trans_b ? g.k : g.n;
  size_t b_multiple = is_packed(g.b_dtype) ? 8 : 4;
  return a_row % 4 == 0 && b_row % b_multiple == 0 && g.a_batch_stride % 4 == 0 &&
         g.b_batch_stride % b_multiple == 0 && storage_offset_alignment % 16 == 0;
}

template <class Kernel>
void gemm_tiled(std::string_view op, size_t tile, const Gemm& g, const Tensor& a, const Tensor& b,
                const std::optional<Tensor>& bias, const Tensor& out) {
  auto& context = *a.context();
  gpu::Workgroups grid{word(op, ceil_div(g.n, tile)), word(op, ceil_div(g.m, tile)),
                       word(op, g.batch)};
  require_grid(op, context, grid);
  Bindings bound(op, {a, b, bias.value_or(a)}, {out});
  const auto& r = bound.ranges();
  dispatch<Kernel>(context, {.weights = b.dtype()}, params<Kernel>(op, g, bias.has_value(), 1, g.k),
                   {r[0], r[1], r[2], r[3]}, grid);
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
  const auto words = params<kernels::gemv>(op, g, bias.has_value(), nsplit, k_per_split);
  const Variant variant{.weights = b.dtype()};
  if (nsplit == 1) {
    Bindings bound(op, {a, b, bias.value_or(a)}, {out});
    const auto& r = bound.ranges();
    dispatch<kernels::gemv>(context, variant, words, {r[0], r[1], r[2], r[3]}, grid);
    return;
  }
  Tensor partials = Tensor::empty_gpu(a.context(), {nsplit, g.batch, g.m, g.n});
  {
    Bindings bound(op, {a, b, a}, {partials});
    const auto& r = bound.ranges();
    dispatch<kernels::gemv>(context, variant, words, {r[0], r[1], r[2], r[3]}, grid);
  }
  Bindings bound(op, {partials, bias.value_or(partials)}, {out});
  const auto& r = bound.ranges();
  dispatch<kernels::gemv_reduce>(
      context, {}, params<kernels::gemv_reduce>(op, g, bias.has_value(), nsplit, k_per_split),
      {r[0], r[1], r[2]}, linear_grid(op, context, g.batch * g.m * g.n));
}

}  // namespace

GemmKernel gemm_kernel(const Gemm& g, size_t storage_offset_alignment) {
  if (g.m <= kGemvMaxRows) return GemmKernel::vector;
  size_t blocks = ceil_div(g.m, kWideTile) * ceil_div(g.n, kWideTile) * g.batch;
  if (vec4_operands(g, storage_offset_alignment)) {
    return blocks >= kWideVec4MinBlocks ? GemmKernel::wide_vec4 : GemmKernel::tiled;
  }
  return blocks >= kWideMinBlocks ? GemmKernel::wide : GemmKernel::tiled;
}

void gemm(std::string_view op, const Gemm& product, const Tensor& a, const Tensor& b,
          const std::optional<Tensor>& bias, const Tensor& out) {
  Gemm geometry = product;
  geometry.b_dtype = b.dtype();
  validate(op, geometry, a, b, bias, out);
  const auto& context =
      bias ? common_context(op, {&a, &b, &*bias, &out}) : common_context(op, {&a, &b, &out});
  if (!context) {
    // The reference reads a packed B widened to f32, as the kernels do.
    const std::vector<float> widened = is_packed(b.dtype()) ? b.to_floats() : std::vector<float>{};
    const std::span<const float> b_values =
        is_packed(b.dtype()) ? std::span<const float>(widened) : std::span<const float>(b.floats());
    gemm_cpu(geometry, a.floats(), b_values, bias ? bias->floats().data() : nullptr, out.floats());
    return;
  }
  switch (gemm_kernel(geometry, context->limits().min_storage_buffer_offset_alignment)) {
    case GemmKernel::vector:
      gemm_vector(op, geometry, a, b, bias, out);
      break;
    case GemmKernel::tiled:
      gemm_tiled<kernels::matmul>(op, kTile, geometry, a, b, bias, out);
      break;
    case GemmKernel::wide:
      gemm_tiled<kernels::matmul_wide>(op, kWideTile, geometry, a, b, bias, out);
      break;
    case GemmKernel::wide_vec4:
      gemm_tiled<kernels::matmul_wide_vec4>(op, kWideTile, geometry, a, b, bias, out);
      break;
  }
}

}  // namespace wgpt::ops::detail
