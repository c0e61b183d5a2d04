// score_rows: a row's surprisal, softmax statistics and top k, reduced where the logits are.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>

#include "ops/cross_entropy_checks.h"
#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "score_rows";

void score_on_host(std::span<const float> row, uint32_t target, size_t k, std::span<float> stats,
                   std::span<uint32_t> top) {
  const double largest = *std::max_element(row.begin(), row.end());
  double sum = 0;
  for (float x : row) sum += std::exp(x - largest);
  stats[0] = static_cast<float>((largest + std::log(sum) - row[target]) / std::numbers::ln2);
  stats[1] = static_cast<float>(largest);
  stats[2] = static_cast<float>(sum);
  std::vector<uint32_t> ids(row.size());
  std::iota(ids.begin(), ids.end(), 0u);
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(),
                    [&](uint32_t a, uint32_t b) {
                      const uint32_t ka = rank_key(row[a]), kb = rank_key(row[b]);
                      return ka > kb || (ka == kb && a < b);
                    });
  for (size_t i = 0; i < k; ++i) {
    top[2 * i] = ids[i];
    std::memcpy(&top[2 * i + 1], &row[ids[i]], sizeof(float));
  }
}

}  // namespace

RowScores score_rows(const Tensor& logits, const Tensor& targets, size_t k) {
  detail::check_cross_entropy(kOp, logits, targets);
  const auto& context = detail::common_context(kOp, {&logits, &targets});
  const size_t rows = logits.dim(0), vocab = logits.dim(1);
  if (k > vocab) {
    detail::fail(kOp, "k " + std::to_string(k) + " is more than the " + std::to_string(vocab) +
                          " logits of a row");
  }
  RowScores out{detail::new_output(logits, {rows, 3}),
                detail::new_output(logits, {rows, std::max<size_t>(k, 1), 2}, DType::u32)};
  if (!context) {
    auto x = logits.floats();
    auto ids = targets.u32s();
    for (size_t r = 0; r < rows; ++r) {
      score_on_host(x.subspan(r * vocab, vocab), ids[r], k, out.stats.floats().subspan(r * 3, 3),
                    out.top.u32s().subspan(r * std::max<size_t>(k, 1) * 2, 2 * k));
    }
  } else if (rows > 0) {
    std::array<uint32_t, 3> params = {detail::word(kOp, rows), detail::word(kOp, vocab),
                                      detail::word(kOp, k)};
    context->dispatch(kOp, params,
                      detail::Bindings(kOp, {logits, targets}, {out.stats, out.top}).ranges(),
                      detail::linear_grid(kOp, *context, rows, 1));
  }
  out.top = out.top.view(0, {rows, k, 2});
  return out;
}

}  // namespace wgpt::ops
