#pragma once
// The step engine of phase 1: each slot is a KV cache with its own model::Decoder (the fused B = 1
// decode path on the GPU) and sampler, and a step runs the slots one after another — the same
// calls, in the same order, as generate() makes for one sequence, so a slot's tokens are the ones
// `wgpt generate` gives for the same prompt, options and seed.

#include <memory>
#include <vector>

#include "serve/step_engine.h"
#include "wgpt/model.h"

namespace wgpt::serve {

class SequentialEngine final : public StepEngine {
 public:
  // `model` must outlive the engine; every slot's KV cache is allocated here, up front.
  SequentialEngine(const model::Model& model, size_t slots);
  ~SequentialEngine() override;

  size_t slots() const override { return slots_.size(); }
  std::string_view name() const override { return "sequential"; }
  void begin(size_t slot, const generate::SamplingOptions& sampling) override;
  std::vector<StepOutput> step(std::span<const StepInput> batch) override;

 private:
  struct Slot;
  StepOutput step_one(Slot& slot, const StepInput& input) const;
  std::vector<float> logits_of(Slot& slot, const StepInput& input, StepOutput& output) const;

  const model::Model& model_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

}  // namespace wgpt::serve
