#pragma once
// What the HTTP handlers share: the model's description, the options, the counters, and the
// scheduler they hand work to. Handlers read the model's config and tokenizer; only the
// scheduler's thread runs the model.

#include <atomic>
#include <chrono>
#include <memory>

#include "serve/generation_request.h"
#include "serve/metrics.h"
#include "serve/scheduler.h"
#include "serve/step_engine.h"
#include "wgpt/serve.h"

namespace wgpt::serve {

struct ServerState {
  ServerState(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
              ServerOptions options);

  const model::Model& model;
  ServedModel served;
  ServerOptions options;
  int64_t started_unix_seconds;
  Metrics metrics;
  std::unique_ptr<StepEngine> engine;
  Scheduler scheduler;
  std::atomic<bool> shutting_down = false;
};

}  // namespace wgpt::serve
