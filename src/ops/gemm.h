#pragma once
// The one batched matrix product behind matmul, the chunked LM head and attention over a KV
// cache. It is described by its geometry rather than by tensor shapes, so a batch can be strided
// (a cache's heads are n_ctx rows apart but only kv_len rows are used) and the output can be a
// column block of a wider matrix (one chunk of the LM head).

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "wgpt/gpu.h"
#include "wgpt/ops.h"
#include "wgpt/tensor.h"

namespace wgpt::ops::detail {

struct Gemm {
  size_t batch = 1;
  size_t m = 0, k = 0, n = 0;
  size_t a_batch_stride = 0;  // elements between batches of A; 0 broadcasts A
  size_t b_batch_stride = 0;  // elements between batches of B; 0 broadcasts B
  bool trans_a = false;       // A stored [k, m] per batch
  bool trans_b = false;       // B stored [n, k] per batch
  float scale = 1.0f;
  size_t out_col_offset = 0;   // first column written in each output row
  size_t out_row_stride = 0;   // elements per output row (n unless writing a column block)
  DType b_dtype = DType::f32;  // how B is stored: f32, or packed weights (f16, bf16, q4)
  bool b_strips = false;       // B in column strips (Layout::column_strips), not row-major
  Precision precision = Precision::f32;
  // Mixed precision: powers of two that multiply A's and B's values before their conversion to
  // f16 (and divide the sum after), to keep small operands (gradients) clear of f16's subnormals.
  float a_operand_scale = 1.0f, b_operand_scale = 1.0f;
  // The kernel and split of k chosen as for kRowInvariantRows rows whatever m is, k split deeper
  // than other products (MatmulOptions).
  bool row_invariant = false;
  // k cut into this many slices instead of the choice's (0): MatmulOptions::k_splits.
  size_t k_splits = 0;
  // The zeros the product skips (MatmulOptions::triangle): the f32 tiled kernels only.
  Triangle triangle = Triangle::none;
};

// What happens to each finished sum, in this order: + bias[col], GPT-2's GELU, + residual at the
// output element's own index (residual has the output's layout).
struct GemmEpilogue {
  std::optional<Tensor> bias;
  bool gelu = false;
  std::optional<Tensor> residual;
};

// The GPU kernel a product takes, and how it splits k. gemv.wgsl for a few rows; mixed precision
// on a device with tensor cores: matmul_tensor*.wgsl, in 128×128 blocks when the product has
// enough of them and the device the workgroup memory, else in 64×64 blocks; otherwise the f32
// kernels: matmul_wide_vec4.wgsl or matmul_wide.wgsl (128×128) when the product has enough blocks,
// else matmul.wgsl (64×64); a triangular product always one of these three, whatever its m. A B
// stored as packed weights (f16, bf16, q4) always takes the f32 kernels' DTYPE variants: the
// tensor-core kernels read B as f32. The *_vec4 kernels read whole vec4s and take products whose
// operand rows and batch strides are multiples of 4 floats. A product with too few blocks to fill
// the device splits k into up to `splits` slices (k_per_split values each, a multiple of the
// kernel's k tile) whose partial sums gemm_reduce.wgsl adds. Exposed so that tests can check which
// kernel their shapes reach.
enum class GemmKernel {
  vector,
  tiled,
  wide,
  wide_vec4,
  tensor_64,
  tensor_64_vec4,
  tensor,
  tensor_vec4,
};
struct GemmChoice {
  GemmKernel kernel = GemmKernel::vector;
  size_t splits = 1;
  size_t k_per_split = 0;
};
GemmChoice gemm_kernel(const Gemm& geometry, const gpu::Limits& limits);
// The model's µs for `choice` of a 128×128 f32 kernel (wide, wide_vec4); nothing for the others.
std::optional<double> modelled_micros(const Gemm& geometry, const GemmChoice& choice);
// The side of the square block of C one workgroup of a tiled kernel (not `vector`) computes.
size_t gemm_tile(GemmKernel kernel);
// The kernel variant's name ("matmul_tensor_vec4", "gemv.q4", ...): its WGSL file stem, plus the
// dtype of a packed B.
std::string gemm_kernel_name(GemmKernel kernel, DType b_dtype);

// out[(b·m + row)·out_row_stride + out_col_offset + col] =
//   epilogue(scale · Σ op(A)[row, kk] · op(B)[kk, col]) for every batch b, row and column, with
// the geometry's triangle of op(A) taken as zero, or of the output set to zero. All
// tensors f32 on one device, except B, which may be packed weights (f16, bf16, q4: read widened;
// b_dtype is taken from it); `op` names the caller in errors. On the CPU the product is the
// definition (double sums, whatever the precision).
void gemm(std::string_view op, const Gemm& geometry, const Tensor& a, const Tensor& b,
          const GemmEpilogue& epilogue, const Tensor& out);
// The CPU reference of `gemm` over B's values widened to f32.
void gemm_cpu(const Gemm& geometry, std::span<const float> a, std::span<const float> b,
              const GemmEpilogue& epilogue, std::span<float> out);

}  // namespace wgpt::ops::detail
