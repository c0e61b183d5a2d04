#include "ops/gemm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

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
// The tensor-core kernels take 128×128 blocks once a product has one per multiprocessor of an
// H200, else 64×64 blocks (four times as many workgroups).
constexpr size_t kTensorWideMinBlocks = 132;
// Split-k: two workgroups run per multiprocessor of an H200, this many at once. A 64×64 or
// tensor-core product with fewer blocks splits k until it has about as many workgroups, each
// split at least kMinTiledSplitDepth deep; the 128×128 f32 kernels split as modelled below.
constexpr size_t kTiledTargetWorkgroups = 264;
constexpr size_t kMinTiledSplitDepth = 256;

// How long the 128×128 f32 kernels (matmul_wide*.wgsl) take with k split into s slices, a model
// fitted to an H200's per-product times (docs/benchmarks.md, "A model of the products' time": 17
// of 19 products within 5%): workgroups run in rounds of kTiledTargetWorkgroups, each round
// taking kWideMicrosPerK per value of k in a slice plus kWideMicrosPerRound (the blocks' stores);
// a split adds the reduction pass, kDispatchMicros plus (s + 1) · m · n floats read or written at
// kReductionBytesPerMicro. Of the splits modelled within kSplitTolerance of the fastest, the
// fewest is taken; none shallower than kMinWideSplitDepth, none whose partial sums would not fit
// one storage binding.
constexpr double kWideMicrosPerK = 0.255;
constexpr double kWideMicrosPerRound = 13.6;
constexpr double kDispatchMicros = 5.0;
constexpr double kReductionBytesPerMicro = 3.0e6;
constexpr double kSplitTolerance = 1.05;
constexpr size_t kMinWideSplitDepth = 64;

// A row-invariant product chooses its kernel as for this many rows: a batched decode step of up
// to 64 sequences, the tiled kernels' block, fills no more than one block of rows. Its k splits
// down to kRowInvariantSplitDepth rather than kMinTiledSplitDepth: with one block of rows its
// products have only n / 64 blocks (12 for GPT-2 124M's 768-wide outputs), which the deeper
// splits left to 36-144 workgroups.
constexpr size_t kRowInvariantRows = 64;
constexpr size_t kRowInvariantSplitDepth = 64;

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

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

float gelu_tanh(float x) {
  const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(u));
}

// The CPU computes C in tiles of kCpuTile × kCpuTile sums, held in registers while k is walked
// once, within column blocks of kCpuCols that a transposed B is copied out by.
constexpr size_t kCpuTile = 4;
constexpr size_t kCpuCols = 64;
using TileSums = std::array<std::array<double, kCpuTile>, kCpuTile>;

// A tile's operands: A(r, kk) at a[r · a_row + kk · a_k], B(kk, c) at b[kk · b_row + c].
struct TileOperands {
  const float* a;
  size_t a_row, a_k;
  const float* b;
  size_t b_row;
  size_t k;
};

// sums[r][c] = Σ A(r, kk) · B(kk, c) over kk = 0 … k − 1 in order, in double, for r < rows and
// c < cols. Inlined with constant rows and cols (a whole tile), its sums stay in registers.
[[gnu::always_inline]] inline void tile_sums(const TileOperands& o, size_t rows, size_t cols,
                                             TileSums& sums) {
  for (auto& row : sums) row.fill(0.0);
  for (size_t kk = 0; kk < o.k; ++kk) {
    const float* b_row = o.b + kk * o.b_row;
    for (size_t r = 0; r < rows; ++r) {
      const double a_value = o.a[r * o.a_row + kk * o.a_k];
      for (size_t c = 0; c < cols; ++c) sums[r][c] += a_value * b_row[c];
    }
  }
}

