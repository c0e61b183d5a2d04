// The CPU reference of the batched product (ops/gemm.h: gemm_cpu).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ops/gemm.h"

namespace wgpt::ops::detail {
namespace {

float gelu_tanh(float x) {
  const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(u));
}

// The CPU computes C in tiles of kCpuTile × kCpuTile sums, held in registers while k is walked
// once, within column blocks of kCpuCols that a transposed B is copied out by.
constexpr size_t kCpuTile = 4;
constexpr size_t kCpuCols = 64;
// Two doubles, one SSE register (a vector extension of GCC and Clang): a tile row's sums are two.
using DoublePair = double __attribute__((vector_size(16)));
using TileSums = std::array<std::array<DoublePair, kCpuTile / 2>, kCpuTile>;
static_assert(kCpuTile == 4, "tile_sums widens B's row into two pairs");

// A tile's operands: A(r, kk) at a[r · a_row + kk · a_k], B(kk, c) at b[kk · b_row + c], for kk
// in [k_begin, k_end). `first_row` is the tile's first row in the product, for a triangular A.
struct TileOperands {
  const float* a;
  size_t a_row, a_k;
  const float* b;
  size_t b_row;
  size_t k_begin, k_end;
  size_t first_row;
  Triangle triangle;
};

// Whether the product reads A(row, kk) (Triangle: the others are zero).
bool reads_a(Triangle triangle, size_t row, size_t kk) {
  return !(triangle == Triangle::lower_a && kk > row) &&
         !(triangle == Triangle::upper_a && kk < row);
}

// sums[r][c / 2][c % 2] = Σ A(r, kk) · B(kk, c) over kk = 0 … k − 1 in order, in double, for
// r < rows and c < cols (the other sums are of zeros). Inlined with constant rows and cols (a whole
// tile), its sums stay in registers: 8 of the 16 SSE registers x86-64 always has, B's row 2 more,
// A's value 1. Written as scalar loops, GCC vectorised them its own way, widening A four rows at a
// time into 8 registers, and kept two to four of the sums on the stack: a load and a store in each
// step of their chains, and the CPU backend 20% slower.
// With kTriangular, A's zeros by the triangle are taken as zero (a template parameter, so that the
// plain product's inner loop tests nothing).
template <bool kTriangular>
[[gnu::always_inline]] inline void tile_sums(const TileOperands& o, size_t rows, size_t cols,
                                             TileSums& sums) {
  sums = {};
  for (size_t kk = o.k_begin; kk < o.k_end; ++kk) {
    const float* b_row = o.b + kk * o.b_row;
    auto b_at = [&](size_t c) { return c < cols ? static_cast<double>(b_row[c]) : 0.0; };
    const DoublePair b_low = {b_at(0), b_at(1)};
    const DoublePair b_high = {b_at(2), b_at(3)};
    for (size_t r = 0; r < rows; ++r) {
      const double a_value = !kTriangular || reads_a(o.triangle, o.first_row + r, kk)
                                 ? static_cast<double>(o.a[r * o.a_row + kk * o.a_k])
                                 : 0.0;
      const DoublePair a_pair = {a_value, a_value};
      sums[r][0] += a_pair * b_low;
      sums[r][1] += a_pair * b_high;
    }
  }
}

}  // namespace

// The definition: each output element's sum runs over kk = 0 … k − 1 in order, in double (every
// product of two floats is exact there), then the scale and the epilogue; a triangle's zeros of A
// are left out of the sums (adding a zero changes no sum), its zeros of the output are written
// without a sum. The loops run tile by
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
          // The k a triangular A's rows row0 … row0 + rows − 1 read.
          const size_t k_begin = g.triangle == Triangle::upper_a ? row0 : 0;
          const size_t k_end = g.triangle == Triangle::lower_a ? row0 + rows : g.k;
          const TileOperands operands{g.trans_a ? a_batch + row0 : a_batch + row0 * g.k,
                                      g.trans_a ? 1 : g.k,
                                      g.trans_a ? g.m : 1,
                                      b_rows + tile_col,
                                      b_row,
                                      k_begin,
                                      k_end,
                                      row0,
                                      g.triangle};
          const bool above_diagonal =
              g.triangle == Triangle::lower_output && col0 + tile_col >= row0 + rows;
          if (above_diagonal) {
            sums = {};
          } else if (g.triangle == Triangle::lower_a || g.triangle == Triangle::upper_a) {
            tile_sums<true>(operands, rows, cols, sums);
          } else if (rows == kCpuTile && cols == kCpuTile) {
            tile_sums<false>(operands, kCpuTile, kCpuTile, sums);
          } else {
            tile_sums<false>(operands, rows, cols, sums);
          }
          for (size_t r = 0; r < rows; ++r) {
            for (size_t c = 0; c < cols; ++c) {
              const size_t col = col0 + tile_col + c;
              const size_t at =
                  (batch * g.m + row0 + r) * g.out_row_stride + g.out_col_offset + col;
              if (g.triangle == Triangle::lower_output && col > row0 + r) {
                out[at] = 0.0f;
                continue;
              }
              float value =
                  static_cast<float>(sums[r][c / 2][c % 2]) * g.scale + (bias ? bias[col] : 0.0f);
              if (epilogue.gelu) value = gelu_tanh(value);
              out[at] = value + (residual ? residual[at] : 0.0f);
            }
          }
        }
      }
    }
  }
}

}  // namespace wgpt::ops::detail
