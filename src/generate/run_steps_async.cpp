// The loop of the asynchronous generations: a step at a time until the run stops, each step's
// completion starting the next, without recursion where steps complete at once.
#include <memory>

#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

struct Loop {
  Generation& run;
  std::function<void(StepDone)> start_step;
  std::function<void(Result<GenerateResult>)> done;
  // While advance() loops, a step that completes before start_step returns (the CPU) only marks
  // itself done, so the loop goes on instead of recursing once per token.
  bool advancing = false;
  bool step_completed = false;
};

void advance(const std::shared_ptr<Loop>& loop);

void on_step_done(const std::shared_ptr<Loop>& loop, std::optional<Error> error) {
  if (error) return loop->done(*error);
  if (loop->advancing) {
    loop->step_completed = true;
  } else {
    advance(loop);
  }
}

void advance(const std::shared_ptr<Loop>& loop) {
  try {
    loop->advancing = true;
    while (loop->run.running()) {
      loop->step_completed = false;
      loop->start_step(
          [loop](std::optional<Error> error) { on_step_done(loop, std::move(error)); });
      if (!loop->step_completed) {  // waiting for the GPU, or failed
        loop->advancing = false;
        return;
      }
    }
    loop->advancing = false;
    loop->done(loop->run.finish());
  } catch (const std::exception& error) {
    loop->done(Error(error.what()));
  }
}

}  // namespace

void run_steps_async(Generation& run, std::function<void(StepDone)> start_step,
                     std::function<void(Result<GenerateResult>)> done) {
  advance(std::make_shared<Loop>(Loop{run, std::move(start_step), std::move(done)}));
}

}  // namespace wgpt::generate