// The definition: each output element's sum runs over kk = 0 … k − 1 in order, in double (every
// product of two floats is exact there), then the scale and the epilogue. The loops run tile by
// tile (tile_sums), B's rows read contiguously — a transposed B's column block copied out first:
// this changes how many sums are in flight, not any sum, so the result is the same bit for bit as
// one element at a time, many times faster than walking B by columns.
void gemm_cpu(const Gemm& g, std::span<const float> a, std::span<const float> b,
              const GemmEpilogue& epilogue, std::span<float> out) {
  const float* bias = epilogue.bias ? epilogue.bias->floats().data() : nullptr;
  const float* residual = epilogue.residual ? epilogue.residual->floats().data() : nullptr;
  std::vector<float> b_block;  // a transposed B's columns [col0, col0 + cols), as [k][cols]
  TileSums sums;
  for (size_t batch = 0; batch < g.batch; ++batch) {
    const float* a_batch = a.data() + batch * g.a_batch_stride;
    const float* b_batch = b.data() + batch * g.b_batch_stride;
    for (size_t col0 = 0; col0 < g.n; col0 += kCpuCols) {
      const size_t block_cols = std::min(kCpuCols, g.n - col0);
      const float* b_rows = b_batch + col0;
      size_t b_row = g.n;
      if (g.trans_b) {
        b_block.resize(g.k * block_cols);
        for (size_t col = 0; col < block_cols; ++col) {
          for (size_t kk = 0; kk < g.k; ++kk) {
            b_block[kk * block_cols + col] = b_batch[(col0 + col) * g.k + kk];
          }
        }
        b_rows = b_block.data();
        b_row = block_cols;
      }
      for (size_t row0 = 0; row0 < g.m; row0 += kCpuTile) {
        const size_t rows = std::min(kCpuTile, g.m - row0);
        for (size_t tile_col = 0; tile_col < block_cols; tile_col += kCpuTile) {
          const size_t cols = std::min(kCpuTile, block_cols - tile_col);
          const TileOperands operands{g.trans_a ? a_batch + row0 : a_batch + row0 * g.k,
                                      g.trans_a ? 1 : g.k,
                                      g.trans_a ? g.m : 1,
                                      b_rows + tile_col,
                                      b_row,
                                      g.k};
          if (rows == kCpuTile && cols == kCpuTile) {
            tile_sums(operands, kCpuTile, kCpuTile, sums);
          } else {
            tile_sums(operands, rows, cols, sums);
          }
          for (size_t r = 0; r < rows; ++r) {
            for (size_t c = 0; c < cols; ++c) {
              const size_t col = col0 + tile_col + c;
              float value = static_cast<float>(sums[r][c]) * g.scale + (bias ? bias[col] : 0.0f);
              if (epilogue.gelu) value = gelu_tanh(value);
              const size_t at =
                  (batch * g.m + row0 + r) * g.out_row_stride + g.out_col_offset + col;
              out[at] = value + (residual ? residual[at] : 0.0f);
            }
          }
        }
      }
    }
  }
}

// lib/gemm_epilogue.wgsl's bits.
constexpr uint32_t kEpilogueGelu = 1;
constexpr uint32_t kEpilogueResidual = 2;

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
          .operand_scales = operand_scales};
}

void require_grid(std::string_view op, const gpu::Context& context, gpu::Workgroups grid) {
  uint32_t limit = context.limits().max_workgroups_per_dimension;
  if (grid.x > limit || grid.y > limit || grid.z > limit) {
    fail(op, "product too large for one dispatch (" + std::to_string(grid.x) + " × " +
                 std::to_string(grid.y) + " × " + std::to_string(grid.z) + " workgroups)");
  }
}

// A tiled GEMM kernel: the square block of C one workgroup computes and the k tile it steps by.
struct TiledKernel {
  GemmKernel kernel;
  std::string_view name;
  size_t tile;
  size_t k_tile;
};
constexpr std::array<TiledKernel, 7> kTiledKernels = {{
    {GemmKernel::tiled, "matmul", 64, 16},
    {GemmKernel::wide, "matmul_wide", 128, 8},
    {GemmKernel::wide_vec4, "matmul_wide_vec4", 128, 8},
    {GemmKernel::tensor_64, "matmul_tensor_64", 64, 32},
    {GemmKernel::tensor_64_vec4, "matmul_tensor_64_vec4", 64, 32},
    {GemmKernel::tensor, "matmul_tensor", 128, 32},
    {GemmKernel::tensor_vec4, "matmul_tensor_vec4", 128, 32},
}};

const TiledKernel& tiled_kernel(GemmKernel kernel) {
  return *std::find_if(kTiledKernels.begin(), kTiledKernels.end(),
                       [&](const TiledKernel& k) { return k.kernel == kernel; });
}

size_t blocks(const Gemm& g, size_t tile) {
  return ceil_div(g.m, tile) * ceil_div(g.n, tile) * g.batch;
}

// Whether the *_vec4 kernels can read both operands as vec4s: every contiguous row (k, or m for a
// transposed A; n, or k for a transposed B) and both batch strides are multiples of 4 floats (8
// elements for a packed B, whose words hold 8), and bindings start 16-byte aligned (they start at
// multiples of the device's storage offset alignment).
bool vec4_operands(const Gemm& g, size_t storage_offset_alignment) {
  size_t a_row = g.trans_a ? g.m : g.k;
  size_t b_row = g.trans_b ? g.k : g.n;
  size_t b_multiple = is_packed(g.b_dtype) ? 8 : 4;
  return a_row % 4 == 0 && b_row % b_multiple == 0 && g.a_batch_stride % 4 == 0 &&
         g.b_batch_stride % b_multiple == 0 && storage_offset_alignment % 16 == 0;
}

