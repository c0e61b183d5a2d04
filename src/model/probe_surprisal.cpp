// Teacher-forced surprisal: how many bits each token cost the model, from one forward pass per
// window (HF's sliding-window perplexity for texts longer than the context). Windows of equal
// length run packed together (Model::packed_body), several to a pass; each window's LM head runs
// over the rows of its new targets only, and ops::score_rows over those rows. On the GPU the passes
// are recorded back to back and each one's scores (O(rows · top_k) numbers) come back in one
// asynchronous readback while later passes run.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "wgpt/ops.h"
#include "wgpt/probe.h"

namespace wgpt::model {
namespace {

// Tokens [begin, end) run; targets [first_target, end) are scored, by rows [first_target − 1 −
// begin, end − 1 − begin) of the pass.
struct Window {
  size_t begin, end, first_target;
};

std::vector<Window> plan_windows(size_t tokens, size_t window, size_t stride) {
  std::vector<Window> windows;
  size_t scored_until = 1;  // tokens [1, scored_until) are covered
  for (size_t begin = 0;; begin += stride) {
    const size_t end = std::min(begin + window, tokens);
    windows.push_back({begin, end, scored_until});
    scored_until = end;
    if (end == tokens) return windows;
  }
}

void check_input(const Config& config, std::span<const uint32_t> ids) {
  if (ids.size() < 2) {
    throw Error("scoring needs at least two tokens (the first has nothing to predict it), got " +
                std::to_string(ids.size()));
  }
  if (config.n_ctx < 2) throw Error("scoring needs a context of at least two positions");
  for (uint32_t id : ids) {
    if (id >= config.vocab_size) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(config.vocab_size));
    }
  }
}

// How many windows of `window` tokens one pass packs. On the GPU 8,192 rows, as many as a training
// step of 8 × 1024 (on the H200 its products ran at 22–31 TFLOP/s where one 1024-row window's ran
// at 13–19: too few workgroups), fewer where the widest activation, the MLP's hidden [rows, 4C] in
// f32, would not fit a storage binding. On the CPU one: it has no workgroups to fill, and its
// products keep a window's rows in cache where many windows' would not (the shipped model scoring
// a 6 kB text: 25.6–26.9 s a window at a time, 29.9–33.6 s packed).
size_t windows_per_pass(const Model& model, size_t window) {
  if (!model.on_gpu()) return 1;
  constexpr size_t kPassRows = 8192;
  const uint64_t hidden_row_bytes = 4 * model.config().n_embd * sizeof(float);
  const uint64_t rows = std::min<uint64_t>(
      kPassRows, model.context()->limits().max_storage_buffer_binding_size / hidden_row_bytes);
  return std::max<size_t>(1, rows / window);
}

// Consecutive windows of equal length, at most `per_pass` of them, as [first, first + count).
struct Pass {
  size_t first, count;
};

std::vector<Pass> plan_passes(const std::vector<Window>& windows, size_t per_pass) {
  std::vector<Pass> passes;
  auto length = [](const Window& w) { return w.end - w.begin; };
  for (size_t i = 0; i < windows.size(); ++i) {
    if (passes.empty() || passes.back().count == per_pass ||
        length(windows[i]) != length(windows[passes.back().first])) {
      passes.push_back({i, 0});
    }
    ++passes.back().count;
  }
  return passes;
}

// A pass over windows of equal length and each one's scores, recorded (in the caller's scope on
// the GPU), not read.
std::vector<ops::RowScores> score_pass(const Model& model, std::span<const uint32_t> ids,
                                       std::span<const Window> windows, size_t top_k) {
  // Uploaded first: an upload submits what the scope has recorded.
  std::vector<Tensor> targets;
  std::vector<uint32_t> packed;
  for (const Window& w : windows) {
    targets.push_back(Tensor::from_u32(
        std::vector<uint32_t>(ids.begin() + static_cast<std::ptrdiff_t>(w.first_target),
                              ids.begin() + static_cast<std::ptrdiff_t>(w.end)),
        {w.end - w.first_target}));
    if (model.on_gpu()) targets.back() = targets.back().to_gpu(model.context());
    packed.insert(packed.end(), ids.begin() + static_cast<std::ptrdiff_t>(w.begin),
                  ids.begin() + static_cast<std::ptrdiff_t>(w.end));
  }
  const size_t t = windows.front().end - windows.front().begin;
  const Tensor hidden = model.packed_body(packed, windows.size());
  std::vector<ops::RowScores> scores;
  for (size_t s = 0; s < windows.size(); ++s) {
    const Window& w = windows[s];
    const Tensor logits =
        model.head(hidden.rows(s * t + w.first_target - 1 - w.begin, w.end - w.first_target));
    scores.push_back(ops::score_rows(logits, targets[s], top_k));
  }
  return scores;
}

// Tokens [w.first_target, w.end) of `result` from their rows' stats (bits, max, Σ exp) and top
// (id, logit bits) pairs, the alternatives ranked by logit, ties by lower id.
void take_scores(Surprisal& result, const Window& w, std::span<const float> stats,
                 std::span<const uint32_t> top, size_t top_k) {
  for (size_t r = 0; r < w.end - w.first_target; ++r) {
    TokenSurprisal& token = result.tokens[w.first_target + r];
    token.bits = stats[3 * r];
    const double largest = stats[3 * r + 1], normaliser = stats[3 * r + 2];
    std::vector<std::pair<uint32_t, float>> best;
    for (size_t i = 0; i < top_k; ++i) {
      float logit;
      std::memcpy(&logit, &top[(r * top_k + i) * 2 + 1], sizeof logit);
      best.emplace_back(top[(r * top_k + i) * 2], logit);
    }
    std::sort(best.begin(), best.end(), [](const auto& a, const auto& b) {
      const uint32_t ka = ops::rank_key(a.second), kb = ops::rank_key(b.second);
      return ka > kb || (ka == kb && a.first < b.first);
    });
    token.alternatives.clear();
    for (const auto& [id, logit] : best) {
      const double p = std::exp(logit - largest) / normaliser;
      token.alternatives.push_back({id, static_cast<float>(p)});
    }
  }
}

