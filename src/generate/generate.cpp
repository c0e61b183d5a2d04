#include "wgpt/generate.h"

#include <optional>

#include "generate/run_to_end.h"

namespace wgpt::generate {

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::max_tokens:
      return "token limit";
    case StopReason::end_of_text:
      return "end of text";
    case StopReason::context_full:
      return "context full";
    case StopReason::stop_string:
      return "stop string";
    case StopReason::callback:
      return "stopped by caller";
  }
  return "?";
}

void run_to_end(const model::Model& model, Generation& run, model::Decoder* fused) {
  while (run.running()) {
    if (fused && !run.needs_prefill()) {
      // Every token is chosen on the GPU, two steps in flight, until the run stops or shifts.
      const std::vector<uint32_t> chosen =
          fused->generate(run.context(), run.remaining(), [&](uint32_t token) {
            run.accept(run.chosen_elsewhere(token));
            return run.running() && !run.needs_prefill();
          });
      if (!chosen.empty()) continue;
    }
    const std::vector<float> logits =
        model.forward(run.next_ids(), run.cache(), {.all_logits = false}).logits.to_floats();
    run.accept(run.sample(logits));
  }
}

GenerateResult generate(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                        std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                        const TextCallback& on_text) {
  Generation run(model, tokenizer, prompt_ids, options, on_text);
  if (!run.running()) return run.finish();
  // The decoder is built first: compiling its kernels is a one-time cost, counted with the
  // prompt's (as the general path's first compile is), not spread over the generated tokens.
  std::optional<model::Decoder> fused;
  if (options.max_new_tokens > 1 && model::Decoder::supported(model)) {
    fused.emplace(model, run.cache(), options.sampling);
  }
  run_to_end(model, run, fused ? &*fused : nullptr);
  return run.finish();
}

}  // namespace wgpt::generate
