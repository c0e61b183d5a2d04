// Generation with the probe on: generate()'s loop with every step run through model::trace_step,
// synchronously or as a chain of asynchronous readbacks.
#include <memory>

#include "generate/generation.h"

namespace wgpt::generate {
namespace {

// Samples from a traced step, reports it, and hands the token to the run.
void take_step(Generation& run, const model::StepTrace& trace, const TraceCallback& on_trace) {
  const size_t step = run.steps();
  const uint32_t token = run.sample(trace.logits);
  if (on_trace && !on_trace(step, trace, token)) return run.stop(StopReason::callback);
  run.accept(token);
}

struct AsyncRun {
  Generation run;
  const model::Model& model;
  model::ProbeOptions probe;
  TraceCallback on_trace;
  std::function<void(Result<GenerateResult>)> done;
  // While advance() loops, a step that completes before trace_step_async returns (the CPU) only
  // marks itself done, so the loop goes on instead of recursing once per token.
  bool advancing = false;
  bool step_completed = false;
};

void advance(const std::shared_ptr<AsyncRun>& state);

void on_step(const std::shared_ptr<AsyncRun>& state, Result<model::StepTrace> trace) {
  try {
    take_step(state->run, trace.value(), state->on_trace);
  } catch (const std::exception& error) {
    state->done(Error(error.what()));
    return;
  }
  if (state->advancing) {
    state->step_completed = true;
  } else {
    advance(state);
  }
}

void advance(const std::shared_ptr<AsyncRun>& state) {
  try {
    state->advancing = true;
    while (state->run.running()) {
      state->step_completed = false;
      model::trace_step_async(
          state->model, state->run.next_ids(), state->run.cache(), state->probe,
          [state](Result<model::StepTrace> trace) { on_step(state, std::move(trace)); });
      if (!state->step_completed) {  // waiting for the GPU, or failed
        state->advancing = false;
        return;
      }
    }
    state->advancing = false;
    state->done(state->run.finish());
  } catch (const std::exception& error) {
    state->done(Error(error.what()));
  }
}

}  // namespace

GenerateResult generate_traced(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                               std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                               const model::ProbeOptions& probe, const TraceCallback& on_trace,
                               const TextCallback& on_text) {
  Generation run(model, tokenizer, prompt_ids, options, on_text);
  while (run.running()) {
    take_step(run, model::trace_step(model, run.next_ids(), run.cache(), probe), on_trace);
  }
  return run.finish();
}

void generate_traced_async(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                           std::span<const uint32_t> prompt_ids, const GenerateOptions& options,
                           const model::ProbeOptions& probe, TraceCallback on_trace,
                           TextCallback on_text, std::function<void(Result<GenerateResult>)> done) {
  std::shared_ptr<AsyncRun> state;
  try {
    state = std::make_shared<AsyncRun>(
        AsyncRun{Generation(model, tokenizer, prompt_ids, options, std::move(on_text)), model,
                 probe, std::move(on_trace), done});
  } catch (const Error& error) {
    return done(error);
  }
  advance(state);
}

}  // namespace wgpt::generate