// Whether the device runs the 128×128 tensor-core kernels: 8 subgroups, and in workgroup memory
// lib/matmul_tensor_block.wgsl's f16 tiles of A (128 × 40) and B (32 × 136) plus one f32 result
// matrix per subgroup (27 KiB with 16 × 16 matrices: more than WebGPU's default 16 KiB).
bool runs_wide_tensor_kernels(const gpu::Limits& limits) {
  const gpu::SubgroupMatrix& matrix = limits.f16_matrix;
  const size_t storage = 2 * (128 * 40 + 32 * 136) + 8 * 4 * matrix.m * matrix.n;
  return storage <= limits.max_workgroup_storage_bytes &&
         8 * matrix.subgroup_size <= limits.max_invocations_per_workgroup;
}

GemmKernel tiled_choice(const Gemm& g, const gpu::Limits& limits) {
  const bool vec4 = vec4_operands(g, limits.min_storage_buffer_offset_alignment);
  // The tensor-core kernels read B as f32: packed weights take the f32 kernels' DTYPE variants.
  if (g.precision == Precision::mixed && limits.f16_matrix.available() && g.b_dtype == DType::f32) {
    if (blocks(g, 128) >= kTensorWideMinBlocks && runs_wide_tensor_kernels(limits)) {
      return vec4 ? GemmKernel::tensor_vec4 : GemmKernel::tensor;
    }
    return vec4 ? GemmKernel::tensor_64_vec4 : GemmKernel::tensor_64;
  }
  if (vec4) return blocks(g, 128) >= kWideVec4MinBlocks ? GemmKernel::wide_vec4 : GemmKernel::tiled;
  return blocks(g, 128) >= kWideMinBlocks ? GemmKernel::wide : GemmKernel::tiled;
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

// Runs `Kernel` (the variant for B's dtype) over `grid`: straight into `out` with one split, else
// into partial sums that reduce_splits finishes.
template <class Kernel>
void run_product(std::string_view op, const GemmChoice& choice, const Gemm& g, const Tensor& a,
                 const Tensor& b, const GemmEpilogue& epilogue, const Tensor& out,
                 gpu::Workgroups grid) {
  auto& context = *a.context();
  require_grid(op, context, grid);
  const auto words = params<Kernel>(op, g, epilogue, choice.splits, choice.k_per_split);
  const Variant variant{.weights = g.b_dtype};
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
  const size_t tile = tiled_kernel(choice.kernel).tile;
  run_product<Kernel>(op, choice, g, a, b, epilogue, out,
                      {word(op, ceil_div(g.n, tile)), word(op, ceil_div(g.m, tile)),
                       word(op, g.batch * choice.splits)});
}

// `kernel` with k cut into about `wanted` slices, each a multiple of `k_tile` values deep and none
// empty (so there may be fewer).
GemmChoice split_k(GemmKernel kernel, size_t k, size_t wanted, size_t k_tile) {
  const size_t k_per_split = ceil_div(ceil_div(k, wanted), k_tile) * k_tile;
  return {kernel, ceil_div(k, k_per_split), k_per_split};
}

// gemv's split of k: until about kGemvTargetWorkgroups workgroups are in flight, each split at
// least kMinSplitDepth deep.
GemmChoice vector_choice(const Gemm& g) {
  const size_t blocks = ceil_div(g.n, 64) * ceil_div(g.m, 4) * g.batch;
  const size_t max_splits = std::max<size_t>(1, g.k / kMinSplitDepth);
  const size_t wanted = std::clamp<size_t>(ceil_div(kGemvTargetWorkgroups, blocks), 1, max_splits);
  return split_k(GemmKernel::vector, g.k, g.k_splits ? g.k_splits : wanted, 1);
}

void gemm_vector(std::string_view op, const GemmChoice& choice, const Gemm& g, const Tensor& a,
                 const Tensor& b, const GemmEpilogue& epilogue, const Tensor& out) {
  run_product<kernels::gemv>(
      op, choice, g, a, b, epilogue, out,
      {word(op, ceil_div(g.n, 64)), word(op, choice.splits * ceil_div(g.m, 4)), word(op, g.batch)});
}

// The tiled kernel for `g` with k split until about kTiledTargetWorkgroups are in flight, each
// split at least `min_depth` deep.
GemmChoice split_tiled(const Gemm& g, const TiledKernel& kernel, size_t min_depth) {
  const size_t max_splits = std::max<size_t>(1, g.k / min_depth);
  const size_t wanted =
      std::clamp<size_t>(ceil_div(kTiledTargetWorkgroups, blocks(g, kernel.tile)), 1, max_splits);
  return split_k(kernel.kernel, g.k, g.k_splits ? g.k_splits : wanted, kernel.k_tile);
}

// The kernels the model below describes: the 128×128 f32 ones.
bool wide_f32(GemmKernel kernel) {
  return kernel == GemmKernel::wide || kernel == GemmKernel::wide_vec4;
}

// The model's two functions are marked cold (host code run once per product, never hot) to keep
// them out of the CPU reference's way: laid out among it, they made gemm_cpu's loops run 15%
// slower on the CPU backend (the shipped model scoring a text: 15.1–16.1 s against 13.2–13.7 s,
// the same code before them; 12.9–13.1 s with them cold) — an effect of code placement, not of
// anything they run.
[[gnu::cold]] double modelled_wide_micros(const Gemm& g, const GemmChoice& choice) {
  const size_t rounds = ceil_div(blocks(g, 128) * choice.splits, kTiledTargetWorkgroups);
  double micros = static_cast<double>(rounds) *
                  (static_cast<double>(choice.k_per_split) * kWideMicrosPerK + kWideMicrosPerRound);
  if (choice.splits > 1) {
    const double floats = static_cast<double>(choice.splits + 1) * static_cast<double>(g.batch) *
                          static_cast<double>(g.m) * static_cast<double>(g.n);
    micros += kDispatchMicros + floats * sizeof(float) / kReductionBytesPerMicro;
  }
  return micros;
}

// A 128×128 f32 kernel with the split of k the model above finds fastest.
[[gnu::cold]] GemmChoice fastest_wide_split(const Gemm& g, const TiledKernel& kernel,
                                            const gpu::Limits& limits) {
  // Past four rounds more splits no longer shorten the compute (its total stays blocks · k) and
  // only add reductions and rounds' stores.
  const size_t most = std::max<size_t>(
      1, std::min(g.k / kMinWideSplitDepth, 4 * kTiledTargetWorkgroups / blocks(g, kernel.tile)));
  std::vector<std::pair<GemmChoice, double>> candidates;
  double fastest = 0;
  for (size_t wanted = 1; wanted <= most; ++wanted) {
    const GemmChoice choice = split_k(kernel.kernel, g.k, wanted, kernel.k_tile);
    const uint64_t partial_bytes = uint64_t{choice.splits} * g.batch * g.m * g.n * sizeof(float);
    if (choice.splits != wanted ||
        (choice.splits > 1 && partial_bytes > limits.max_storage_buffer_binding_size)) {
      continue;
    }
    const double micros = modelled_wide_micros(g, choice);
    if (candidates.empty() || micros < fastest) fastest = micros;
    candidates.emplace_back(choice, micros);
  }
  return std::find_if(candidates.begin(), candidates.end(),
                      [&](const auto& c) { return c.second <= fastest * kSplitTolerance; })
      ->first;
}

GemmChoice tiled_split(const Gemm& g, const gpu::Limits& limits, size_t min_depth) {
  const TiledKernel& kernel = tiled_kernel(tiled_choice(g, limits));
  if (wide_f32(kernel.kernel) && !g.row_invariant && !g.k_splits) {
    return fastest_wide_split(g, kernel, limits);
  }
  return split_tiled(g, kernel, min_depth);
}

}  // namespace

