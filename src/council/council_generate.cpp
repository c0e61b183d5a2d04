// The council's generation loop: generate()'s bookkeeping (generate::Generation) with a council
// step in place of a model's, blocking or as a chain of asynchronous readbacks
// (generate::run_steps_async).
#include <memory>

#include "wgpt/council.h"

namespace wgpt::council {
namespace {

// Reports a step and hands its token to the run.
void take_step(generate::Generation& run, const Step& step, const StepCallback& on_step) {
  const uint32_t token = run.chosen_elsewhere(step.chosen);
  if (on_step && !on_step(run.steps() - 1, step)) return run.stop(generate::StopReason::callback);
  run.accept(token);
}

struct AsyncRun {
  generate::Generation run;
  Council& council;
  model::SamplingOptions sampling;
  size_t top_n;
  StepCallback on_step;
};

// After a context shift the run prefills its newest half again: the experts' caches start afresh.
void follow_shift(Council& council, const generate::Generation& run) {
  if (run.needs_prefill() && run.steps() > 0) council.reset();
}

void run_next_step(const std::shared_ptr<AsyncRun>& state, generate::StepDone step_done) {
  generate::Generation& run = state->run;
  follow_shift(state->council, run);
  state->council.step_async(run.next_ids(), state->sampling, state->top_n,
                            [state, step_done](Result<Step> step) {
                              try {
                                take_step(state->run, step.value(), state->on_step);
                              } catch (const std::exception& error) {
                                return step_done(Error(error.what()));
                              }
                              step_done(std::nullopt);
                            });
}

}  // namespace

generate::GenerateResult generate(Council& council, const tokenizer::Tokenizer& tokenizer,
                                  std::span<const uint32_t> prompt_ids,
                                  const CouncilOptions& options, const StepCallback& on_step,
                                  const generate::TextCallback& on_text) {
  generate::Generation run(council.config(), tokenizer, prompt_ids, options.generate, on_text);
  council.reset();
  while (run.running()) {
    follow_shift(council, run);
    take_step(run, council.step(run.next_ids(), options.generate.sampling, options.top_n), on_step);
  }
  return run.finish();
}

void generate_async(Council& council, const tokenizer::Tokenizer& tokenizer,
                    std::span<const uint32_t> prompt_ids, const CouncilOptions& options,
                    StepCallback on_step, generate::TextCallback on_text,
                    std::function<void(Result<generate::GenerateResult>)> done) {
  std::shared_ptr<AsyncRun> state;
  try {
    state = std::make_shared<AsyncRun>(
        AsyncRun{generate::Generation(council.config(), tokenizer, prompt_ids, options.generate,
                                      std::move(on_text)),
                 council, options.generate.sampling, options.top_n, std::move(on_step)});
    council.reset();
  } catch (const Error& error) {
    return done(error);
  }
  generate::run_steps_async(
      state->run,
      [state](generate::StepDone step_done) { run_next_step(state, std::move(step_done)); },
      std::move(done));
}

}  // namespace wgpt::council
