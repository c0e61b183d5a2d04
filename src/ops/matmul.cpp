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

Operand operand(std::string_view role, const Tensor& t) {
  // b may be packed weights (f16, bf16, q4); detail::gemm checks the dtypes.
  if (t.rank() == 2) return {0, t.dim(0), t.dim(1)};
  if (t.rank() == 3) return {t.dim(0), t.dim(1), t.dim(2)};
  detail::fail(
      kOp, std::string(role) + " must be [rows, cols] or [batch, rows, cols], got " + t.describe());
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options) {
  detail::require_dtype(kOp, "a", a, DType::f32);
  Operand sa = operand("a", a);
  Operand sb = operand("b", b);
  size_t m = options.transpose_a ? sa.cols : sa.rows;
  size_t k = options.transpose_a ? sa.rows : sa.cols;
  size_t kb = options.transpose_b ? sb.cols : sb.rows;
  size_t n = options.transpose_b ? sb.rows : sb.cols;
  std::string shapes = a.describe() + (options.transpose_a ? "ᵀ" : "") + " · " + b.describe() +
                       (options.transpose_b ? "ᵀ" : "");
  if (k != kb) detail::fail(kOp, "inner dimensions differ: " + shapes);
  if (sa.batch != 0 && sb.batch != 0 && sa.batch != sb.batch) {
    detail::fail(kOp, "batch sizes differ: " + shapes);
  }
  size_t batch = std::max<size_t>({sa.batch, sb.batch, 1});
  bool batched = sa.batch != 0 || sb.batch != 0;
  detail::Gemm geometry{.batch = batch,
                        .m = m,
                        .k = k,
                        .n = n,
                        .a_batch_stride = sa.batch != 0 ? m * k : 0,
                        .b_batch_stride = sb.batch != 0 ? k * n : 0,
                        .trans_a = options.transpose_a,
                        .trans_b = options.transpose_b,
                        .scale = options.scale,
                        .out_row_stride = n};
  Shape out_shape = batched ? Shape{batch, m, n} : Shape{m, n};
  Tensor out = detail::new_output(a, out_shape);
  detail::gemm(kOp, geometry, a, b, options.bias, out);
  return out;
}

}  // namespace wgpt::ops
