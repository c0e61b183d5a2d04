// `wgpt bench --batch-decode 1,8,32,64`: the GPU step of `wgpt serve`'s batched engine for B
// sequences at once against the same B sequences one after another on the fused B = 1 path (the
// sequential engine's way), each greedy with its token chosen on the GPU as the server's greedy
// rows are — the step alone, without HTTP or the scheduler (`wgpt serve-bench` measures those).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>

#include "bench_parts.h"
#include "progress_line.h"
#include "wgpt/batch_decoder.h"
#include "wgpt/decoder.h"

namespace wgpt::cli {
namespace {

// Sequence i's prompt: `length` ids from its own stretch of the vocabulary.
std::vector<uint32_t> prompt_of(size_t sequence, size_t length, size_t vocab) {
  std::vector<uint32_t> ids(length);
  for (size_t i = 0; i < length; ++i) {
    ids[i] = static_cast<uint32_t>((sequence * 7919 + i * 2654435761u + 17) % vocab);
  }
  return ids;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Steps `rows` sequences after their prompts in one batched step each, greedily (the argmax on the
// GPU, read back): the step's plan replayed (`planned`, as the server runs it) or its general ops
// bound afresh. `on_step` runs after each step.
template <class OnStep>
void step_batched(const model::Model& model, size_t rows, size_t prompt, size_t count, bool planned,
                  OnStep on_step) {
  const std::shared_ptr<gpu::Context>& context = model.context();
  model::BatchDecoder decoder(model, rows);
  std::vector<uint32_t> slots(rows), tokens(rows);
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<uint32_t> ids = prompt_of(r, prompt, model.config().vocab_size);
    model.forward(ids, decoder.cache(r), {.all_logits = false});
    slots[r] = static_cast<uint32_t>(r);
    tokens[r] = ids.back();
  }
  for (size_t step = 0; step < count; ++step) {
    gpu::Scope scope(*context);
    const Tensor best =
        (planned ? decoder.step(slots, tokens) : decoder.step_general(slots, tokens)).best;
    const std::vector<std::byte> bytes =
        context->readback(best.buffer(), best.byte_offset(), rows * 8);
    for (size_t r = 0; r < rows; ++r) std::memcpy(&tokens[r], bytes.data() + r * 8, 4);
    on_step(step);
  }
}

// Seconds per step of `rows` sequences, after `warmup` untimed steps.
double batched_step_seconds(const model::Model& model, size_t rows, size_t prompt, size_t warmup,
                            size_t steps, bool planned) {
  auto start = std::chrono::steady_clock::now();
  step_batched(model, rows, prompt, warmup + steps, planned, [&](size_t step) {
    if (step + 1 == warmup) start = std::chrono::steady_clock::now();
  });
  return seconds_since(start) / static_cast<double>(steps);
}

// The GPU time of planned steps of `rows` sequences by kernel, after `warmup` untimed steps.
void profile_batched_step(const model::Model& model, size_t rows, size_t prompt, size_t warmup,
                          size_t steps) {
  gpu::Context& context = *model.context();
  step_batched(model, rows, prompt, warmup + steps, true, [&](size_t step) {
    if (step + 1 == warmup) context.time_kernels(true);
  });
  context.time_kernels(false);
  print_kernel_profile(context, steps,
                       "a planned batched step of " + std::to_string(rows) + " sequences");
}

// The same sequences, each a fused B = 1 decoder stepping greedily in turn.
double sequential_step_seconds(const model::Model& model, size_t rows, size_t prompt, size_t warmup,
                               size_t steps) {
  std::vector<model::KvCache> caches;
  caches.reserve(rows);
  std::vector<std::unique_ptr<model::Decoder>> decoders;
  std::vector<uint32_t> tokens(rows);
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<uint32_t> ids = prompt_of(r, prompt, model.config().vocab_size);
    caches.push_back(model.new_cache());
    model.forward(ids, caches.back(), {.all_logits = false});
    decoders.push_back(std::make_unique<model::Decoder>(model, caches.back()));
    tokens[r] = ids.back();
  }
  auto start = std::chrono::steady_clock::now();
  for (size_t step = 0; step < warmup + steps; ++step) {
    if (step == warmup) start = std::chrono::steady_clock::now();
    for (size_t r = 0; r < rows; ++r) tokens[r] = decoders[r]->step_greedy(tokens[r]);
  }
  return seconds_since(start) / static_cast<double>(steps);
}

}  // namespace

void bench_batched_decode(const model::Model& model, const std::vector<size_t>& row_counts,
                          size_t prompt_tokens, size_t steps, bool profile) {
  const size_t warmup = 3;
  if (prompt_tokens == 0 || prompt_tokens + warmup + steps > model.config().n_ctx) {
    throw Error("--batch-decode needs a prompt (--gen-prompt) and " + std::to_string(steps) +
                " steps after " + std::to_string(warmup) + " warm-up steps within the model's " +
                "context of " + std::to_string(model.config().n_ctx));
  }
  std::printf(
      "\nBatched decoding (`wgpt serve --engine batched`'s GPU step) against the same sequences "
      "one after another on the fused B = 1 path (`--engine sequential`): greedy, a prompt of "
      "%zu, %zu timed steps after %zu:\n\n",
      prompt_tokens, steps, warmup);
  std::printf(
      "| sequences | batched ms/step | batched tok/s | general ops ms/step | one at a time "
      "ms/step | one at a time tok/s | batched / one at a time |\n"
      "|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t rows : row_counts) {
    if (!model::BatchDecoder::supported(model, rows)) {
      std::printf("| %zu | (the batched path cannot run this model with %zu slots) | | | | | |\n",
                  rows, rows);
      continue;
    }
    ProgressLine progress;
    const std::string sequences = "batch-decode: " + std::to_string(rows) + " sequences, ";
    progress.update(sequences + "planned steps");
    const double batched = batched_step_seconds(model, rows, prompt_tokens, warmup, steps, true);
    progress.update(sequences + "general steps");
    const double general = batched_step_seconds(model, rows, prompt_tokens, warmup, steps, false);
    progress.update(sequences + "one at a time");
    const double sequential =
        model::Decoder::supported(model)
            ? sequential_step_seconds(model, rows, prompt_tokens, warmup, steps)
            : 0;
    progress.done();
    const double count = static_cast<double>(rows);
    std::printf("| %zu | %.3f | %.1f | %.3f | %.3f | %.1f | %.2f× |\n", rows, 1e3 * batched,
                count / batched, 1e3 * general, 1e3 * sequential,
                sequential > 0 ? count / sequential : 0, sequential > 0 ? sequential / batched : 0);
    std::fflush(stdout);
  }
  if (!profile) return;
  std::set<size_t> profiled;
  for (size_t rows : row_counts) {
    if (model::BatchDecoder::supported(model, rows)) profiled.insert(rows);
  }
  if (profiled.empty()) return;
  profile_batched_step(model, *profiled.begin(), prompt_tokens, warmup, steps);
  if (profiled.size() > 1) {
    profile_batched_step(model, *profiled.rbegin(), prompt_tokens, warmup, steps);
  }
}

}  // namespace wgpt::cli
