// The CPU reference of sampling: include/wgpt/sampling.h's definition as plain loops, with the
// margin of each decision (how far it is from changing).
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "model/sampling_terms.h"

namespace wgpt::model {
namespace {

using sampling::rank_key;

// Steps 1–2: the logits with their bias and the penalties of the context's window.
std::vector<float> adjusted(std::span<const float> logits, std::span<const uint32_t> context,
                            const SamplingOptions& options, const sampling::Terms& terms) {
  std::vector<float> a(logits.begin(), logits.end());
  for (const auto& [id, bias] : options.logit_bias) {
    if (id < a.size()) a[id] += bias;
  }
  if (!options.penalizes()) return a;
  const size_t window = std::min(options.penalty_last_n, context.size());
  std::map<uint32_t, uint32_t> counts;
  for (uint32_t token : context.last(window)) {
    if (token >= a.size()) {
      throw Error("sampling: the context holds token id " + std::to_string(token) +
                  ", outside the vocabulary of " + std::to_string(a.size()));
    }
    ++counts[token];
  }
  for (const auto& [token, count] : counts) {
    float& value = a[token];
    value = value > 0.0f ? value * terms.inv_repeat : value * options.repeat_penalty;
    value -= static_cast<float>(count) * options.frequency_penalty + options.presence_penalty;
  }
  return a;
}

// The ids in rank order (descending key, ties by lower id), sorted as far as `count`.
std::vector<uint32_t> ranked(const std::vector<uint32_t>& keys, size_t count) {
  std::vector<uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  auto better = [&](uint32_t a, uint32_t b) {
    return keys[a] > keys[b] || (keys[a] == keys[b] && a < b);
  };
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    better);
  order.resize(count);
  return order;
}

// The relative difference of two weights, 0 when equal.
double gap(double larger, double smaller) { return larger > 0 ? (larger - smaller) / larger : 0; }

Choice greedy_choice(const std::vector<float>& a) {
  std::vector<uint32_t> keys(a.size());
  for (size_t i = 0; i < a.size(); ++i) keys[i] = rank_key(a[i]);
  const std::vector<uint32_t> top = ranked(keys, std::min<size_t>(2, a.size()));
  const double margin =
      top.size() < 2 ? 1.0 : 1.0 - std::exp(static_cast<double>(a[top[1]]) - a[top[0]]);
  return {top[0], margin};
}

struct Candidates {
  std::vector<float> z;
  std::vector<uint32_t> keys;
  std::vector<uint32_t> q;  // fixed-point weights
  std::vector<double> w;    // the weights, for the margins
  float largest = 0;        // max z
};

Candidates weigh(const std::vector<float>& a, float inv_temperature) {
  Candidates c;
  c.z.resize(a.size());
  c.keys.resize(a.size());
  uint32_t best = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    c.z[i] = a[i] * inv_temperature;
    c.keys[i] = rank_key(c.z[i]);
    if (c.keys[i] > c.keys[best]) best = static_cast<uint32_t>(i);
  }
  c.largest = c.z[best];
  c.q.resize(a.size());
  c.w.resize(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    c.q[i] = sampling::fixed_weight(c.z[i], c.largest);
    c.w[i] = std::exp(static_cast<double>(c.z[i]) - c.largest);
  }
  return c;
}

// Steps 6–7: the best ranks top-k and top-p keep, narrowing `margin` by each cut's.
std::vector<uint32_t> rank_cuts(const Candidates& c, const SamplingOptions& options,
                                double& margin) {
  const size_t vocab = c.q.size();
  const size_t k = options.top_k == 0 ? vocab : std::min(options.top_k, vocab);
  std::vector<uint32_t> order = ranked(c.keys, std::min(k + 1, vocab));
  if (k < vocab) {
    margin = std::min(margin, gap(c.w[order[k - 1]], c.w[order[k]]));
    order.resize(k);
  }
  if (options.top_p >= 1.0f) return order;
  uint64_t total = 0;
  for (uint32_t id : order) total += c.q[id];
  const uint64_t target = sampling::nucleus_target(options.top_p, total);
  uint64_t running = 0;
  for (size_t r = 0; r < order.size(); ++r) {
    const uint64_t before = running;
    running += c.q[order[r]];
    if (running < target) continue;
    const double edge = static_cast<double>(std::min(target - before, running - target));
    margin = std::min(margin, edge / static_cast<double>(total));
    if (r + 1 < order.size()) margin = std::min(margin, gap(c.w[order[r]], c.w[order[r + 1]]));
    order.resize(r + 1);
    break;
  }
  return order;
}

// Step 8: min-p, a threshold on each weight.
std::vector<uint32_t> min_p_cut(const Candidates& c, std::vector<uint32_t> kept, float min_p,
                                double& margin) {
  if (min_p <= 0.0f) return kept;
  std::vector<uint32_t> passing;
  for (uint32_t id : kept) {
    if (std::exp(c.z[id] - c.largest) >= min_p) passing.push_back(id);
    margin = std::min(margin, std::fabs(c.w[id] - min_p) / min_p);
  }
  return passing;
}

// Step 9: the draw over the kept ids in ascending order.
Choice draw(const Candidates& c, std::vector<uint32_t> kept, uint32_t r, double margin) {
  std::sort(kept.begin(), kept.end());
  uint64_t total = 0;
  for (uint32_t id : kept) total += c.q[id];
  const uint64_t target = sampling::draw_target(r, total);
  uint64_t running = 0;
  for (uint32_t id : kept) {
    const uint64_t before = running;
    running += c.q[id];
    if (target >= running) continue;
    const double edge = static_cast<double>(std::min(target - before, running - target));
    return {id, std::min(margin, edge / static_cast<double>(total))};
  }
  return {kept.back(), 0};  // unreachable: the best token weighs 2³¹ and is always kept
}

}  // namespace

Choice choose_token(std::span<const float> logits, std::span<const uint32_t> context,
                    const SamplingOptions& options) {
  if (logits.empty()) throw Error("sampling: cannot choose from an empty row of logits");
  const sampling::Terms terms = sampling::terms_of(options);
  const std::vector<float> a = adjusted(logits, context, options, terms);
  if (options.is_greedy()) return greedy_choice(a);
  const Candidates c = weigh(a, terms.inv_temperature);
  double margin = 1.0;
  std::vector<uint32_t> kept;
  if (options.top_k == 0 && options.top_p >= 1.0f) {
    kept.resize(c.q.size());
    std::iota(kept.begin(), kept.end(), 0u);
  } else {
    kept = rank_cuts(c, options, margin);
  }
  kept = min_p_cut(c, std::move(kept), options.min_p, margin);
  return draw(c, std::move(kept), random_word(options.seed, context.size()), margin);
}

}  // namespace wgpt::model
