// Which kernel a product takes and how it splits k (ops/gemm.h: gemm_kernel).
#include <algorithm>
#include <array>
#include <vector>

#include "ops/gemm.h"
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
// Their workgroup memory: two 128 × 8 tiles of A and of B, each group of 4 rows padded to 9 vec4s
// (lib/matmul_wide_block.wgsl), 18 KiB: more than WebGPU's default 16 KiB; a device that offers
// less takes the 64×64 kernel (8.3 KiB).
constexpr size_t kWideWorkgroupBytes = 2 * 2 * 32 * 9 * 4 * sizeof(float);
// The tensor-core kernels take 128×128 blocks once a product has one per multiprocessor of an
// H200, else 64×64 blocks (four times as many workgroups).
constexpr size_t kTensorWideMinBlocks = 132;
// Split-k: two workgroups run per multiprocessor of an H200, this many at once. A 64×64 or
// tensor-core product with fewer blocks splits k until it has about as many workgroups, each
// split at least kMinTiledSplitDepth deep; the 128×128 f32 kernels split as modelled below.
constexpr size_t kTiledTargetWorkgroups = 264;
constexpr size_t kMinTiledSplitDepth = 256;
// The f32 64×64 kernel (matmul.wgsl: a short prompt's products) splits further: timed at 1-24
// splits on an H200 (pp128, docs/benchmarks.md's eighteenth session), each of GPT-2 124M's four
// products was fastest at the split this target and floor give (6, 16, 4 and 16 splits; the
// attention projection's 16 are 48 deep), 15-35% faster than at the general ones (3, 3, 3, 11);
// pp128 as a whole took 3.77 ms instead of 4.67 on an H100 (the twenty-second session).
constexpr size_t kTiledF32TargetWorkgroups = 384;
constexpr size_t kMinTiledF32SplitDepth = 48;

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
  // The tensor-core kernels read B as row-major f32: packed weights and column strips take the f32
  // kernels' DTYPE variants. They know no triangles (nor has any device run them yet:
  // docs/benchmarks.md).
  if (g.precision == Precision::mixed && limits.f16_matrix.available() && g.b_dtype == DType::f32 &&
      !g.b_strips && g.triangle == Triangle::none) {
    if (blocks(g, 128) >= kTensorWideMinBlocks && runs_wide_tensor_kernels(limits)) {
      return vec4 ? GemmKernel::tensor_vec4 : GemmKernel::tensor;
    }
    return vec4 ? GemmKernel::tensor_64_vec4 : GemmKernel::tensor_64;
  }
  if (limits.max_workgroup_storage_bytes < kWideWorkgroupBytes) return GemmKernel::tiled;
  if (vec4) return blocks(g, 128) >= kWideVec4MinBlocks ? GemmKernel::wide_vec4 : GemmKernel::tiled;
  return blocks(g, 128) >= kWideMinBlocks ? GemmKernel::wide : GemmKernel::tiled;
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

// The tiled kernel for `g` with k split until about `target` workgroups are in flight, each split
// at least `min_depth` deep.
GemmChoice split_tiled(const Gemm& g, const TiledKernel& kernel, size_t target, size_t min_depth) {
  const size_t max_splits = std::max<size_t>(1, g.k / min_depth);
  const size_t wanted = std::clamp<size_t>(ceil_div(target, blocks(g, kernel.tile)), 1, max_splits);
  return split_k(kernel.kernel, g.k, g.k_splits ? g.k_splits : wanted, kernel.k_tile);
}

// The kernels the model below describes: the 128×128 f32 ones.
bool wide_f32(GemmKernel kernel) {
  return kernel == GemmKernel::wide || kernel == GemmKernel::wide_vec4;
}

double modelled_wide_micros(const Gemm& g, const GemmChoice& choice) {
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
GemmChoice fastest_wide_split(const Gemm& g, const TiledKernel& kernel, const gpu::Limits& limits) {
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

// The tiled kernel for `g` and how it splits k: a row-invariant product to the general target,
// down to kRowInvariantSplitDepth; otherwise the 128×128 f32 kernels as modelled, the f32 64×64
// kernel to its own target and floor, and the tensor-core kernels to the general ones.
GemmChoice tiled_split(const Gemm& g, const gpu::Limits& limits) {
  const TiledKernel& kernel = tiled_kernel(tiled_choice(g, limits));
  if (g.row_invariant) {
    return split_tiled(g, kernel, kTiledTargetWorkgroups, kRowInvariantSplitDepth);
  }
  if (wide_f32(kernel.kernel) && !g.k_splits) return fastest_wide_split(g, kernel, limits);
  if (kernel.kernel == GemmKernel::tiled) {
    return split_tiled(g, kernel, kTiledF32TargetWorkgroups, kMinTiledF32SplitDepth);
  }
  return split_tiled(g, kernel, kTiledTargetWorkgroups, kMinTiledSplitDepth);
}

}  // namespace

std::optional<double> modelled_micros(const Gemm& geometry, const GemmChoice& choice) {
  if (!wide_f32(choice.kernel)) return {};
  return modelled_wide_micros(geometry, choice);
}

size_t gemm_tile(GemmKernel kernel) { return tiled_kernel(kernel).tile; }

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
    return tiled_split(fixed, limits);
  }
  // gemv knows no triangles: a triangular product of few rows takes the 64×64 kernel.
  if (g.m <= kGemvMaxRows && g.triangle == Triangle::none) return vector_choice(g);
  return tiled_split(g, limits);
}

}  // namespace wgpt::ops::detail
