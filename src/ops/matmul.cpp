#include <algorithm>
#include <functional>
#include <string>

#include "ops/gemm.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "matmul";

// An operand [rows, cols] or [batch, rows, cols] as stored.
struct Operand {
  size_t batch;  // 0 when unbatched (broadcast)
  size_t rows, cols;
};

// How an error names an operand: made only for the error (a product on every dispatch's path).
using Label = std::function<std::string()>;

Operand operand(std::string_view role, const Shape& shape, const Label& label) {
  if (shape.size() == 2) return {0, shape[0], shape[1]};
  if (shape.size() == 3) return {shape[0], shape[1], shape[2]};
  detail::fail(kOp,
               std::string(role) + " must be [rows, cols] or [batch, rows, cols], got " + label());
}

// The product's geometry from the operands' shapes (named in errors by their labels); out_shape
// receives the output's.
detail::Gemm geometry_of(const Shape& a_shape, const Shape& b_shape, const MatmulOptions& options,
                         const Label& a_label, const Label& b_label, Shape* out_shape) {
  Operand sa = operand("a", a_shape, a_label);
  Operand sb = operand("b", b_shape, b_label);
  size_t m = options.transpose_a ? sa.cols : sa.rows;
  size_t k = options.transpose_a ? sa.rows : sa.cols;
  size_t kb = options.transpose_b ? sb.cols : sb.rows;
  size_t n = options.transpose_b ? sb.rows : sb.cols;
  auto shapes = [&] {
    return a_label() + (options.transpose_a ? "ᵀ" : "") + " · " + b_label() +
           (options.transpose_b ? "ᵀ" : "");
  };
  if (k != kb) detail::fail(kOp, "inner dimensions differ: " + shapes());
  if (sa.batch != 0 && sb.batch != 0 && sa.batch != sb.batch) {
    detail::fail(kOp, "batch sizes differ: " + shapes());
  }
  size_t batch = std::max<size_t>({sa.batch, sb.batch, 1});
  bool batched = sa.batch != 0 || sb.batch != 0;
  *out_shape = batched ? Shape{batch, m, n} : Shape{m, n};
  return {.batch = batch,
          .m = m,
          .k = k,
          .n = n,
          .a_batch_stride = sa.batch != 0 ? m * k : 0,
          .b_batch_stride = sb.batch != 0 ? k * n : 0,
          .trans_a = options.transpose_a,
          .trans_b = options.transpose_b,
          .scale = options.scale,
          .out_row_stride = n,
          .precision = options.precision,
          .row_invariant = options.row_invariant,
          .k_splits = options.k_splits,
          .triangle = options.triangle};
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options) {
  detail::require_dtype(kOp, "a", a, DType::f32);
  // b may be packed weights (f16, bf16, q4); detail::gemm checks its dtype.
  Shape out_shape;
  const detail::Gemm geometry = geometry_of(
      a.shape(), b.shape(), options, [&] { return a.describe(); }, [&] { return b.describe(); },
      &out_shape);
  Tensor out = detail::new_output(a, out_shape);
  detail::gemm(kOp, geometry, a, b,
               {.bias = options.bias, .gelu = options.gelu, .residual = options.residual}, out);
  return out;
}

std::string matmul_kernel(const gpu::Limits& limits, const Shape& a, const Shape& b,
                          const MatmulOptions& options, DType b_dtype) {
  Shape out_shape;
  detail::Gemm geometry = geometry_of(
      a, b, options, [&] { return to_string(a); }, [&] { return to_string(b); }, &out_shape);
  geometry.b_dtype = b_dtype;
  const detail::GemmChoice choice = detail::gemm_kernel(geometry, limits);
  std::string name = detail::gemm_kernel_name(choice.kernel, b_dtype);
  if (choice.splits > 1) name += " (" + std::to_string(choice.splits) + " splits)";
  return name;
}

std::optional<double> matmul_modelled_micros(const gpu::Limits& limits, const Shape& a,
                                             const Shape& b, const MatmulOptions& options,
                                             DType b_dtype) {
  Shape out_shape;
  detail::Gemm geometry = geometry_of(
      a, b, options, [&] { return to_string(a); }, [&] { return to_string(b); }, &out_shape);
  geometry.b_dtype = b_dtype;
  return detail::modelled_micros(geometry, detail::gemm_kernel(geometry, limits));
}

}  // namespace wgpt::ops
