// Teacher-forced surprisal of one window without blocking (the browser's `score`): the forward pass
// is recorded at once, its logits come back through to_cpu_async, and the scores are computed on
// the host as model::surprisal computes them.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

// −log2 softmax(row)[id], through the log-sum-exp shifted by the row's maximum.
double bits_of(std::span<const float> row, uint32_t id) {
  const double top = *std::max_element(row.begin(), row.end());
  double total = 0;
  for (float logit : row) total += std::exp(static_cast<double>(logit) - top);
  return -(static_cast<double>(row[id]) - top - std::log(total)) / std::numbers::ln2;
}

model::Surprisal scores(const std::vector<uint32_t>& ids, const Tensor& logits, size_t top_k) {
  const std::span<const float> values = logits.floats();
  const size_t vocab = logits.dim(-1);
  model::Surprisal result;
  result.windows = 1;
  result.tokens.push_back({ids[0], std::nullopt, {}});
  double total_bits = 0;
  for (size_t target = 1; target < ids.size(); ++target) {
    // Row target − 1 predicts token `target`.
    const auto row = values.subspan((target - 1) * vocab, vocab);
    model::TokenSurprisal token{ids[target], bits_of(row, ids[target]),
                                model::top_tokens(row, std::min(top_k, vocab))};
    total_bits += *token.bits;
    result.tokens.push_back(std::move(token));
  }
  result.mean_bits = total_bits / static_cast<double>(ids.size() - 1);
  result.perplexity = std::exp2(result.mean_bits);
  return result;
}

}  // namespace

void score_async(const model::Model& model, std::vector<uint32_t> ids, size_t top_k,
                 std::function<void(Result<model::Surprisal>)> done) {
  Tensor logits;
  try {
    if (ids.size() < 2) {
      throw Error("scoring needs at least two tokens (the first has nothing to predict it), got " +
                  std::to_string(ids.size()));
    }
    if (ids.size() > model.config().n_ctx) {
      throw Error("the text has " + std::to_string(ids.size()) +
                  " tokens, more than the model's context of " +
                  std::to_string(model.config().n_ctx) + " that one pass can score");
    }
    model::KvCache cache = model.new_cache();
    // Every row but the last predicts a token of the text.
    logits = model.forward(ids, cache).logits.rows(0, ids.size() - 1);
  } catch (const Error& error) {
    return done(error);
  }
  logits.to_cpu_async([ids = std::move(ids), top_k, done](Result<Tensor> host) {
    if (!host.ok()) return done(host.error());
    done(scores(ids, host.value(), top_k));
  });
}

}  // namespace wgpt::generate
