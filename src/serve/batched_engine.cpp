#include "serve/batched_engine.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "serve/step_outputs.h"
#include "wgpt/sampling.h"

namespace wgpt::serve {
namespace {

// Runs fn(0) .. fn(count − 1) over the machine's cores: the rows that choose on the host are
// independent of each other (each a softmax and a draw over the whole vocabulary). The first
// exception is rethrown here once every thread has finished.
void for_each_row(size_t count, const std::function<void(size_t)>& fn) {
  const size_t threads =
      std::min<size_t>(count, std::max<size_t>(1, std::thread::hardware_concurrency()));
  std::atomic<size_t> next = 0;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (size_t i; (i = next++) < count;) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

BatchedEngine::BatchedEngine(const model::Model& model, size_t slots)
    : model_(model), decoder_(model, slots), slots_(slots) {}

void BatchedEngine::begin(size_t slot, const generate::SamplingOptions& sampling) {
  decoder_.cache(slot).clear();
  Slot& s = slots_.at(slot);
  s = {sampling, {}, {}, {}, nullptr, false};
  if (sampling.is_greedy() && !sampling.adjusts_logits()) return;
  model::validate(sampling, model_.config());
  s.logits = Tensor::empty_gpu(model_.context(), {model_.config().vocab_size});
  s.state = Tensor::empty_gpu(model_.context(), {2}, DType::u32);
  s.sampler = std::make_unique<model::TokenSampler>(model_, sampling, s.logits, s.state);
}

bool BatchedEngine::batches(const StepInput& input) const {
  return !input.ids.empty() && input.ids.size() <= decoder_.max_rows() && !input.report.attention;
}

BatchedEngine::Choice BatchedEngine::choice_of(const StepInput& input) const {
  if (input.report.logprob || input.report.top > 0) return Choice::host;
  return slots_[input.slot].sampler ? Choice::sampler : Choice::argmax;
}

std::vector<StepOutput> BatchedEngine::step(std::span<const StepInput> batch) {
  std::vector<StepOutput> outputs(batch.size());
  // The batched inputs in groups whose rows fit one step, in order.
  std::vector<std::vector<size_t>> groups;
  size_t rows_in_last = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const StepInput& input = batch[i];
    if (input.slot >= slots_.size()) {
      throw Error("slot " + std::to_string(input.slot) + " is outside the engine's " +
                  std::to_string(slots_.size()));
    }
    std::vector<uint32_t>& context = slots_[input.slot].context;
    context.insert(context.end(), input.ids.begin(), input.ids.end());
    if (!batches(input)) {
      outputs[i] = step_alone(input);
      continue;
    }
    if (groups.empty() || rows_in_last + input.ids.size() > decoder_.max_rows()) {
      groups.emplace_back();
      rows_in_last = 0;
    }
    groups.back().push_back(i);
    rows_in_last += input.ids.size();
  }
  for (const std::vector<size_t>& together : groups) step_together(batch, together, outputs);
  return outputs;
}

StepOutput BatchedEngine::step_alone(const StepInput& input) {
  StepOutput output;
  Slot& slot = slots_[input.slot];
  slot.started = false;  // the sampler's state on the GPU misses this step
  const std::vector<float> logits =
      forward_logits(model_, decoder_.cache(input.slot), input, output);
  output.token = model::choose_token(logits, slot.context, slot.sampling).token;
  describe(logits, input.report, output);
  return output;
}

void BatchedEngine::step_together(std::span<const StepInput> batch,
                                  std::span<const size_t> together,
                                  std::vector<StepOutput>& outputs) {
  // A row per token; an input's last row gives its next token.
  std::vector<uint32_t> slots, tokens, last_rows;
  std::vector<Choice> choices;
  for (size_t i : together) {
    const StepInput& input = batch[i];
    for (uint32_t id : input.ids) {
      slots.push_back(static_cast<uint32_t>(input.slot));
      tokens.push_back(id);
    }
    last_rows.push_back(static_cast<uint32_t>(tokens.size() - 1));
    choices.push_back(choice_of(input));
    Slot& slot = slots_[input.slot];
    if (choices.back() != Choice::sampler) {
      slot.started = false;
    } else if (!slot.started) {
      slot.sampler->start(slot.context);  // queue writes: before the step is recorded
      slot.started = true;
    }
  }
  const std::shared_ptr<gpu::Context>& context = model_.context();
  const size_t vocab = model_.config().vocab_size;
  gpu::Scope scope(*context);  // the step, the samplers and the readback copies: one submit
  const model::BatchStep step = decoder_.step(slots, tokens);
  const Tensor& logits = step.logits;
  auto row_range = [&](size_t r) {
    return gpu::BufferRange(logits.buffer(), (logits.offset() + r * vocab) * 4, vocab * 4);
  };
  // The sampled inputs' logits into their slots' copies first, then their samplers: one compute
  // pass.
  for (size_t k = 0; k < together.size(); ++k) {
    if (choices[k] == Choice::sampler) {
      context->copy(row_range(last_rows[k]), slots_[batch[together[k]].slot].logits.range());
    }
  }
  // What comes back, a region per input: its argmax's id, its sampler's choice (the state's token)
  // or its logits.
  std::vector<gpu::BufferRange> regions;
  for (size_t k = 0; k < together.size(); ++k) {
    const Slot& slot = slots_[batch[together[k]].slot];
    if (choices[k] == Choice::argmax) {
      regions.emplace_back(step.best.buffer(), step.best.byte_offset() + last_rows[k] * 8, 4);
    } else if (choices[k] == Choice::sampler) {
      slot.sampler->record();
      regions.emplace_back(slot.state.buffer(), slot.state.byte_offset() + 4, 4);
    } else {
      regions.push_back(row_range(last_rows[k]));
    }
  }
  const std::vector<std::vector<std::byte>> bytes = context->readback_many(regions);
  std::vector<size_t> on_host;
  for (size_t k = 0; k < together.size(); ++k) {
    if (choices[k] == Choice::host) {
      on_host.push_back(k);
    } else {
      std::memcpy(&outputs[together[k]].token, bytes[k].data(), 4);
    }
  }
  for_each_row(on_host.size(), [&](size_t i) {
    const size_t k = on_host[i];
    const StepInput& input = batch[together[k]];
    StepOutput& output = outputs[together[k]];
    std::vector<float> row(vocab);
    std::memcpy(row.data(), bytes[k].data(), vocab * 4);
    const Slot& slot = slots_[input.slot];
    output.token = model::choose_token(row, slot.context, slot.sampling).token;
    describe(row, input.report, output);
  });
}

}  // namespace wgpt::serve