// The windows still to arrive, and where their scores go.
struct Scoring {
  Surprisal result;
  std::vector<Window> windows;
  size_t top_k = 0;
  std::function<void(size_t, size_t)> on_window;
  std::function<void(Result<Surprisal>)> done;
  size_t expected = 0;  // windows recorded, or to be
  size_t arrived = 0;
  std::optional<Error> failure;

  // A window's scores are in: report progress, and after the last, the result.
  void arrive() {
    ++arrived;
    if (!failure && on_window) on_window(arrived, windows.size());
    if (arrived == expected) finish();
  }
  // Recording stopped at window `index` with `error`: the windows before it still arrive.
  void fail(size_t index, const Error& error) {
    failure = error;
    expected = index;
    if (arrived == expected) finish();
  }
  void finish() {
    if (failure) return done(*failure);
    double total_bits = 0;
    for (const TokenSurprisal& token : result.tokens) total_bits += token.bits.value_or(0.0);
    result.mean_bits = total_bits / static_cast<double>(result.tokens.size() - 1);
    result.perplexity = std::exp2(result.mean_bits);
    done(std::move(result));
  }
};

std::span<const float> floats(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const float*>(bytes.data()), bytes.size() / sizeof(float)};
}

std::span<const uint32_t> words(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const uint32_t*>(bytes.data()), bytes.size() / sizeof(uint32_t)};
}

// Records a pass and its readback, which completes from a later poll.
void record_pass(const Model& model, std::span<const uint32_t> ids,
                 const std::shared_ptr<Scoring>& state, const Pass& pass) {
  gpu::Context& context = *model.context();
  gpu::Scope scope(context, gpu::Submits::in_parts);  // the pass and its readback: one recording
  const std::span<const Window> windows(state->windows.data() + pass.first, pass.count);
  // The callback holds the scores: their buffers stay out of the pool until they are read.
  auto scores =
      std::make_shared<std::vector<ops::RowScores>>(score_pass(model, ids, windows, state->top_k));
  std::vector<gpu::BufferRange> regions;
  for (const ops::RowScores& window : *scores) {
    regions.push_back({window.stats.buffer(), window.stats.offset() * 4, window.stats.numel() * 4});
    if (state->top_k > 0) {
      regions.push_back({window.top.buffer(), window.top.offset() * 4, window.top.numel() * 4});
    }
  }
  context.readback_many_async(
      regions, [state, scores, windows](Result<std::vector<std::vector<std::byte>>> bytes) {
        if (!bytes.ok() && !state->failure) state->failure = bytes.error();
        const size_t per_window = state->top_k > 0 ? 2 : 1;
        for (size_t s = 0; s < windows.size(); ++s) {
          if (!state->failure) {
            const auto window = std::span(bytes.value()).subspan(s * per_window, per_window);
            take_scores(state->result, windows[s], floats(window[0]),
                        state->top_k > 0 ? words(window[1]) : std::span<const uint32_t>(),
                        state->top_k);
          }
          state->arrive();
        }
      });
}

}  // namespace

void surprisal_async(const Model& model, std::vector<uint32_t> ids, SurprisalOptions options,
                     std::function<void(Result<Surprisal>)> done) {
  auto state = std::make_shared<Scoring>();
  const Config& config = model.config();
  try {
    check_input(config, ids);
    // Below n_ctx, so that every window after the first overlaps the one before it: each target
    // then has a token before it inside its window.
    const size_t window = config.n_ctx;
    state->result.stride =
        std::clamp<size_t>(options.stride ? options.stride : window / 2, 1, window - 1);
    state->windows = plan_windows(ids.size(), window, state->result.stride);
    state->result.windows = state->expected = state->windows.size();
    state->top_k = std::min(options.top_k, config.vocab_size);
    state->on_window = std::move(options.on_window);
    state->done = std::move(done);
    for (uint32_t id : ids) state->result.tokens.push_back({id, std::nullopt, {}});
  } catch (const Error& error) {
    return done(error);
  }
  const std::vector<Pass> passes =
      plan_passes(state->windows, windows_per_pass(model, config.n_ctx));
  for (const Pass& pass : passes) {
    try {
      if (model.on_gpu()) {
        record_pass(model, ids, state, pass);
      } else {
        const std::span<const Window> windows(state->windows.data() + pass.first, pass.count);
        const std::vector<ops::RowScores> scores = score_pass(model, ids, windows, state->top_k);
        for (size_t s = 0; s < windows.size(); ++s) {
          take_scores(state->result, windows[s], scores[s].stats.floats(), scores[s].top.u32s(),
                      state->top_k);
          state->arrive();
        }
      }
    } catch (const Error& error) {
      return state->fail(pass.first, error);
    }
  }
}

Surprisal surprisal(const Model& model, std::span<const uint32_t> ids,
                    const SurprisalOptions& options) {
  std::optional<Result<Surprisal>> outcome;
  surprisal_async(model, std::vector<uint32_t>(ids.begin(), ids.end()), options,
                  [&](Result<Surprisal> result) { outcome.emplace(std::move(result)); });
#ifdef __EMSCRIPTEN__
  if (!outcome)
    throw Error("scoring on the GPU waits for it, which the browser forbids: use surprisal_async");
#endif
  while (!outcome) model.context()->poll();
  return std::move(outcome->value());
}

}  // namespace wgpt::model
