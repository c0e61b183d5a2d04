#pragma once
// The seam between the scheduler and the model: one call advances every active sequence by one
// token. SequentialEngine runs the sequences one after another through the B = 1 decode path; a
// batched engine replaces it with one GPU step for the whole batch. Whichever runs the step, a
// sequence's tokens depend only on its own prompt, sampling options and seed — never on what else
// is in the batch.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "wgpt/generate.h"
#include "wgpt/probe.h"

namespace wgpt::serve {

// What a step reports for a sequence besides its next token.
struct StepReport {
  bool logprob = false;    // the chosen token's log-probability
  size_t top = 0;          // the n most likely next tokens with their probabilities
  bool attention = false;  // every layer's attention row for the newest position
};

struct StepInput {
  size_t slot = 0;
  std::span<const uint32_t> ids;  // the prompt at a sequence's first step, then its last token
  StepReport report;
};

// Probabilities are under the model's distribution, softmax(logits): before temperature, top-k
// and top-p, as the probe and /v1/score report them.
struct StepOutput {
  uint32_t token = 0;
  float logprob = 0;                 // ln p(token), when asked
  std::vector<model::TopToken> top;  // most likely first, ties by lower id, when asked
  size_t kv_len = 0;                 // keys the attention rows cover (the cache after the step)
  std::vector<float> attention;      // [n_layer][n_head][kv_len], when asked
};

class StepEngine {
 public:
  virtual ~StepEngine() = default;
  // How many sequences can be in flight at once: each slot owns a KV cache.
  virtual size_t slots() const = 0;
  // "batched" or "sequential": what `wgpt serve` says it runs (`--engine auto` chooses one).
  virtual std::string_view name() const = 0;
  // A sequence takes `slot`: its cache starts empty and it samples with `sampling` from its seed.
  virtual void begin(size_t slot, const generate::SamplingOptions& sampling) = 0;
  // Runs every input's ids at its slot's next positions and chooses each slot's next token; one
  // output per input, in order. Throws wgpt::Error when the step fails (the whole batch failed).
  virtual std::vector<StepOutput> step(std::span<const StepInput> batch) = 0;
};

}  // namespace wgpt::serve
