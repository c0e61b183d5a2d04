// Teacher-forced surprisal: how many bits each token cost the model, from one forward pass per
// window (HF's sliding-window perplexity for texts longer than the context).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "wgpt/probe.h"

namespace wgpt::model {
namespace {

// −log2 softmax(row)[id], through the log-sum-exp shifted by the row's maximum.
double bits_of(std::span<const float> row, uint32_t id) {
  const double top = *std::max_element(row.begin(), row.end());
  double total = 0;
  for (float logit : row) total += std::exp(static_cast<double>(logit) - top);
  const double log_p = static_cast<double>(row[id]) - top - std::log(total);
  return -log_p / std::numbers::ln2;
}

size_t window_count(size_t tokens, size_t window, size_t stride) {
  if (tokens <= window) return 1;
  return 1 + (tokens - window + stride - 1) / stride;
}

}  // namespace

Surprisal surprisal(const Model& model, std::span<const uint32_t> ids,
                    const SurprisalOptions& options) {
  const Config& config = model.config();
  const size_t vocab = config.vocab_size, window = config.n_ctx;
  if (ids.size() < 2) {
    throw Error("scoring needs at least two tokens (the first has nothing to predict it), got " +
                std::to_string(ids.size()));
  }
  if (window < 2) throw Error("scoring needs a context of at least two positions");
  for (uint32_t id : ids) {
    if (id >= vocab) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(vocab));
    }
  }
  Surprisal result;
  // Below n_ctx, so that every window after the first overlaps the one before it: each target
  // then has a token before it inside its window.
  result.stride = std::clamp<size_t>(options.stride ? options.stride : window / 2, 1, window - 1);
  const size_t top_k = std::min(options.top_k, vocab);
  const size_t windows = window_count(ids.size(), window, result.stride);
  for (uint32_t id : ids) result.tokens.push_back({id, std::nullopt, {}});

  double total_bits = 0;
  size_t scored_until = 1;  // tokens [1, scored_until) have their bits
  for (size_t begin = 0;; begin += result.stride) {
    const size_t end = std::min(begin + window, ids.size());
    KvCache cache = model.new_cache();
    const ForwardOutput out = model.forward(ids.subspan(begin, end - begin), cache);
    // Row r predicts token begin + r + 1: read back only the rows of this window's new targets.
    const size_t first_row = scored_until - 1 - begin;
    const std::vector<float> logits = out.logits.rows(first_row, end - scored_until).to_floats();
    for (size_t target = scored_until; target < end; ++target) {
      const std::span<const float> row(logits.data() + (target - scored_until) * vocab, vocab);
      TokenSurprisal& token = result.tokens[target];
      token.bits = bits_of(row, token.id);
      token.alternatives = top_tokens(row, top_k);
      total_bits += *token.bits;
    }
    scored_until = end;
    ++result.windows;
    if (options.on_window) options.on_window(result.windows, windows);
    if (end == ids.size()) break;
  }
  result.mean_bits = total_bits / static_cast<double>(ids.size() - 1);
  result.perplexity = std::exp2(result.mean_bits);
  return result;
}

}  // namespace wgpt::model
