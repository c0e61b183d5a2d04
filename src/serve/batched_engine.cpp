#include "serve/batched_engine.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "serve/step_outputs.h"
#include "wgpt/ops.h"
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
  // The rows that choose on the host; the i-th reads region first_region + i.
  std::vector<size_t> on_host;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (plain_greedy(batch[rows[r]])) {
      std::memcpy(&outputs[rows[r]].token, bytes[0].data() + r * 2 * 4, 4);
    } else {
      on_host.push_back(r);
    }
  }
  const size_t first_region = any_greedy ? 1 : 0;
  for_each_row(on_host.size(), [&](size_t i) {
    const StepInput& input = batch[rows[on_host[i]]];
    StepOutput& output = outputs[rows[on_host[i]]];
    std::vector<float> row(vocab);
    std::memcpy(row.data(), bytes[first_region + i].data(), vocab * 4);
    const Slot& slot = slots_[input.slot];
    output.token = model::choose_token(row, slot.context, slot.sampling).token;
    describe(row, input.report, output);
  });
}

}  // namespace wgpt::serve
