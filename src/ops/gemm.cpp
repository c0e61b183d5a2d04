// The batched product: its checks, and its GPU kernels run as gemm_kernel chooses (the choice:
// gemm_choice.cpp; the CPU reference: gemm_cpu.cpp).
#include "ops/gemm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ops/kernel_call.h"
#include "ops/op_support.h"

namespace wgpt::ops::detail {
namespace {

// The number of elements of a batched operand the geometry reads.
size_t extent(size_t batch, size_t batch_stride, size_t rows, size_t cols) {
  return (batch - 1) * batch_stride + rows * cols;
}

void validate(std::string_view op, const Gemm& g, const Tensor& a, const Tensor& b,
              const GemmEpilogue& epilogue, const Tensor& out) {
  require_dtype(op, "a", a, DType::f32);
  if (b.dtype() != DType::f32 && !is_packed(b.dtype())) {
    fail(op, "b must be f32, f16, bf16 or q4, got " + b.describe());
  }
  if (b.layout() == Layout::column_strips &&
      (g.trans_b || (g.batch > 1 && g.b_batch_stride != 0) || b.shape() != Shape{g.k, g.n})) {
    fail(op,
         "b in column strips must be the whole [k, n] matrix, neither transposed nor batched, "
         "got " +
             b.describe() + " for k " + std::to_string(g.k) + ", n " + std::to_string(g.n));
  }
  if (b.dtype() == DType::q4 && g.batch > 1 && g.b_batch_stride % kQ4Block != 0) {
    fail(op, "a batched q4 b needs batches that start on a block of " + std::to_string(kQ4Block));
  }
  if (g.batch == 0 || g.m == 0 || g.k == 0 || g.n == 0) {
    fail(op, "empty product: batch " + std::to_string(g.batch) + ", m " + std::to_string(g.m) +
                 ", k " + std::to_string(g.k) + ", n " + std::to_string(g.n));
  }
  const size_t out_extent = g.batch * g.m * g.out_row_stride;
  if (a.numel() < extent(g.batch, g.a_batch_stride, g.m, g.k) ||
      b.numel() < extent(g.batch, g.b_batch_stride, g.k, g.n) || out.numel() < out_extent ||
      g.out_col_offset + g.n > g.out_row_stride) {
    fail(op, "operands " + a.describe() + ", " + b.describe() + " → " + out.describe() +
                 " do not fit the product's geometry");
  }
  if (g.triangle != Triangle::none) {
    if (epilogue.bias || epilogue.gelu || epilogue.residual) {
      fail(op, "a triangular product takes no bias, GELU or residual");
    }
    const bool square = g.triangle == Triangle::lower_output ? g.m == g.n : g.m == g.k;
    if (!square) {
      fail(op,
           std::string("a product triangular in ") +
               (g.triangle == Triangle::lower_output ? "its output needs m = n" : "a needs m = k") +
               ", got m " + std::to_string(g.m) + ", k " + std::to_string(g.k) + ", n " +
               std::to_string(g.n));
    }
  }
  if (epilogue.bias) {
    require_dtype(op, "bias", *epilogue.bias, DType::f32);
    if (epilogue.bias->shape() != Shape{g.n}) {
      fail(op, "bias must be [" + std::to_string(g.n) + "], got " + epilogue.bias->describe());
    }
  }
  if (epilogue.residual) {
    require_dtype(op, "residual", *epilogue.residual, DType::f32);
    if (epilogue.residual->numel() != out.numel()) {
      fail(op, "residual " + epilogue.residual->describe() + " must have the output's shape " +
                   out.describe());
    }
  }
}

// lib/gemm_epilogue.wgsl's bits.
constexpr uint32_t kEpilogueGelu = 1;
constexpr uint32_t kEpilogueResidual = 2;

// lib/gemm_triangle.wgsl's codes.
uint32_t triangle_code(Triangle triangle) {
  switch (triangle) {
    case Triangle::none:
      return 0;
    case Triangle::lower_output:
      return 1;
    case Triangle::lower_a:
      return 2;
    case Triangle::upper_a:
      return 3;
  }
  return 0;
}

// The f16 bits of an operand scale: a power of two that f16 represents as a normal number.
uint32_t half_bits(std::string_view op, float power_of_two) {
  int exponent = 0;
  const float mantissa = std::frexp(power_of_two, &exponent);  // power_of_two = 0.5 · 2^exponent
  if (mantissa != 0.5f || exponent - 1 < -14 || exponent - 1 > 15) {
    fail(op, "an operand scale must be a power of two in [2^-14, 2^15], got " +
                 std::to_string(power_of_two));
  }
  return static_cast<uint32_t>(exponent - 1 + 15) << 10;
}

// The parameter block every GEMM kernel shares (lib/gemm_params.wgsl), as `Kernel` declares it.
// The operand scales go in as f16 (exact for the powers of two they are), their product divided
// out of the scale.
template <class Kernel>
typename Kernel::Params params(std::string_view op, const Gemm& g, const GemmEpilogue& epilogue,
                               size_t nsplit, size_t k_per_split) {
  const uint32_t operand_scales =
      half_bits(op, g.a_operand_scale) | half_bits(op, g.b_operand_scale) << 16;
  return {.m = word(op, g.m),
          .k = word(op, g.k),
          .n = word(op, g.n),
          .batch = word(op, g.batch),
          .a_batch_stride = word(op, g.a_batch_stride),
          .b_batch_stride = word(op, g.b_batch_stride),
          .trans_a = g.trans_a ? 1u : 0u,
          .trans_b = g.trans_b ? 1u : 0u,
          .has_bias = epilogue.bias ? 1u : 0u,
          .scale = g.scale / (g.a_operand_scale * g.b_operand_scale),
          .out_col_offset = word(op, g.out_col_offset),
          .out_row_stride = word(op, g.out_row_stride),
          .nsplit = word(op, nsplit),
          .k_per_split = word(op, k_per_split),
          .epilogue =
              (epilogue.gelu ? kEpilogueGelu : 0u) | (epilogue.residual ? kEpilogueResidual : 0u),
          .operand_scales = operand_scales,
          .triangle = triangle_code(g.triangle)};
}

void require_grid(std::string_view op, const gpu::Context& context, gpu::Workgroups grid) {
  uint32_t limit = context.limits().max_workgroups_per_dimension;
  if (grid.x > limit || grid.y > limit || grid.z > limit) {
    fail(op, "product too large for one dispatch (" + std::to_string(grid.x) + " × " +
                 std::to_string(grid.y) + " × " + std::to_string(grid.z) + " workgroups)");
  }
}

// Sums the splits' partial sums [nsplit][batch][m][n] and applies the epilogue (gemm_reduce.wgsl).
void reduce_splits(std::string_view op, const GemmChoice& choice, const Gemm& g,
                   const GemmEpilogue& epilogue, const Tensor& partials, const Tensor& out) {
  auto& context = *partials.context();
  Bindings bound(op,
                 {partials, epilogue.bias.value_or(partials), epilogue.residual.value_or(partials)},
                 {out});
  const auto& r = bound.ranges();
  dispatch<kernels::gemm_reduce>(
      context, {}, params<kernels::gemm_reduce>(op, g, epilogue, choice.splits, choice.k_per_split),
      {r[0], r[1], r[2], r[3]}, linear_grid(op, context, g.batch * g.m * g.n));
}

// Runs `Kernel` (the variant for B's dtype and layout) over `grid`: straight into `out` with one
// split, else into partial sums that reduce_splits finishes.
template <class Kernel>
void run_product(std::string_view op, const GemmChoice& choice, const Gemm& g, const Tensor& a,
                 const Tensor& b, const GemmEpilogue& epilogue, const Tensor& out,
                 gpu::Workgroups grid) {
  auto& context = *a.context();
  require_grid(op, context, grid);
  const auto words = params<Kernel>(op, g, epilogue, choice.splits, choice.k_per_split);
  const Variant variant{.weights = g.b_dtype, .b_strips = g.b_strips};
  if (choice.splits == 1) {
    Bindings bound(op, {a, b, epilogue.bias.value_or(a), epilogue.residual.value_or(a)}, {out});
    const auto& r = bound.ranges();
    dispatch<Kernel>(context, variant, words, {r[0], r[1], r[2], r[3], r[4]}, grid);
    return;
  }
  Tensor partials = Tensor::empty_gpu(a.context(), {choice.splits, g.batch, g.m, g.n});
  {
    Bindings bound(op, {a, b, a, a}, {partials});
    const auto& r = bound.ranges();
    dispatch<Kernel>(context, variant, words, {r[0], r[1], r[2], r[3], r[4]}, grid);
  }
  reduce_splits(op, choice, g, epilogue, partials, out);
}

template <class Kernel>
void gemm_tiled(std::string_view op, const GemmChoice& choice, const Gemm& g, const Tensor& a,
                const Tensor& b, const GemmEpilogue& epilogue, const Tensor& out) {
  const size_t tile = gemm_tile(choice.kernel);
  run_product<Kernel>(op, choice, g, a, b, epilogue, out,
                      {word(op, ceil_div(g.n, tile)), word(op, ceil_div(g.m, tile)),
                       word(op, g.batch * choice.splits)});
}

void gemm_vector(std::string_view op, const GemmChoice& choice, const Gemm& g, const Tensor& a,
                 const Tensor& b, const GemmEpilogue& epilogue, const Tensor& out) {
  run_product<kernels::gemv>(
      op, choice, g, a, b, epilogue, out,
      {word(op, ceil_div(g.n, 64)), word(op, choice.splits * ceil_div(g.m, 4)), word(op, g.batch)});
}

}  // namespace

void gemm(std::string_view op, const Gemm& product, const Tensor& a, const Tensor& b,
          const GemmEpilogue& epilogue, const Tensor& out) {
  Gemm geometry = product;
  geometry.b_dtype = b.dtype();
  geometry.b_strips = b.layout() == Layout::column_strips;
  validate(op, geometry, a, b, epilogue, out);
  std::vector<const Tensor*> tensors = {&a, &b, &out};
  if (epilogue.bias) tensors.push_back(&*epilogue.bias);
  if (epilogue.residual) tensors.push_back(&*epilogue.residual);
  const auto& context = common_context(op, tensors);
  if (!context) {
    // The reference reads a packed B widened to f32, as the kernels do.
    const std::vector<float> widened = is_packed(b.dtype()) ? b.to_floats() : std::vector<float>{};
    const std::span<const float> b_values =
        is_packed(b.dtype()) ? std::span<const float>(widened) : std::span<const float>(b.floats());
    gemm_cpu(geometry, a.floats(), b_values, epilogue, out.floats());
    return;
  }
  const GemmChoice choice = gemm_kernel(geometry, context->limits());
  switch (choice.kernel) {
    case GemmKernel::vector:
      return gemm_vector(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::tiled:
      return gemm_tiled<kernels::matmul>(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::wide:
      return gemm_tiled<kernels::matmul_wide>(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::wide_vec4:
      return gemm_tiled<kernels::matmul_wide_vec4>(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::tensor_64:
      return gemm_tiled<kernels::matmul_tensor_64>(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::tensor_64_vec4:
      return gemm_tiled<kernels::matmul_tensor_64_vec4>(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::tensor:
      return gemm_tiled<kernels::matmul_tensor>(op, choice, geometry, a, b, epilogue, out);
    case GemmKernel::tensor_vec4:
      return gemm_tiled<kernels::matmul_tensor_vec4>(op, choice, geometry, a, b, epilogue, out);
  }
}

}  // namespace wgpt::ops::detail
