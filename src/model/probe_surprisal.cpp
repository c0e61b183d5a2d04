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

}  // namespace

SurprisalScorer::SurprisalScorer(const Config& config, std::span<const uint32_t> ids,
                                 const SurprisalOptions& options)
    : options_(options), vocab_(config.vocab_size) {
  const size_t window = config.n_ctx;
  if (ids.size() < 2) {
    throw Error("scoring needs at least two tokens (the first has nothing to predict it), got " +
                std::to_string(ids.size()));
  }
  if (window < 2) throw Error("scoring needs a context of at least two positions");
  for (uint32_t id : ids) {
    if (id >= vocab_) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(vocab_));
    }
    result_.tokens.push_back({id, std::nullopt, {}});
  }
  // Below n_ctx, so that every window after the first overlaps the one before it: each target
  // then has a token before it inside its window.
  result_.stride = std::clamp<size_t>(options.stride ? options.stride : window / 2, 1, window - 1);
  size_t scored_until = 1;  // tokens [1, scored_until) are scored by earlier windows
  for (size_t begin = 0;; begin += result_.stride) {
    const size_t end = std::min(begin + window, ids.size());
    windows_.push_back({begin, end, scored_until});
    scored_until = end;
    if (end == ids.size()) break;
  }
}

void SurprisalScorer::add(const SurprisalWindow& window, std::span<const float> rows) {
  const size_t top_k = std::min(options_.top_k, vocab_);
  for (size_t target = window.first_target; target < window.end; ++target) {
    const std::span<const float> row =
        rows.subspan((target - window.first_target) * vocab_, vocab_);
    TokenSurprisal& token = result_.tokens[target];
    token.bits = bits_of(row, token.id);
    token.alternatives = top_tokens(row, top_k);
    total_bits_ += *token.bits;
  }
  ++result_.windows;
  if (options_.on_window) options_.on_window(result_.windows, windows_.size());
}

Surprisal SurprisalScorer::result() {
  result_.mean_bits = total_bits_ / static_cast<double>(result_.tokens.size() - 1);
  result_.perplexity = std::exp2(result_.mean_bits);
  return std::move(result_);
}

Surprisal surprisal(const Model& model, std::span<const uint32_t> ids,
                    const SurprisalOptions& options) {
  SurprisalScorer scorer(model.config(), ids, options);
  for (const SurprisalWindow& window : scorer.windows()) {
    KvCache cache = model.new_cache();
    const ForwardOutput out =
        model.forward(ids.subspan(window.begin, window.end - window.begin), cache);
    // Row r of the pass predicts token begin + r + 1: read back only this window's targets.
    const size_t first_row = window.first_target - 1 - window.begin;
    scorer.add(window, out.logits.rows(first_row, window.end - window.first_target).to_floats());
  }
  return scorer.result();
}

}  // namespace wgpt::model
