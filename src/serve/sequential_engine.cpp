#include "serve/sequential_engine.h"

#include "serve/step_outputs.h"
#include "wgpt/decoder.h"

namespace wgpt::serve {

struct SequentialEngine::Slot {
  model::KvCache cache;
  std::unique_ptr<model::Decoder> decoder;  // bound to `cache`, where the model takes that path
  generate::SamplingOptions sampling;
  // The prompt and every token fed since begin(): the penalties' window and the draw's index.
  std::vector<uint32_t> context;

  // Whether this step continues the cache on the fused path: as generate(), the prefill (and
  // every step of a model the fused path cannot run) takes the general forward pass.
  bool decodes(const StepInput& input) const {
    return decoder && cache.length() > 0 && input.ids.size() == 1;
  }
};

SequentialEngine::SequentialEngine(const model::Model& model, size_t slots) : model_(model) {
  if (slots == 0) throw Error("the server needs at least one slot: --parallel must be 1 or more");
  for (size_t i = 0; i < slots; ++i) {
    auto slot = std::make_unique<Slot>(Slot{model.new_cache(), nullptr, {}, {}});
    if (model::Decoder::supported(model)) {
      slot->decoder = std::make_unique<model::Decoder>(model, slot->cache);
    }
    slots_.push_back(std::move(slot));
  }
}

SequentialEngine::~SequentialEngine() = default;

void SequentialEngine::begin(size_t slot, const generate::SamplingOptions& sampling) {
  Slot& s = *slots_.at(slot);
  s.cache.clear();
  s.sampling = sampling;
  s.context.clear();
}

std::vector<StepOutput> SequentialEngine::step(std::span<const StepInput> batch) {
  std::vector<StepOutput> outputs;
  outputs.reserve(batch.size());
  for (const StepInput& input : batch) outputs.push_back(step_one(*slots_.at(input.slot), input));
  return outputs;
}

StepOutput SequentialEngine::step_one(Slot& slot, const StepInput& input) const {
  StepOutput output;
  const StepReport& report = input.report;
  slot.context.insert(slot.context.end(), input.ids.begin(), input.ids.end());
  if (slot.decodes(input) && slot.sampling.is_greedy() && !slot.sampling.adjusts_logits() &&
      !report.logprob && report.top == 0 && !report.attention) {
    // The GPU chooses the token (first maximum, as the sampler) and 4 bytes come back.
    output.token = slot.decoder->step_greedy(input.ids[0]);
    return output;
  }
  const std::vector<float> logits = logits_of(slot, input, output);
  output.token = model::choose_token(logits, slot.context, slot.sampling).token;
  if (report.logprob || report.top > 0) describe(logits, report, output);
  return output;
}

std::vector<float> SequentialEngine::logits_of(Slot& slot, const StepInput& input,
                                               StepOutput& output) const {
  if (!slot.decodes(input)) return forward_logits(model_, slot.cache, input, output);
  if (!input.report.attention) return slot.decoder->step_logits(input.ids[0]);
  return take_trace(model_.config(), slot.decoder->step_traced(input.ids[0], 0), output);
}

}  // namespace wgpt::serve
