#pragma once
// The step engine of phase 2: one batched GPU step for every sequence that continues its cache
// (model::BatchDecoder: the rows share each weight read, each attends to its own cache), so N
// concurrent streams cost far less than N single steps. A sequence's first step (its prompt) and a
// step that reports attention run alone on the general forward pass, into the same slot's cache.
// The next token: greedy rows without logit adjustments or reports take the argmax on the GPU (8
// bytes per row come back, ops::score_rows' top 1); every other row reads its logits back and
// chooses on the host with model::choose_token (the CPU reference), as SequentialEngine does.
// A row's numbers do not depend on the other rows (BatchDecoder's row-invariant products), so a
// sequence's tokens do not depend on what else is in the batch.

#include <memory>
#include <vector>

#include "serve/step_engine.h"
#include "wgpt/batch_decoder.h"
#include "wgpt/model.h"

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
  };
  // Whether an input joins the batched step: it continues its cache by one token without
  // reporting attention.
  bool batches(const StepInput& input);
  StepOutput step_alone(const StepInput& input);
  // Runs the batched rows (indices into `batch`) and fills their outputs.
  void step_together(std::span<const StepInput> batch, std::span<const size_t> rows,
                     std::vector<StepOutput>& outputs);
  // Whether a row's token is chosen on the GPU, with nothing else to report.
  bool plain_greedy(const StepInput& input) const;

  const model::Model& model_;
  model::BatchDecoder decoder_;
  std::vector<Slot> slots_;
};

}  // namespace wgpt::serve
