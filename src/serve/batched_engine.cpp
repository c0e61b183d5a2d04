#include "serve/batched_engine.h"

#include <cstring>

#include "serve/step_outputs.h"
#include "wgpt/ops.h"
#include "wgpt/sampling.h"

namespace wgpt::serve {

BatchedEngine::BatchedEngine(const model::Model& model, size_t slots)
    : model_(model), decoder_(model, slots), slots_(slots) {}

void BatchedEngine::begin(size_t slot, const generate::SamplingOptions& sampling) {
  decoder_.cache(slot).clear();
  slots_.at(slot) = {sampling, {}};
}

bool BatchedEngine::batches(const StepInput& input) {
  return input.ids.size() == 1 && decoder_.cache(input.slot).length() > 0 &&
         !input.report.attention;
}

bool BatchedEngine::plain_greedy(const StepInput& input) const {
  const generate::SamplingOptions& sampling = slots_[input.slot].sampling;
  return sampling.is_greedy() && !sampling.adjusts_logits() && !input.report.logprob &&
         input.report.top == 0;
}

std::vector<StepOutput> BatchedEngine::step(std::span<const StepInput> batch) {
  std::vector<StepOutput> outputs(batch.size());
  std::vector<size_t> together;
  for (size_t i = 0; i < batch.size(); ++i) {
    const StepInput& input = batch[i];
    if (input.slot >= slots_.size()) {
      throw Error("slot " + std::to_string(input.slot) + " is outside the engine's " +
                  std::to_string(slots_.size()));
    }
    std::vector<uint32_t>& context = slots_[input.slot].context;
    context.insert(context.end(), input.ids.begin(), input.ids.end());
    if (batches(input)) {
      together.push_back(i);
    } else {
      outputs[i] = step_alone(input);
    }
  }
  if (!together.empty()) step_together(batch, together, outputs);
  return outputs;
}

StepOutput BatchedEngine::step_alone(const StepInput& input) {
  StepOutput output;
  const Slot& slot = slots_[input.slot];
  const std::vector<float> logits =
      forward_logits(model_, decoder_.cache(input.slot), input, output);
  output.token = model::choose_token(logits, slot.context, slot.sampling).token;
  describe(logits, input.report, output);
  return output;
}

void BatchedEngine::step_together(std::span<const StepInput> batch, std::span<const size_t> rows,
                                  std::vector<StepOutput>& outputs) {
  std::vector<uint32_t> slots, tokens;
  bool any_greedy = false;
  for (size_t i : rows) {
    slots.push_back(static_cast<uint32_t>(batch[i].slot));
    tokens.push_back(batch[i].ids[0]);
    any_greedy = any_greedy || plain_greedy(batch[i]);
  }
  const std::shared_ptr<gpu::Context>& context = model_.context();
  const size_t vocab = model_.config().vocab_size;
  gpu::Scope scope(*context);  // the step, the argmax and the readback copies: one submit
  const Tensor logits = decoder_.step(slots, tokens);
  // What comes back: the argmax of every row (when any row wants it), then the logits of each
  // row that chooses on the host.
  std::vector<gpu::BufferRange> regions;
  Tensor best;
  if (any_greedy) {
    // score_rows' top 1 is the first maximum; its targets only feed the surprisal, unused here.
    Tensor targets = Tensor::empty_gpu(context, {rows.size()}, DType::u32);
    const std::vector<uint32_t> zeros(rows.size(), 0);
    context->write(targets.buffer(), targets.offset() * 4, std::as_bytes(std::span(zeros)));
    best = ops::score_rows(logits, targets, 1).top;
    regions.emplace_back(best.buffer(), best.offset() * 4, rows.size() * 2 * 4);
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!plain_greedy(batch[rows[r]])) {
      regions.emplace_back(logits.buffer(), (logits.offset() + r * vocab) * 4, vocab * 4);
    }
  }
  const std::vector<std::vector<std::byte>> bytes = context->readback_many(regions);
  size_t next_region = any_greedy ? 1 : 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    const StepInput& input = batch[rows[r]];
    StepOutput& output = outputs[rows[r]];
    if (plain_greedy(input)) {
      std::memcpy(&output.token, bytes[0].data() + r * 2 * 4, 4);
      continue;
    }
    std::vector<float> row(vocab);
    std::memcpy(row.data(), bytes[next_region++].data(), vocab * 4);
    const Slot& slot = slots_[input.slot];
    output.token = model::choose_token(row, slot.context, slot.sampling).token;
    describe(row, input.report, output);
  }
}

}  // namespace wgpt::serve
