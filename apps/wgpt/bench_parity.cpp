// `wgpt bench --precision both`: how far a mixed-precision prefill's logits are from f32's, the
// figure docs/precision.md's contract bounds (there on the fixtures, here on the bench's prompt).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench_parts.h"
#include "wgpt/error.h"

namespace wgpt::cli {

ParityReport logits_parity(const std::vector<float>& reference, const std::vector<float>& other,
                           size_t vocab) {
  if (vocab == 0 || reference.size() != other.size() || reference.size() % vocab != 0) {
    throw Error("logits of " + std::to_string(reference.size()) + " and " +
                std::to_string(other.size()) + " values are not rows of a vocabulary of " +
                std::to_string(vocab));
  }
  ParityReport report;
  report.positions = reference.size() / vocab;
  for (size_t row = 0; row < report.positions; ++row) {
    const auto r = reference.begin() + static_cast<std::ptrdiff_t>(row * vocab);
    const auto o = other.begin() + static_cast<std::ptrdiff_t>(row * vocab);
    for (size_t i = 0; i < vocab; ++i) {
      report.largest_difference =
          std::max(report.largest_difference, static_cast<double>(std::fabs(r[i] - o[i])));
      report.largest_magnitude =
          std::max(report.largest_magnitude, static_cast<double>(std::fabs(r[i])));
    }
    const auto vocab_end = static_cast<std::ptrdiff_t>(vocab);
    if (std::max_element(r, r + vocab_end) - r == std::max_element(o, o + vocab_end) - o) {
      ++report.argmax_equal;
    }
  }
  return report;
}

void bench_parity(model::Model& model, const std::vector<uint32_t>& ids) {
  const ops::Precision before = model.precision();
  std::vector<float> logits[2];
  for (ops::Precision precision : {ops::Precision::f32, ops::Precision::mixed}) {
    model.set_precision(precision);
    model::KvCache cache = model.new_cache();
    logits[precision == ops::Precision::mixed] =
        model.forward(ids, cache, {.all_logits = true}).logits.to_floats();
  }
  model.set_precision(before);
  const ParityReport p = logits_parity(logits[0], logits[1], model.config().vocab_size);
  std::printf(
      "\npp%zu parity, mixed against f32 over every position's logits: largest difference %.3g "
      "(largest f32 logit magnitude %.3g); the argmax agrees at %zu of %zu positions%s\n",
      ids.size(), p.largest_difference, p.largest_magnitude, p.argmax_equal, p.positions,
      model.context() && model.context()->limits().f16_matrix.available()
          ? ""
          : " (no tensor cores here: both precisions run the f32 kernels)");
}

}  // namespace wgpt::cli
