// matmul_backward: a matrix product's gradients are matrix products of the same kernel, with the
// operands' roles and transposes exchanged, plus column sums for the bias.
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "matmul_backward";

// The triangles of a triangular product's gradient products (ops.h: Triangle), each on the
// product's first operand.
struct Triangles {
  Triangle da = Triangle::none, db = Triangle::none;
};

Triangles triangles_of(Triangle triangle, bool ta, bool tb) {
  switch (triangle) {
    case Triangle::none:
      return {};
    case Triangle::lower_output:
      // y = s·a·bᵀ, zero above the diagonal, so only dy's lower triangle reaches a and b:
      // da = s·dy·b reads dy as lower, db = s·dyᵀ·a reads dyᵀ as upper.
      if (!ta && tb) return {Triangle::lower_a, Triangle::upper_a};
      break;
    case Triangle::lower_a:
      // y = s·a·b with a's upper triangle taken as zero: da = s·dy·bᵀ is zero there, and
      // db = s·aᵀ·dy reads aᵀ as upper.
      if (!ta && !tb) return {Triangle::lower_output, Triangle::upper_a};
      break;
    case Triangle::upper_a:
      break;
  }
  detail::fail(kOp,
               "the gradient of this triangular product is not supported (ops.h: "
               "matmul_backward)");
}

}  // namespace

MatmulGrads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy,
                            const MatmulOptions& options) {
  detail::require_dtype(kOp, "dy", dy, DType::f32);
  if (options.gelu || options.residual) {
    detail::fail(kOp, "the fused GELU and residual have no gradient here: record them as ops");
  }
  if (a.rank() != b.rank()) {
    detail::fail(kOp, "a " + a.describe() + " and b " + b.describe() +
                          " must both be batched or both unbatched");
  }
  if (a.rank() < 2) detail::fail(kOp, "a must be [m, k] or [batch, m, k], got " + a.describe());
  // The product's shape, which dy must have; the products below check everything else.
  const size_t m = options.transpose_a ? a.dim(-1) : a.dim(-2);
  const size_t n = options.transpose_b ? b.dim(-2) : b.dim(-1);
  const Shape y_shape = a.rank() == 3 ? Shape{a.dim(0), m, n} : Shape{m, n};
  if (dy.shape() != y_shape) {
    detail::fail(kOp,
                 "dy " + dy.describe() + " must have the product's shape " + to_string(y_shape));
  }
  const float s = options.scale;
  const bool ta = options.transpose_a, tb = options.transpose_b;
  const Precision precision = options.precision;
  const Triangles triangles = triangles_of(options.triangle, ta, tb);
  MatmulGrads grads;
  // y = s·op(a)·op(b). For a stored as op(a) = a: da = s·dy·op(b)ᵀ; stored transposed:
  // da = s·op(b)·dyᵀ. Likewise db = s·op(a)ᵀ·dy, or s·dyᵀ·op(a) when b is stored transposed.
  if (!ta) {
    grads.da = matmul(
        dy, b, {.transpose_b = !tb, .scale = s, .precision = precision, .triangle = triangles.da});
  } else {
    grads.da =
        matmul(b, dy, {.transpose_a = tb, .transpose_b = true, .scale = s, .precision = precision});
  }
  if (!tb) {
    grads.db = matmul(
        a, dy, {.transpose_a = !ta, .scale = s, .precision = precision, .triangle = triangles.db});
  } else {
    grads.db = matmul(dy, a,
                      {.transpose_a = true,
                       .transpose_b = ta,
                       .scale = s,
                       .precision = precision,
                       .triangle = triangles.db});
  }
  if (options.bias) grads.dbias = sum_rows(dy.reshape({dy.numel() / n, n}));
  return grads;
}

}  // namespace wgpt::ops
