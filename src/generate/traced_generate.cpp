// Generation with the probe on: generate()'s loop with every step traced, synchronously or as a
// chain of asynchronous readbacks. As generate(), the prefill runs the general forward pass and
// the decode steps take the fused GPU path where the model allows it (model::Decoder, whose
// kernels already hold every layer's attention); per-block detail needs the general pass, which
// computes every intermediate, so a trace with detail_layers > 0 runs it for every step.
#include <memory>
#include <optional>

#include "generate/generation.h"
#include "wgpt/decoder.h"

namespace wgpt::generate {
namespace {

bool decodes_on_device(const model::Model& model, const model::ProbeOptions& probe) {
  return probe.detail_layers == 0 && model::Decoder::supported(model);
}

// Reports a traced step and hands its token to the run.
void report(Generation& run, const model::StepTrace& trace, uint32_t token,
            const TraceCallback& on_trace) {
  if (on_trace && !on_trace(run.steps() - 1, trace, token)) return run.stop(StopReason::callback);
  run.accept(token);
}

// Samples from a traced step, reports it, and hands the token to the run.
void take_step(Generation& run, const model::StepTrace& trace, const TraceCallback& on_trace) {
  const uint32_t token = run.sample(trace.logits);
  report(run, trace, token, on_trace);
}

struct AsyncRun {
  Generation run;
  const model::Model& model;
  model::ProbeOptions probe;
  TraceCallback on_trace;
  std::function<void(Result<GenerateResult>)> done;
  std::unique_ptr<model::Decoder> decoder;  // for the decode steps, where supported
  // While advance() loops, a step that completes before its trace call returns (the CPU) only
  // marks itself done, so the loop goes on instead of recursing once per token.
  bool advancing = false;
  bool step_completed = false;
};

void advance(const std::shared_ptr<AsyncRun>& state);

// A step has arrived: `take` hands it to the run, then the run goes on.
template <class Step, class Take>
void on_step(const std::shared_ptr<AsyncRun>& state, Result<Step> step, Take take) {
  try {
    take(step.value());
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

void trace_next_step(const std::shared_ptr<AsyncRun>& state) {
  Generation& run = state->run;
  if (!run.needs_prefill() && state->decoder) {  // decode steps, the token chosen on the GPU
    state->decoder->step_chosen_async(
        run.context(), state->probe.top_n, [state](Result<model::Decoder::ChosenStep> step) {
          on_step(state, std::move(step), [&](const model::Decoder::ChosenStep& chosen) {
            report(state->run, chosen.trace, state->run.chosen_on_device(chosen.token),
                   state->on_trace);
          });
        });
  } else {  // the prefill, and every step of the general pass: the CPU reference chooses
    model::trace_step_async(state->model, run.next_ids(), run.cache(), state->probe,
                            [state](Result<model::StepTrace> trace) {
                              on_step(state, std::move(trace), [&](const model::StepTrace& step) {
                                take_step(state->run, step, state->on_trace);
                              });
                            });
  }
}

void advance(const std::shared_ptr<AsyncRun>& state) {
  try {
    state->advancing = true;
    while (state->run.running()) {
      state->step_completed = false;
      trace_next_step(state);
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
  if (!run.running()) return run.finish();
  // As generate(): the decoder's kernels compile before the prefill, in the prompt's time.
  std::optional<model::Decoder> fused;
  if (options.max_new_tokens > 1 && decodes_on_device(model, probe)) {
    fused.emplace(model, run.cache(), options.sampling);
  }
  take_step(run, model::trace_step(model, run.next_ids(), run.cache(), probe), on_trace);
  if (run.running() && fused) {
    // As generate(): the GPU chooses each token, two steps in flight, each with its trace.
    fused->generate_traced(run.context(), run.remaining(), probe.top_n,
                           [&](uint32_t token, const model::StepTrace& trace) {
                             report(run, trace, run.chosen_on_device(token), on_trace);
                             return run.running();
                           });
  }
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
                 probe, std::move(on_trace), done, nullptr});
    if (options.max_new_tokens > 1 && decodes_on_device(model, probe)) {
      state->decoder =
          std::make_unique<model::Decoder>(model, state->run.cache(), options.sampling);
    }
  } catch (const Error& error) {
    return done(error);
  }
  advance(state);
}

}  // namespace wgpt::generate