std::optional<double> modelled_micros(const Gemm& geometry, const GemmChoice& choice) {
  if (!wide_f32(choice.kernel)) return {};
  return modelled_wide_micros(geometry, choice);
}

std::string gemm_kernel_name(GemmKernel kernel, DType b_dtype) {
  std::string name(kernel == GemmKernel::vector ? "gemv" : tiled_kernel(kernel).name);
  if (b_dtype != DType::f32) name += std::string(".") + to_string(b_dtype);
  return name;
}

GemmChoice gemm_kernel(const Gemm& g, const gpu::Limits& limits) {
  if (g.row_invariant) {
    // Every kernel sums an output element in an order set by k and the split alone, so the
    // choice of a fixed m gives every row the same sums whatever the product's m.
    Gemm fixed = g;
    fixed.m = kRowInvariantRows;
    return tiled_split(fixed, limits, kRowInvariantSplitDepth);
  }
  if (g.m <= kGemvMaxRows) return vector_choice(g);
  return tiled_split(g, limits, kMinTiledSplitDepth);
}

void gemm(std::string_view op, const Gemm& product, const Tensor& a, const Tensor& b,
          const GemmEpilogue& epilogue, const Tensor& out) {
  Gemm geometry = product;
  geometry.b_dtype = b.dtype();
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
