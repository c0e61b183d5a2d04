#include "serve/step_outputs.h"

#include <algorithm>
#include <cmath>

#include "wgpt/probe.h"

namespace wgpt::serve {

// One pass for the softmax's normaliser serves both reports.
void describe(std::span<const float> logits, const StepReport& report, StepOutput& output) {
  if (!report.logprob && report.top == 0) return;
  const float largest = *std::max_element(logits.begin(), logits.end());
  double normaliser = 0;
  for (float logit : logits) normaliser += std::exp(static_cast<double>(logit) - largest);
  if (report.logprob) {
    output.logprob = static_cast<float>(static_cast<double>(logits[output.token]) - largest -
                                        std::log(normaliser));
  }
  if (report.top > 0) output.top = model::top_tokens(logits, report.top, largest, normaliser);
}

std::vector<float> forward_logits(const model::Model& model, model::KvCache& cache,
                                  const StepInput& input, StepOutput& output) {
  if (!input.report.attention) {
    return model.forward(input.ids, cache, {.all_logits = false}).logits.to_floats();
  }
  return take_trace(model.config(), model::trace_step(model, input.ids, cache, {}), output);
}

std::vector<float> take_trace(const model::Config& config, model::StepTrace trace,
                              StepOutput& output) {
  output.kv_len = trace.kv_len;
  for (size_t layer = 0; layer < config.n_layer; ++layer) {
    for (size_t head = 0; head < trace.n_head; ++head) {
      const std::span<const float> row = trace.newest_attention(layer, head);
      output.attention.insert(output.attention.end(), row.begin(), row.end());
    }
  }
  return std::move(trace.logits);
}

}  // namespace wgpt::serve
