// Teacher-forced surprisal without blocking (the browser's `score`): each window's forward pass is
// recorded, its logits come back through to_cpu_async, and model::SurprisalScorer turns them into
// scores — the same bookkeeping as the blocking model::surprisal — before the next window runs.
#include <memory>

#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

struct AsyncScoring {
  const model::Model& model;
  std::vector<uint32_t> ids;
  model::SurprisalScorer scorer;
  std::function<void(Result<model::Surprisal>)> done;
  size_t next = 0;  // the window to run
};

void run_window(const std::shared_ptr<AsyncScoring>& state) {
  Tensor logits;
  try {
    if (state->next == state->scorer.windows().size()) return state->done(state->scorer.result());
    const model::SurprisalWindow& window = state->scorer.windows()[state->next];
    model::KvCache cache = state->model.new_cache();
    const std::span<const uint32_t> ids(state->ids);
    // Row r of the pass predicts token begin + r + 1: read back only this window's targets.
    logits =
        state->model.forward(ids.subspan(window.begin, window.end - window.begin), cache)
            .logits.rows(window.first_target - 1 - window.begin, window.end - window.first_target);
  } catch (const Error& error) {
    return state->done(error);
  }
  logits.to_cpu_async([state](Result<Tensor> host) {
    if (!host.ok()) return state->done(host.error());
    try {
      state->scorer.add(state->scorer.windows()[state->next++], host.value().floats());
    } catch (const Error& error) {
      return state->done(error);
    }
    run_window(state);
  });
}

}  // namespace

void score_async(const model::Model& model, std::vector<uint32_t> ids, size_t top_k,
                 std::function<void(Result<model::Surprisal>)> done) {
  std::shared_ptr<AsyncScoring> state;
  try {
    model::SurprisalScorer scorer(model.config(), ids, {.top_k = top_k});
    state = std::make_shared<AsyncScoring>(
        AsyncScoring{model, std::move(ids), std::move(scorer), std::move(done)});
  } catch (const Error& error) {
    return done(error);
  }
  run_window(state);
}

}  // namespace wgpt::generate
