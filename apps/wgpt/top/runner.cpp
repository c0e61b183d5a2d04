#include "top/runner.h"

#include <algorithm>
#include <cstdio>

namespace wgpt::top {
namespace {

constexpr size_t kTextTail = 8192;

double since_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The prompt to run: the one asked for, else "The " when the tokenizer can encode it, else the
// first token of the vocabulary.
std::vector<uint32_t> prompt_ids(const tokenizer::Tokenizer& tokenizer, std::string& prompt) {
  if (prompt.empty()) {
    try {
      prompt = "The ";
      return tokenizer.encode(prompt);
    } catch (const Error&) {
      prompt = tokenizer.token_bytes(0);
      return {0};
    }
  }
  return tokenizer.encode(prompt);
}

}  // namespace

const char* to_string(Phase phase) {
  switch (phase) {
    case Phase::idle:
      return "idle";
    case Phase::loading:
      return "loading";
    case Phase::generating:
      return "generating";
    case Phase::cancelling:
      return "cancelling";
    case Phase::done:
      return "done";
    case Phase::failed:
      return "failed";
  }
  return "?";
}

double RunState::instant_rate(size_t window) const {
  if (token_ms.size() < 2) return 0;
  const size_t gaps = std::min(window, token_ms.size() - 1);
  const double span = token_ms.back() - token_ms[token_ms.size() - 1 - gaps];
  return span > 0 ? 1000.0 * static_cast<double>(gaps) / span : 0;
}

double RunState::running_mean_rate() const {
  if (mean_rate > 0) return mean_rate;
  if (token_ms.size() < 2) return 0;
  const double span = token_ms.back() - token_ms.front();
  return span > 0 ? 1000.0 * static_cast<double>(token_ms.size() - 1) / span : 0;
}

std::vector<double> RunState::rates() const {
  std::vector<double> rates;
  for (size_t i = 1; i < token_ms.size(); ++i) {
    const double gap = token_ms[i] - token_ms[i - 1];
    rates.push_back(gap > 0 ? 1000.0 / gap : 0);
  }
  return rates;
}

Runner::~Runner() {
  cancel();
  if (worker_.joinable()) worker_.join();
}

bool Runner::start(const ScannedModel& model, RunRequest request) {
  if (busy_.exchange(true)) return false;
  if (worker_.joinable()) worker_.join();
  cancel_ = false;
  update([&](RunState& state) {
    state = RunState{};
    state.phase = Phase::loading;
    state.model = model.name;
    state.backend = request.backend;
  });
  worker_ = std::thread(&Runner::run, this, model, std::move(request));
  return true;
}

void Runner::cancel() {
  if (!busy_) return;
  cancel_ = true;
  update([](RunState& state) {
    if (state.phase == Phase::generating) state.phase = Phase::cancelling;
  });
}

bool Runner::busy() const { return busy_; }

RunState Runner::state() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::string Runner::adapter() const {
  std::lock_guard lock(mutex_);
  return state_.adapter;
}

void Runner::update(const std::function<void(RunState&)>& change) {
  std::lock_guard lock(mutex_);
  change(state_);
}

void Runner::run(ScannedModel scanned, RunRequest request) {
  try {
    const auto load_start = std::chrono::steady_clock::now();
    if (request.backend == "gpu" && !context_) context_ = gpu::Context::create();
    std::shared_ptr<gpu::Context> context = request.backend == "gpu" ? context_ : nullptr;
    LoadedModel loaded = load(scanned, context);
    std::string prompt = request.prompt;
    const std::vector<uint32_t> ids = prompt_ids(*loaded.tokenizer, prompt);
    update([&](RunState& state) {
      state.load_ms = since_ms(load_start);
      state.adapter =
          context ? context->adapter_info().device + " (" + context->adapter_info().backend + ")"
                  : "the CPU reference";
      state.text = prompt;
      state.phase = cancel_ ? Phase::cancelling : Phase::generating;
    });
    const auto start = std::chrono::steady_clock::now();
    const generate::GenerateResult result = generate::generate(
        loaded.model, *loaded.tokenizer, ids, request.options, [&](std::string_view text) {
          const double now = since_ms(start);
          update([&](RunState& state) {
            if (state.token_ms.empty()) state.first_token_ms = now;
            state.token_ms.push_back(now);
            state.text += text;
            if (state.text.size() > kTextTail) state.text.erase(0, state.text.size() - kTextTail);
          });
          return !cancel_;
        });
    update([&](RunState& state) {
      state.tokens = result.ids.size();
      const generate::Timings& t = result.timings;
      if (t.generate_ms > 0 && t.generated_tokens > 1) {
        state.mean_rate = 1000.0 * static_cast<double>(t.generated_tokens - 1) / t.generate_ms;
      }
      char summary[160];
      std::snprintf(summary, sizeof summary, "%zu tokens, %.1f tok/s average (%s)", state.tokens,
                    state.running_mean_rate(), generate::to_string(result.stop));
      state.message = summary;
      state.phase = Phase::done;
    });
  } catch (const std::exception& error) {
    update([&](RunState& state) {
      state.message = error.what();
      state.phase = Phase::failed;
    });
  }
  busy_ = false;
}

}  // namespace wgpt::top
