#include <algorithm>
#include <cmath>
#include <numeric>

#include "wgpt/generate.h"

namespace wgpt::generate {

Sampler::Sampler(SamplingOptions options) : options_(options), state_(options.seed) {
  if (!options_.greedy && !(options_.temperature > 0.0f)) {
    throw Error("temperature must be positive (use greedy decoding for temperature 0)");
  }
  if (!(options_.top_p > 0.0f && options_.top_p <= 1.0f)) throw Error("top-p must be in (0, 1]");
}

double Sampler::uniform() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

uint32_t Sampler::next(std::span<const float> logits) {
  if (logits.empty()) throw Error("cannot sample from an empty row of logits");
  if (options_.greedy) {
    return static_cast<uint32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  }
  // Candidates in descending order of logit, ties by lower id.
  std::vector<uint32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0u);
  const size_t keep = options_.top_k ? std::min(options_.top_k, order.size()) : order.size();
  auto by_logit = [&](uint32_t a, uint32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(keep), order.end(),
                    by_logit);
  order.resize(keep);

  std::vector<double> weights(keep);
  const double top = logits[order[0]];
  double total = 0;
  for (size_t i = 0; i < keep; ++i) {
    weights[i] = std::exp((logits[order[i]] - top) / options_.temperature);
    total += weights[i];
  }
  // Nucleus: the shortest prefix whose probability reaches top_p.
  size_t nucleus = keep;
  if (options_.top_p < 1.0f) {
    double mass = 0;
    for (size_t i = 0; i < keep; ++i) {
      mass += weights[i] / total;
      if (mass >= options_.top_p) {
        nucleus = i + 1;
        break;
      }
    }
  }
  const double kept_total =
      std::accumulate(weights.begin(), weights.begin() + static_cast<ptrdiff_t>(nucleus), 0.0);
  const double target = uniform() * kept_total;
  double running = 0;
  for (size_t i = 0; i < nucleus; ++i) {
    running += weights[i];
    if (target < running) return order[i];
  }
  return order[nucleus - 1];
}

}  // namespace wgpt::generate
