#include <array>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "embedding_backward";

// The token indices grouped by id, each group in token order: group v is
// order[first[v] .. first[v + 1]]. A counting sort, so stable.
struct TokensById {
  std::vector<uint32_t> first, order;
};

TokensById group_by_id(std::span<const uint32_t> ids, size_t vocab_size) {
  TokensById groups{std::vector<uint32_t>(vocab_size + 1, 0), std::vector<uint32_t>(ids.size())};
  for (uint32_t id : ids) ++groups.first[id + 1];
  for (size_t v = 0; v < vocab_size; ++v) groups.first[v + 1] += groups.first[v];
  std::vector<uint32_t> next(groups.first.begin(), groups.first.end() - 1);
  for (size_t i = 0; i < ids.size(); ++i) groups.order[next[ids[i]]++] = static_cast<uint32_t>(i);
  return groups;
}

void validate(std::span<const uint32_t> ids, const Tensor& dy, size_t vocab_size,
              size_t n_positions, size_t seq_len) {
  detail::require_dtype(kOp, "dy", dy, DType::f32);
  detail::require_rank(kOp, "dy", dy, 2);
  if (dy.dim(0) != ids.size() || ids.empty()) {
    detail::fail(kOp, "dy " + dy.describe() + " needs one row per id (" +
                          std::to_string(ids.size()) + " ids)");
  }
  if (seq_len == 0 || ids.size() % seq_len != 0 || seq_len > n_positions) {
    detail::fail(kOp, std::to_string(ids.size()) + " ids are not sequences of " +
                          std::to_string(seq_len) + " within " + std::to_string(n_positions) +
                          " positions");
  }
  for (uint32_t id : ids) {
    if (id >= vocab_size) {
      detail::fail(kOp, "token id " + std::to_string(id) + " is outside the vocabulary of " +
                            std::to_string(vocab_size));
    }
  }
}

}  // namespace

EmbeddingGrads embedding_backward(std::span<const uint32_t> ids, const Tensor& dy,
                                  size_t vocab_size, size_t n_positions, size_t seq_len) {
  validate(ids, dy, vocab_size, n_positions, seq_len);
  const size_t cols = dy.dim(1), sequences = ids.size() / seq_len;
  EmbeddingGrads grads{detail::new_output(dy, {vocab_size, cols}),
                       detail::new_output(dy, {n_positions, cols})};
  const TokensById groups = group_by_id(ids, vocab_size);
  const auto& context = dy.context();
  if (!context) {
    auto grad = dy.floats(), dwte = grads.dwte.floats(), dwpe = grads.dwpe.floats();
    for (size_t v = 0; v < vocab_size; ++v) {
      for (size_t j = groups.first[v]; j < groups.first[v + 1]; ++j) {
        for (size_t c = 0; c < cols; ++c) dwte[v * cols + c] += grad[groups.order[j] * cols + c];
      }
    }
    for (size_t b = 0; b < sequences; ++b) {
      for (size_t k = 0; k < seq_len * cols; ++k) dwpe[k] += grad[b * seq_len * cols + k];
    }
    return grads;
  }
  if (cols == 0) return grads;
  Tensor first = Tensor::from_u32(groups.first, {vocab_size + 1}).to_gpu(context);
  Tensor order = Tensor::from_u32(groups.order, {ids.size()}).to_gpu(context);
  std::array<uint32_t, 5> params = {detail::word(kOp, vocab_size), detail::word(kOp, cols),
                                    detail::word(kOp, n_positions), detail::word(kOp, seq_len),
                                    detail::word(kOp, sequences)};
  context->dispatch(kOp, params,
                    detail::Bindings(kOp, {first, order, dy}, {grads.dwte, grads.dwpe}).ranges(),
                    detail::linear_grid(kOp, *context, (vocab_size + n_positions) * cols));
  return grads;
}

}  // namespace wgpt::ops
