#include <algorithm>
#include <limits>
#include <string>

#include "ops/kernel_call.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "embedding";

void validate_tables(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe) {
  detail::require_dtype(kOp, "ids", ids, DType::u32);
  detail::require_rank(kOp, "ids", ids, 1);
  detail::require_dtype(kOp, "wpe", wpe, DType::f32);
  detail::require_rank(kOp, "wpe", wpe, 2);
  if (wte_chunks.empty()) detail::fail(kOp, "no token table");
  for (const Tensor& chunk : wte_chunks) {
    if (chunk.dtype() != DType::f32 && !is_packed(chunk.dtype())) {
      detail::fail(kOp, "wte must be f32, f16, bf16 or q4, got " + chunk.describe());
    }
    detail::require_rank(kOp, "wte", chunk, 2);
    if (chunk.dim(1) != wpe.dim(1)) {
      detail::fail(kOp,
                   "wte " + chunk.describe() + " and wpe " + wpe.describe() + " differ in width");
    }
  }
}

void validate(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
              size_t pos_offset) {
  validate_tables(ids, wte_chunks, wpe);
  if (pos_offset + ids.numel() > wpe.dim(0)) {
    detail::fail(kOp, std::to_string(ids.numel()) + " tokens at position " +
                          std::to_string(pos_offset) + " run past wpe " + wpe.describe());
  }
}

void validate(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
              const Tensor& positions) {
  validate_tables(ids, wte_chunks, wpe);
  detail::require_dtype(kOp, "positions", positions, DType::u32);
  if (positions.shape() != ids.shape()) {
    detail::fail(kOp, "positions " + positions.describe() + " and ids " + ids.describe() +
                          " differ in shape");
  }
}

// Row `row` of a packed table widened to f32 (a view cannot start inside a packed word or block).
std::vector<float> widened_row(const Tensor& table, size_t row, size_t cols) {
  const size_t granule = table.dtype() == DType::q4 ? kQ4Block : 2;
  const size_t first = row * cols / granule * granule;
  const size_t end = std::min(table.numel(), row * cols + cols);
  const std::vector<float> values =
      table.reshape({table.numel()}).view(first, {end - first}).to_floats();
  return {values.begin() + static_cast<std::ptrdiff_t>(row * cols - first), values.end()};
}

// Row `token` takes position positions[token], or pos_offset + token without `positions`.
void embedding_cpu(std::span<const uint32_t> ids, const std::vector<Tensor>& wte_chunks,
                   std::span<const float> wpe, size_t pos_offset,
                   std::span<const uint32_t> positions, size_t cols, std::span<float> out) {
  for (size_t token = 0; token < ids.size(); ++token) {
    size_t row = ids[token];
    auto chunk = wte_chunks.begin();
    while (chunk != wte_chunks.end() && row >= chunk->dim(0)) row -= (chunk++)->dim(0);
    if (chunk == wte_chunks.end()) {
      detail::fail(kOp, "token id " + std::to_string(ids[token]) + " is past the token table");
    }
    std::vector<float> widened;
    std::span<const float> table_row;
    if (chunk->dtype() == DType::f32) {
      table_row = chunk->floats().subspan(row * cols, cols);
    } else {
      widened = widened_row(*chunk, row, cols);
      table_row = widened;
    }
    const size_t position = positions.empty() ? pos_offset + token : positions[token];
    if ((position + 1) * cols > wpe.size()) {
      detail::fail(kOp, "position " + std::to_string(position) + " is past the position table");
    }
    for (size_t c = 0; c < cols; ++c) {
      out[token * cols + c] = table_row[c] + wpe[position * cols + c];
    }
  }
}

// One dispatch per chunk, each writing the tokens whose ids fall in its rows. Without per-row
// `positions` the kernel's positions binding gets the ids, which it then never reads.
void embedding_gpu(gpu::Context& context, const Tensor& ids, const std::vector<Tensor>& wte_chunks,
                   const Tensor& wpe, size_t pos_offset, const Tensor* positions,
                   const Tensor& out) {
  gpu::Scope scope(context);
  size_t row_start = 0;
  for (size_t i = 0; i < wte_chunks.size(); ++i) {
    size_t row_end = row_start + wte_chunks[i].dim(0);
    const kernels::embedding::Params params{.n = detail::word(kOp, out.numel()),
                                            .cols = detail::word(kOp, out.dim(1)),
                                            .pos_offset = detail::word(kOp, pos_offset),
                                            .row_start = detail::word(kOp, row_start),
                                            .row_end = detail::word(kOp, row_end),
                                            .is_last = i + 1 == wte_chunks.size() ? 1u : 0u,
                                            .per_row = positions ? 1u : 0u,
                                            .missing = std::numeric_limits<float>::quiet_NaN()};
    detail::Bindings bound(kOp, {ids, wte_chunks[i], wpe, positions ? *positions : ids}, {out});
    const auto& r = bound.ranges();
    detail::dispatch<kernels::embedding>(context, {.weights = wte_chunks[i].dtype()}, params,
                                         {r[0], r[1], r[2], r[3], r[4]},
                                         detail::linear_grid(kOp, context, out.numel()));
    row_start = row_end;
  }
}

// Validated: the rows at pos_offset + i, or at positions[i] when `positions` is given.
Tensor embed(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
             size_t pos_offset, const Tensor* positions) {
  std::vector<const Tensor*> tensors = {&ids, &wpe};
  if (positions) tensors.push_back(positions);
  for (const Tensor& chunk : wte_chunks) tensors.push_back(&chunk);
  const auto& context = detail::common_context(kOp, tensors);
  size_t cols = wpe.dim(1);
  Tensor out = detail::new_output(ids, {ids.numel(), cols});
  if (!context) {
    embedding_cpu(ids.u32s(), wte_chunks, wpe.floats(), pos_offset,
                  positions ? positions->u32s() : std::span<const uint32_t>(), cols, out.floats());
  } else if (out.numel() > 0) {
    embedding_gpu(*context, ids, wte_chunks, wpe, pos_offset, positions, out);
  }
  return out;
}

}  // namespace

Tensor embedding(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
                 size_t pos_offset) {
  validate(ids, wte_chunks, wpe, pos_offset);
  return embed(ids, wte_chunks, wpe, pos_offset, nullptr);
}

Tensor embedding(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
                 const Tensor& positions) {
  validate(ids, wte_chunks, wpe, positions);
  return embed(ids, wte_chunks, wpe, 0, &positions);
}

Tensor embedding(const Tensor& ids, const Tensor& wte, const Tensor& wpe, size_t pos_offset) {
  return embedding(ids, std::vector<Tensor>{wte}, wpe, pos_offset);
}

}  // namespace wgpt::ops
