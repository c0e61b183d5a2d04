#include "model/sampling_terms.h"

#include "wgpt/counter_hash.h"

namespace wgpt::model::sampling {
namespace {

uint64_t stream_key(uint64_t seed) { return ops::mix64(seed + 0x9e3779b97f4a7c15ull); }

}  // namespace

Terms terms_of(const SamplingOptions& options) {
  Terms terms;
  if (!options.is_greedy()) terms.inv_temperature = 1.0f / options.temperature;
  terms.inv_repeat = 1.0f / options.repeat_penalty;
  terms.key = stream_key(options.seed);
  return terms;
}

uint64_t nucleus_target(float p, uint64_t total) {
  const float target = p * sum_as_float(total);
  const float high = std::floor(target * 0x1p-32f);
  const float rest = target - high * 0x1p32f;  // exact: the bits of target below 2³²
  return (static_cast<uint64_t>(high) << 32) + static_cast<uint64_t>(std::ceil(rest));
}

}  // namespace wgpt::model::sampling

namespace wgpt::model {

uint32_t random_word(uint64_t seed, uint64_t n) {
  return ops::counter_word(sampling::terms_of({.seed = seed}).key, static_cast<uint32_t>(n));
}

}  // namespace wgpt::model
