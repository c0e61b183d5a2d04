#pragma once
// What the step engines share besides the model: a step's reports from its logits on the host, and
// the general forward pass for a step the engine's fast path does not take (a prompt, or a step
// that reports attention).

#include <span>
#include <vector>

#include "serve/step_engine.h"
#include "wgpt/model.h"

namespace wgpt::serve {

// The chosen token's log-probability and the most likely tokens under softmax(logits), as
// `report` asks, into `output` (whose token is chosen); nothing when it asks for neither.
void describe(std::span<const float> logits, const StepReport& report, StepOutput& output);

// Runs `input.ids` through Model::forward on `cache` and returns the next position's logits, or,
// when the report asks for attention, through the probe (model::trace_step), filling `output`'s
// attention rows and kv_len.
std::vector<float> forward_logits(const model::Model& model, model::KvCache& cache,
                                  const StepInput& input, StepOutput& output);

// The trace's logits, its newest attention rows copied into `output` ([n_layer][n_head][kv_len]).
std::vector<float> take_trace(const model::Config& config, model::StepTrace trace,
                              StepOutput& output);

}  // namespace wgpt::serve
