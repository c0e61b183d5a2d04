#pragma once
// The step engine of phase 2: one batched GPU step for every sequence that continues its cache
// (model::BatchDecoder: the rows share each weight read, each attends to its own cache), so N
// concurrent streams cost far less than N single steps. A prompt joins the step too, a row per
// token (so the prompts of sequences that arrive together are prefilled together, beside the
// others' decoding, not one forward pass after another); inputs whose rows exceed one step's
// (BatchDecoder::max_rows) run in several steps, each input whole in one of them. A prompt longer
// than a step's rows, and a step that reports attention, run alone on the general forward pass,
// into the same slot's cache.
// The next token is chosen on the GPU for every batched row that reports nothing else, and 4 bytes
// per row come back: greedy rows without logit adjustments take the step's argmax (ops::score_rows'
// top 1); every other such row — sampled, or greedy with penalties or a bias — runs its slot's
// model::TokenSampler (the B = 1 decoder's sampling kernels, bound once per request) over a copy
// of its row of logits. Rows that report a log-probability or top tokens read their logits back
// and choose on the host with model::choose_token (the CPU reference), as SequentialEngine does.
// A row's numbers do not depend on the other rows (BatchDecoder's row-invariant products), so a
// sequence's tokens do not depend on what else is in the batch.

#include <memory>
#include <vector>

#include "serve/step_engine.h"
#include "wgpt/batch_decoder.h"
#include "wgpt/model.h"
#include "wgpt/sampling.h"

namespace wgpt::serve {

class BatchedEngine final : public StepEngine {
 public:
  // `model` must outlive the engine; the pools of every slot's KV cache are allocated here, up
  // front. Throws unless model::BatchDecoder::supported(model, slots).
  BatchedEngine(const model::Model& model, size_t slots);

  size_t slots() const override { return decoder_.slots(); }
  std::string_view name() const override { return "batched"; }
  void begin(size_t slot, const generate::SamplingOptions& sampling) override;
  std::vector<StepOutput> step(std::span<const StepInput> batch) override;

 private:
  struct Slot {
    generate::SamplingOptions sampling;
    // The prompt and every token fed since begin(): the penalties' window and the draw's index.
    std::vector<uint32_t> context;
    // Where a row that is not plain greedy chooses on the GPU: its copy of its logits row, the
    // sampler's step state u32 [position, token] and the sampler over them (none for plain greedy
    // decoding). `started` while the sampler's state and context on the GPU are the slot's: each
    // choice it makes extends them itself; a step that chose elsewhere ends that.
    Tensor logits, state;
    std::unique_ptr<model::TokenSampler> sampler;
    bool started = false;
  };
  // How a batched row's next token is chosen.
  enum class Choice { argmax, sampler, host };
  Choice choice_of(const StepInput& input) const;
  // Whether an input joins a batched step: its tokens fit one step's rows and it does not report
  // attention.
  bool batches(const StepInput& input) const;
  StepOutput step_alone(const StepInput& input);
  // Runs the inputs `together` (indices into `batch`, their rows within one step) as one batched
  // step and fills their outputs.
  void step_together(std::span<const StepInput> batch, std::span<const size_t> together,
                     std::vector<StepOutput>& outputs);

  const model::Model& model_;
  model::BatchDecoder decoder_;
  std::vector<Slot> slots_;
};

}  // namespace wgpt::serve
