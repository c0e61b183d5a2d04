// `wgpt bench`: prompt processing (pp) and token generation (tg) speed, in llama-bench's style.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "bench_parts.h"
#include "commands.h"
#include "joined.h"
#include "model_options.h"
#include "option_checks.h"
#include "progress_line.h"
#include "sampling_options.h"
#include "wgpt/decoder.h"
#include "wgpt/ops.h"
#include "wgpt/probe.h"

namespace wgpt::cli {
namespace {

struct BenchCommand {
  std::string model_dir;
  std::string config;
  std::string backend = "gpu";
  std::string dtype;
  std::string reductions = "auto";
  std::vector<size_t> product_workgroups = {0};
  std::vector<std::string> warm_weights = {"auto"};
  std::vector<size_t> steps_in_flight = {model::Decoder::Tuning{}.steps_in_flight};
  std::vector<size_t> steps_per_submit = {model::Decoder::Tuning{}.steps_per_submit};
  std::vector<size_t> dispatches_per_submit = {gpu::Context::kDefaultDispatchesPerSubmit};
  std::vector<size_t> prompt_lengths = {512};
  std::vector<size_t> generate_tokens = {128};
  size_t generate_prompt = 16;
  size_t repetitions = 5;
  size_t warmup = 3;
  float warmup_seconds = 1.0f;
  std::string output = "md";
  std::string precision = "mixed";
  bool profile = false;
  bool probe = false;
  bool products = false;
  std::vector<size_t> product_splits;  // with --products: each product again at these splits of k
  bool train = false;
  TrainingBench training;
  std::vector<std::string> sampling;  // specs: one tgN row each, after the greedy one
  size_t score_tokens = 0;
  size_t score_top = 5;
  std::vector<size_t> batch_decode;  // sequences per batched step, one row each
  size_t batch_decode_steps = 32;
};

struct Measurement {
  std::string test;             // "pp512", "tg128"
  size_t tokens = 0;            // per repetition
  std::vector<double> seconds;  // one per repetition
  // ppN only: of each repetition, the host's time to record and submit the pass (the rest is
  // waiting for the GPU and the readback). Tells a host-bound pass from a GPU-bound one.
  std::vector<double> host_seconds;
  gpu::Stats counted;  // counters over the last repetition
  double per_token(uint64_t total) const {
    return static_cast<double>(total) / static_cast<double>(tokens);
  }
};

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / v.size();
}
double stddev(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

std::vector<uint32_t> bench_ids(size_t count, size_t vocab) {
  std::vector<uint32_t> ids(count);
  for (size_t i = 0; i < count; ++i) ids[i] = static_cast<uint32_t>((i * 2654435761u + 17) % vocab);
  return ids;
}

// A prompt's pass from an empty cache, waited for: its last position's logits read back.
void prompt_pass(const model::Model& model, const std::vector<uint32_t>& ids) {
  model::KvCache cache = model.new_cache();
  model.forward(ids, cache, {.all_logits = false}).logits.to_floats();
}

uint32_t argmax(const std::vector<float>& logits) {
  return static_cast<uint32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

gpu::Stats difference(const gpu::Stats& after, const gpu::Stats& before) {
  gpu::Stats out;
  out.dispatches = after.dispatches - before.dispatches;
  out.submits = after.submits - before.submits;
  out.fence_waits = after.fence_waits - before.fence_waits;
  out.buffers_created = after.buffers_created - before.buffers_created;
  out.bytes_allocated = after.bytes_allocated - before.bytes_allocated;
  out.bind_groups_created = after.bind_groups_created - before.bind_groups_created;
  out.recording_nanoseconds = after.recording_nanoseconds - before.recording_nanoseconds;
  return out;
}

// Each tuning of `all` once for every value of `values`, set by `apply`: the tunings so far vary
// slowest, this option fastest.
template <typename Value, typename Apply>
std::vector<model::Decoder::Tuning> for_each_value(const std::vector<model::Decoder::Tuning>& all,
                                                   const std::vector<Value>& values, Apply apply) {
  std::vector<model::Decoder::Tuning> out;
  for (const model::Decoder::Tuning& tuning : all) {
    for (const Value& value : values) {
      out.push_back(tuning);
      apply(out.back(), value);
    }
  }
  return out;
}

// The decode tunings to measure: every --product-workgroups value with every --warm-weights,
// --steps-in-flight and --steps-per-submit one.
std::vector<model::Decoder::Tuning> tunings(const BenchCommand& command) {
  using Tuning = model::Decoder::Tuning;
  Tuning base;
  if (command.reductions == "barrier") base.reductions = model::Decoder::Reductions::barrier;
  if (command.reductions == "subgroup") base.reductions = model::Decoder::Reductions::subgroup;
  std::vector<Tuning> all = {base};
  all = for_each_value(all, command.product_workgroups,
                       [](Tuning& t, size_t workgroups) { t.product_workgroups = workgroups; });
  all = for_each_value(all, command.warm_weights, [](Tuning& t, const std::string& warm) {
    t.warm_weights = warm == "on"    ? model::Decoder::Warming::on
                     : warm == "off" ? model::Decoder::Warming::off
                                     : model::Decoder::Warming::automatic;
  });
  all = for_each_value(all, command.steps_in_flight,
                       [](Tuning& t, size_t in_flight) { t.steps_in_flight = in_flight; });
  return for_each_value(all, command.steps_per_submit,
                        [](Tuning& t, size_t per_submit) { t.steps_per_submit = per_submit; });
}

// Untimed repetitions before a measurement: at least `count` (compiling the pipelines), and with
// count > 0 as many more as start within `seconds` of the first. A GPU's clock governor raises the
// clocks only after a while of steady work: an H100 that had idled ran a process's first pp128
// passes at 450-570 MHz, 3.5 times slower than at its 1980, for 0.8 s (docs/benchmarks.md,
// 2026-12-06).
struct WarmUp {
  size_t count;
  double seconds;
};

// Runs `body` untimed as `warm_up` asks, showing progress on `progress`.
template <class Body>
void warm_up_with(const WarmUp& warm_up, const std::string& test, ProgressLine& progress,
                  Body body) {
  const auto first = std::chrono::steady_clock::now();
  auto within_seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count() <
           warm_up.seconds;
  };
  for (size_t done = 0; done < warm_up.count || (warm_up.count > 0 && within_seconds()); ++done) {
    progress.update(test + ": warm-up " + std::to_string(done + 1) +
                    (done < warm_up.count ? "/" + std::to_string(warm_up.count) : " (clocks)"));
    body();
  }
}

// Runs `body` untimed as `warm_up` asks, then `repetitions` times, timing each and counting the
// last.
template <class Body>
Measurement measure(const std::string& test, size_t tokens, const WarmUp& warm_up,
                    size_t repetitions, const model::Model& model, Body body) {
  Measurement m{test, tokens, {}, {}};
  ProgressLine progress;
  warm_up_with(warm_up, test, progress, body);
  for (size_t r = 0; r < repetitions; ++r) {
    const gpu::Stats before = model.on_gpu() ? model.context()->stats() : gpu::Stats{};
    const auto start = std::chrono::steady_clock::now();
    body();
    m.seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (model.on_gpu()) m.counted = difference(model.context()->stats(), before);
    progress.update(test + ": repetition " + std::to_string(r + 1) + "/" +
                    std::to_string(repetitions));
  }
  progress.done();
  return m;
}

// `again`: this length was measured before in this process and precision (-p 128,1024,128), which
// the name says, as the first pass after start-up has measured slower than later ones.
Measurement prompt_processing(const model::Model& model, size_t tokens, const WarmUp& warm_up,
                              size_t repetitions, bool again) {
  const std::vector<uint32_t> ids = bench_ids(tokens, model.config().vocab_size);
  std::vector<double> host_seconds;
  const std::string name = "pp" + std::to_string(tokens) +
                           (model.precision() == ops::Precision::f32 ? " f32" : " mixed") +
                           (again ? " again" : "");
  Measurement m = measure(name, tokens, warm_up, repetitions, model, [&] {
    const auto start = std::chrono::steady_clock::now();
    model::KvCache cache = model.new_cache();
    const model::ForwardOutput out = model.forward(ids, cache, {.all_logits = false});
    host_seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    // The prefill's logits for the last position, read back: what a generate call waits for.
    out.logits.to_floats();
  });
  m.host_seconds.assign(host_seconds.end() - static_cast<std::ptrdiff_t>(repetitions),
                        host_seconds.end());  // without the warm-up
  return m;
}

// A sampling mode and its name in the results.
struct Mode {
  std::string name;  // "" for greedy decoding, else the spec
  model::SamplingOptions options;
};

Measurement token_generation(const model::Model& model, size_t prompt, size_t tokens,
                             const WarmUp& warm_up, size_t repetitions, bool probe,
                             const Mode& mode, const model::Decoder::Tuning& tuning) {
  const std::vector<uint32_t> ids = bench_ids(prompt, model.config().vocab_size);
  model::KvCache cache = model.new_cache();
  std::vector<uint32_t> context;
  // Each repetition prefills untimed (its token the argmax), then times `tokens` decode steps.
  auto prefill = [&] {
    cache.clear();
    context = ids;
    context.push_back(argmax(model.forward(ids, cache, {.all_logits = false}).logits.to_floats()));
  };
  // The GPU decode path where the model allows it, as `wgpt generate` and `wgpt trace` take it,
  // every token chosen on the GPU. With --probe, each step also reads back every layer's
  // attention and the top 10.
  std::unique_ptr<model::Decoder> decoder;
  if (model::Decoder::supported(model)) {
    decoder = std::make_unique<model::Decoder>(model, cache, mode.options, tuning);
  }
  constexpr size_t kProbeTop = 10;
  const std::string name =
      "tg" + std::to_string(tokens) + (probe ? "+probe" : "") +
      (tuning.product_workgroups ? " (" + std::to_string(tuning.product_workgroups) + " wg)" : "") +
      (tuning.steps_in_flight != model::Decoder::Tuning{}.steps_in_flight
           ? " (" + std::to_string(tuning.steps_in_flight) + " in flight)"
           : "") +
      (tuning.steps_per_submit != model::Decoder::Tuning{}.steps_per_submit
           ? " (" + std::to_string(tuning.steps_per_submit) + " per submit)"
           : "") +
      (decoder && decoder->warms_weights() ? " warm" : "") +
      (mode.name.empty() ? "" : " " + mode.name);
  // One repetition: an untimed prefill, then the decode steps, timed and counted from `before`.
  gpu::Stats before;
  auto generate = [&] {
    prefill();
    if (model.on_gpu()) before = model.context()->stats();
    const auto start = std::chrono::steady_clock::now();
    if (decoder && probe) {
      decoder->generate_traced(context, tokens, kProbeTop, {});
    } else if (decoder) {
      decoder->generate(context, tokens);
    } else {
      for (size_t i = 0; i < tokens; ++i) {
        const std::vector<float> logits =
            probe ? model::trace_step(model, std::span(&context.back(), 1), cache,
                                      {.top_n = kProbeTop})
                        .logits
                  : model.forward(std::span(&context.back(), 1), cache, {.all_logits = false})
                        .logits.to_floats();
        context.push_back(model::choose_token(logits, context, mode.options).token);
      }
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Measurement m{name, tokens, {}, {}};
  ProgressLine progress;
  warm_up_with(warm_up, m.test, progress, generate);
  for (size_t r = 0; r < repetitions; ++r) {
    m.seconds.push_back(generate());
    if (model.on_gpu()) m.counted = difference(model.context()->stats(), before);
    progress.update(m.test + ": repetition " + std::to_string(r + 1) + "/" +
                    std::to_string(repetitions));
  }
  progress.done();
  return m;
}

// Teacher-forced scoring of a text of `tokens` tokens, as `wgpt score` runs it: HF's sliding
// windows of n_ctx tokens, stride n_ctx / 2, with the top `top` alternatives per token.
Measurement scoring(const model::Model& model, size_t tokens, size_t top, double warm_up_seconds,
                    size_t repetitions) {
  const std::vector<uint32_t> ids = bench_ids(tokens, model.config().vocab_size);
  return measure("score" + std::to_string(tokens) + " top " + std::to_string(top), tokens,
                 WarmUp{.count = 1, .seconds = warm_up_seconds}, repetitions, model,
                 [&] { model::surprisal(model, ids, {.top_k = top}); });
}

// One header line of the rows' keys, then one line per row (strings quoted, as RFC 4180).
void print_csv(const nlohmann::ordered_json& rows) {
  if (rows.empty()) return;
  std::string header;
  for (const auto& [key, value] : rows.front().items()) header += (header.empty() ? "" : ",") + key;
  std::printf("%s\n", header.c_str());
  for (const auto& row : rows) {
    std::string line;
    bool first = true;
    for (const auto& [key, value] : row.items()) {
      if (!first) line += ',';
      first = false;
      if (value.is_string()) {
        std::string quoted = "\"";
        for (char c : value.get<std::string>())
          quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        line += quoted + '"';
      } else if (!value.is_null()) {
        line += value.dump();
      }
    }
    std::printf("%s\n", line.c_str());
  }
}

// The kernels the model's context runs from $WGPT_KERNEL_DIR, space-separated (empty: none), so
// that their figures are never taken for the build's.
std::string replaced_kernels(const model::Model& model) {
  return model.on_gpu() ? joined(model.context()->replaced_kernels()) : "";
}

// The kernel that computes the model's prompt attention (empty on the CPU), which
// $WGPT_PROMPT_ATTENTION may have chosen.
std::string prompt_attention_kernel(const model::Model& model) {
  return model.on_gpu() ? std::string(ops::causal_attention_kernel(*model.context())) : "";
}

void report(const BenchCommand& command, const model::Model& model,
            const std::vector<Measurement>& results) {
  const model::Config& c = model.config();
  const std::string adapter = model.on_gpu() ? model.context()->adapter_info().device + " (" +
                                                   model.context()->adapter_info().backend + ")"
                                             : "CPU reference";
  const std::string name = command.config.empty() ? command.model_dir : command.config;
  const std::string replaced = replaced_kernels(model);
  const std::string attention = prompt_attention_kernel(model);
  if (command.output != "md") {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Measurement& m : results) {
      std::vector<double> rates;
      for (double s : m.seconds) rates.push_back(static_cast<double>(m.tokens) / s);
      out.push_back(
          {{"model", name},
           {"params", c.parameter_count()},
           {"weights", to_string(model.weight_dtype())},
           {"weight_bytes", model.weight_bytes()},
           {"backend", command.backend},
           {"adapter", adapter},
           {"test", m.test},
           {"tokens", m.tokens},
           {"repetitions", m.seconds.size()},
           {"tok_per_s_mean", mean(rates)},
           {"tok_per_s_sd", stddev(rates)},
           {"ms_per_token", 1000.0 * mean(m.seconds) / static_cast<double>(m.tokens)},
           {"ms_total_mean", 1000.0 * mean(m.seconds)},
           {"dispatches_per_token", m.per_token(m.counted.dispatches)},
           {"submits_per_token", m.per_token(m.counted.submits)},
           {"fence_waits_per_token", m.per_token(m.counted.fence_waits)},
           {"buffers_created_per_token", m.per_token(m.counted.buffers_created)},
           {"bytes_allocated_per_token", m.per_token(m.counted.bytes_allocated)},
           {"host_recording_us_per_token", m.per_token(m.counted.recording_nanoseconds) / 1000.0}});
      // ppN only; null (an empty csv field) elsewhere, so every row has the same columns.
      out.back()["host_ms_mean"] = m.host_seconds.empty()
                                       ? nlohmann::ordered_json()
                                       : nlohmann::ordered_json(1000.0 * mean(m.host_seconds));
      out.back()["kernels_replaced"] = replaced;
      out.back()["prompt_attention"] = attention;
    }
    if (command.output == "json") {
      std::printf("%s\n", out.dump(2).c_str());
    } else {
      print_csv(out);
    }
    return;
  }
  const std::string replaced_note =
      (attention.empty() ? "" : "; prompt attention: " + attention) +
      (replaced.empty() ? "" : "; kernels replaced from WGPT_KERNEL_DIR: " + replaced);
  std::printf(
      "model: %s, %.1fM params, %zu layers, %zu wide; weights: %s%s, %.1f MiB; backend: %s; "
      "adapter: %s%s\n\n",
      name.c_str(), static_cast<double>(c.parameter_count()) / 1e6, c.n_layer, c.n_embd,
      to_string(model.weight_dtype()),
      model.matrix_layout() == Layout::column_strips ? " in column strips" : "",
      static_cast<double>(model.weight_bytes()) / (1024.0 * 1024.0), command.backend.c_str(),
      adapter.c_str(), replaced_note.c_str());
  std::printf(
      "| test | t/s | ms/token | total ms | dispatches/tok | submits/tok | buffers/tok | host "
      "µs/tok |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Measurement& m : results) {
    std::vector<double> rates;
    for (double s : m.seconds) rates.push_back(static_cast<double>(m.tokens) / s);
    std::printf("| %s | %.1f ± %.1f | %.3f | %.2f | %.1f | %.2f | %.2f | %.1f |\n", m.test.c_str(),
                mean(rates), stddev(rates),
                1000.0 * mean(m.seconds) / static_cast<double>(m.tokens), 1000.0 * mean(m.seconds),
                m.per_token(m.counted.dispatches), m.per_token(m.counted.submits),
                m.per_token(m.counted.buffers_created),
                m.per_token(m.counted.recording_nanoseconds) / 1000.0);
  }
  // The probe's cost: tgN with it against tgN without, measured one after the other.
  for (size_t i = 1; i < results.size(); ++i) {
    const std::string& plain = results[i - 1].test;
    const size_t tag = plain.find(' ');
    if (results[i].test ==
        plain.substr(0, tag) + "+probe" + (tag == std::string::npos ? "" : plain.substr(tag))) {
      std::printf("\nprobe: %s takes %.3f× the time of %s\n", results[i].test.c_str(),
                  mean(results[i].seconds) / mean(results[i - 1].seconds),
                  results[i - 1].test.c_str());
    }
  }
  for (const Measurement& m : results) {
    if (m.host_seconds.empty()) continue;
    const Spread s = spread_of(m.seconds);
    std::printf(
        "\n%s: %.3f ms (± %.1f%%, %.3f–%.3f ms over %zu repetitions); the host recorded and "
        "submitted the pass in %.2f ± %.2f ms of it, creating %llu bind groups in the last\n",
        m.test.c_str(), 1000.0 * s.mean, 100.0 * s.sd / s.mean, 1000.0 * s.min, 1000.0 * s.max,
        m.seconds.size(), 1000.0 * mean(m.host_seconds), 1000.0 * stddev(m.host_seconds),
        static_cast<unsigned long long>(m.counted.bind_groups_created));
  }
  if (model.on_gpu()) {
    std::printf("\nGPU memory allocated by wgpt: %.1f MiB\n",
                static_cast<double>(model.context()->stats().bytes_allocated) / (1024.0 * 1024.0));
  }
}

// GPU time of decode steps by kernel (see gpu::Context::time_kernels): up to 32 steps after a
// prompt of up to 256 tokens and two untimed steps, each token chosen on the GPU by `mode`'s
// sampling, timed by kernel.
void profile_decode(const model::Model& model, const Mode& mode,
                    const model::Decoder::Tuning& tuning) {
  if (!model::Decoder::supported(model)) {
    std::printf("\n(--profile needs the GPU decode path, which this model cannot take)\n");
    return;
  }
  constexpr size_t kSteps = 32;
  if (model.config().n_ctx < 8) {
    std::printf("\n(--profile needs a context of 8 positions for its decode steps, not %zu)\n",
                model.config().n_ctx);
    return;
  }
  gpu::Context& context = *model.context();
  model::KvCache cache = model.new_cache();
  std::vector<uint32_t> ids =
      bench_ids(std::min<size_t>(256, model.config().n_ctx / 2), model.config().vocab_size);
  model.forward(ids, cache, {.all_logits = false});
  ids.push_back(1);  // the first step's token, which the cache does not hold yet
  model::Decoder decoder(model, cache, mode.options, tuning);
  // Warm (pipelines), then the timed steps; each continues the context the one before grew.
  auto steps = [&](size_t count) {
    std::vector<uint32_t> chosen = decoder.generate(ids, count);
    ids.insert(ids.end(), chosen.begin(), chosen.end());
  };
  steps(2);
  const size_t position = cache.length();
  // As many as the context has room for (a small model's is short), leaving a position for the
  // kernel chains after them.
  const size_t timed = std::min(kSteps, model.config().n_ctx - position - 1);
  context.time_kernels(true);
  steps(timed);
  context.time_kernels(false);
  const std::string what = mode.name.empty() ? "greedy" : mode.name;
  print_kernel_profile(context, timed,
                       "a decode step (" + what + ") at positions " + std::to_string(position) +
                           ".." + std::to_string(position + timed));
  if (mode.name.empty()) print_kernel_chains(decoder, cache.length());
}

// GPU time of a ppN pass by kernel (see gpu::Context::time_kernels).
void profile_prefill(const model::Model& model, size_t tokens) {
  if (!model.on_gpu() || tokens == 0) return;
  const std::vector<uint32_t> ids = bench_ids(tokens, model.config().vocab_size);
  gpu::Context& context = *model.context();
  prompt_pass(model, ids);  // warm: pipelines
  context.time_kernels(true);
  prompt_pass(model, ids);
  context.time_kernels(false);
  const std::vector<gpu::KernelTiming> rows = context.kernel_timings();
  double total = 0;
  for (const auto& row : rows) total += row.microseconds;
  std::printf(
      "\nGPU time of one pp%zu pass by kernel (each dispatch submitted and waited for alone, "
      "which adds a submit and a wait to each):\n\n| kernel | dispatches | µs | share "
      "|\n|---|---:|---:|---:|\n",
      tokens);
  for (const auto& row : rows) {
    std::printf("| %s | %llu | %.1f | %.0f%% |\n", row.kernel.c_str(),
                static_cast<unsigned long long>(row.dispatches), row.microseconds,
                100.0 * row.microseconds / total);
  }
  std::printf("| total | | %.1f | |\n", total);
}

// The test sizes of a -p or -n list (0 skips) that fit the model's context after `before` prompt
// tokens; each that does not is left out with a note, so the defaults suit a small model too.
std::vector<size_t> fitting(const std::vector<size_t>& sizes, size_t before, size_t n_ctx,
                            const char* test) {
  std::vector<size_t> kept;
  for (size_t tokens : sizes) {
    if (tokens == 0) continue;
    if (before + tokens <= n_ctx) {
      kept.push_back(tokens);
    } else {
      std::fprintf(stderr,
                   "note: %s%zu skipped: it needs %zu positions, the model's context is %zu\n",
                   test, tokens, before + tokens, n_ctx);
    }
  }
  return kept;
}

void run(const BenchCommand& command) {
  if (command.model_dir.empty() == command.config.empty()) {
    throw Error("give exactly one of -m DIR or --config NAME");
  }
  // The specs are read before the model loads, so that a typo fails at once.
  std::vector<Mode> modes = {{"", {.greedy = true}}};
  for (const std::string& spec : command.sampling)
    modes.push_back({spec, parse_sampling_spec(spec)});
  if (command.score_tokens == 1) throw Error("--score needs at least two tokens");
  if (!command.product_splits.empty() && !command.products) {
    throw Error("--product-splits times the products of --products: give both");
  }
  // Their tables and notes are markdown: after a json or csv document they would spoil it.
  if (command.output != "md" && (command.profile || command.products || command.train ||
                                 !command.batch_decode.empty() || command.precision == "both")) {
    throw Error(
        "--profile, --products, --train, --batch-decode and --precision both print "
        "markdown tables: use them with -o md (the default), not -o " +
        command.output);
  }
  std::shared_ptr<gpu::Context> context;
  if (command.backend == "gpu") context = gpu::Context::create();
  std::fprintf(stderr, "loading %s...\n",
               command.config.empty() ? command.model_dir.c_str() : command.config.c_str());
  const std::filesystem::path path =
      command.config.empty() ? resolve_model(command.model_dir) : std::filesystem::path();
  const std::optional<DType> dtype = weight_dtype_for(command.dtype, path, context.get());
  model::Model model = command.config.empty()
                           ? model::Model::load(path, context, {.weights = dtype})
                           : model::Model::random(model::named_config(command.config), 1, context,
                                                  {.weights = dtype});
  const size_t n_ctx = model.config().n_ctx;
  const std::vector<size_t> prompts = fitting(command.prompt_lengths, 0, n_ctx, "pp");
  const std::vector<size_t> generations =
      fitting(command.generate_tokens, command.generate_prompt, n_ctx, "tg");
  const size_t longest = prompts.empty() ? 0 : *std::max_element(prompts.begin(), prompts.end());
  std::vector<ops::Precision> precisions;
  if (command.precision != "mixed") precisions.push_back(ops::Precision::f32);
  if (command.precision != "f32") precisions.push_back(ops::Precision::mixed);
  for (const Mode& mode : modes) model::validate(mode.options, model.config());
  const WarmUp warm_up{command.warmup, command.warmup_seconds};
  // A GPU that has idled for minutes ran a process's short passes at its lowest clocks for longer
  // than their warm-up (pp128 on an H100) and raised them within 0.1 s of a long one: the longest
  // prompt first, untimed.
  if (model.on_gpu() && longest > 0 && warm_up.count > 0) {
    const std::vector<uint32_t> ids = bench_ids(longest, model.config().vocab_size);
    ProgressLine progress;
    warm_up_with(WarmUp{1, warm_up.seconds}, "pp" + std::to_string(longest) + " for the clocks",
                 progress, [&] { prompt_pass(model, ids); });
    progress.done();
  }
  std::vector<Measurement> results;
  // Runs `measure_rows` once for each --dispatches-per-submit value, naming the rows of those not
  // at the default.
  auto for_each_per_submit = [&](const std::function<void()>& measure_rows) {
    for (size_t per_submit : command.dispatches_per_submit) {
      if (context) context->set_dispatches_per_submit(per_submit);
      const size_t first = results.size();
      measure_rows();
      if (per_submit == gpu::Context::kDefaultDispatchesPerSubmit) continue;
      for (size_t i = first; i < results.size(); ++i) {
        results[i].test += " (" + std::to_string(per_submit) + " per submit)";
      }
    }
    if (context) context->set_dispatches_per_submit(command.dispatches_per_submit.front());
  };
  for_each_per_submit([&] {
    for (ops::Precision precision : precisions) {
      model.set_precision(precision);
      std::set<size_t> measured;
      for (size_t tokens : prompts) {
        const bool again = !measured.insert(tokens).second;
        results.push_back(prompt_processing(model, tokens, warm_up, command.repetitions, again));
      }
    }
  });
  // A decode step is one submit whatever the setting (gpu::Submits::once): measured once.
  for (size_t tokens : generations) {
    for (const model::Decoder::Tuning& tuning : tunings(command)) {
      for (const Mode& mode : modes) {
        for (bool probe : {false, true}) {
          if (probe && !command.probe) break;
          results.push_back(token_generation(model, command.generate_prompt, tokens, warm_up,
                                             command.repetitions, probe, mode, tuning));
        }
      }
    }
  }
  if (command.score_tokens) {
    for_each_per_submit([&] {
      results.push_back(scoring(model, command.score_tokens, command.score_top,
                                command.warmup_seconds, command.repetitions));
    });
  }
  if (results.empty() && command.score_tokens == 0 && !command.products && !command.train &&
      command.batch_decode.empty()) {
    throw Error("nothing to measure: every test was skipped or 0 (give -p or -n values that fit)");
  }
  report(command, model, results);
  // Each length once, however often -p names it (the passes above may repeat one on purpose).
  const std::set<size_t> lengths(prompts.begin(), prompts.end());
  if (precisions.size() == 2 && model.on_gpu()) {
    for (size_t tokens : lengths) {
      if (tokens > 0) bench_parity(model, bench_ids(tokens, model.config().vocab_size));
    }
  }
  if (command.profile) {
    profile_prefill(model, longest);
    // A decode step is profiled only where tgN ran: its table beside no tgN row, after nothing
    // raised the clocks, read as slow kernels.
    if (!generations.empty()) {
      for (const Mode& mode : modes) {
        profile_decode(model, mode, tunings(command).front());
      }
    }
  }
  if (command.products) {
    const TrainingBench& t = command.training;
    for (auto it = lengths.begin(); it != lengths.end(); ++it) {
      const bool last = std::next(it) == lengths.end();
      bench_products(model, *it, last && command.train ? t.batch * t.seq_len : 0, t.seq_len,
                     command.product_splits, 20);
    }
  }
  if (command.train && context) {
    TrainingBench training = command.training;
    training.profile = command.profile;
    for (size_t per_submit : command.dispatches_per_submit) {
      if (command.dispatches_per_submit.size() > 1) {
        std::printf("\ntraining with %zu dispatches per submit (0: one submit a step)\n",
                    per_submit);
      }
      context->set_dispatches_per_submit(per_submit);
      bench_training(model.config(), context, training);
    }
  }
  if (!command.batch_decode.empty()) {
    bench_batched_decode(model, command.batch_decode, command.generate_prompt,
                         command.batch_decode_steps, command.profile);
  }
}

// A comma-separated list of whole numbers in [min, max], each measured once; its default shown.
CLI::Option* add_number_list(CLI::App& sub, const std::string& name, std::vector<size_t>& values,
                             const std::string& help, uint64_t min, uint64_t max) {
  return sub.add_option(name, values, help)
      ->delimiter(',')
      ->check(whole_number(min, max))
      ->capture_default_str();
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto command = std::make_shared<BenchCommand>();
  CLI::App* sub = app.add_subcommand(
      "bench", "Measure prompt processing (ppN) and token generation (tgN) speed");
  add_model_option(*sub, command->model_dir);
  sub->add_option(
      "--config", command->config,
      "Random weights of a named shape instead: gpt2, gpt2-medium, ... (no files needed)");
  sub->add_option("--backend", command->backend, "cpu or gpu")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  add_dtype_option(*sub, command->dtype);
  sub->add_option("--reductions", command->reductions,
                  "How the decode kernels reduce across a workgroup: auto (subgroups where the "
                  "adapter has 32-lane subgroups), barrier or subgroup; for comparing them")
      ->check(CLI::IsMember({"auto", "barrier", "subgroup"}))
      ->capture_default_str();
  add_number_list(*sub, "--product-workgroups", command->product_workgroups,
                  "At most this many workgroups per decode matrix-vector product, up to 65535 "
                  "(0: the default); several, comma-separated, measure tgN once for each: for "
                  "tuning the decode kernels on an adapter",
                  0, 65535);
  sub->add_option("--warm-weights", command->warm_weights,
                  "Whether the decode kernels warm the next products' weights into the GPU's "
                  "cache ahead of them: auto (q4 weights on a GPU), off or on; off,on measures "
                  "tgN once for each (--profile takes the first); a warmed row is named so")
      ->delimiter(',')
      ->check(CLI::IsMember({"auto", "off", "on"}))
      ->capture_default_str();
  add_number_list(*sub, "--steps-in-flight", command->steps_in_flight,
                  "How many decode steps tgN keeps submitted ahead of the host, 1 to 8; several, "
                  "comma-separated, measure tgN once for each (a row not at the default is named "
                  "so)",
                  1, 8);
  add_number_list(*sub, "--steps-per-submit", command->steps_per_submit,
                  "How many decode steps tgN records into one submit, 1 to 16 (steps in flight "
                  "then count submits); several, comma-separated, measure tgN once for each (a row "
                  "not at the default is named so)",
                  1, 16);
  add_number_list(
      *sub, "--dispatches-per-submit", command->dispatches_per_submit,
      "Submit a long pass (a prompt's, a scoring window's, a training step) to the GPU "
      "after every N dispatches, so that the GPU starts while the host records the rest "
      "(0: one submit per pass; decode steps: --steps-per-submit); several, comma-separated, "
      "measure ppN, --score and --train once for each (a row not at the default is "
      "named so; --profile and --products take the first)",
      0, 1000000);
  add_number_list(*sub, "-p,--prompt-tokens", command->prompt_lengths,
                  "ppN: prompt lengths, comma-separated, e.g. 128,512 (0 skips; a length past the "
                  "context is skipped with a note; one named twice is measured again)",
                  0, kMaxGeneratedTokens);
  add_number_list(*sub, "-n,--gen-tokens", command->generate_tokens,
                  "tgN: tokens generated, e.g. 64,256 (0 skips; as -p)", 0, kMaxGeneratedTokens);
  sub->add_option("--gen-prompt", command->generate_prompt, "Prompt length before tgN")
      ->check(whole_number(1, kMaxGeneratedTokens))
      ->capture_default_str();
  sub->add_option("-r,--repetitions", command->repetitions, "Timed repetitions after the warm-up")
      ->check(whole_number(1, 1000000))
      ->capture_default_str();
  sub->add_option("--warmup", command->warmup,
                  "Untimed repetitions before each ppN and tgN (compiling the pipelines, raising "
                  "the clocks); 0: none, to time a cold start")
      ->check(whole_number(0, 1000000))
      ->capture_default_str();
  sub->add_option("--warmup-seconds", command->warmup_seconds,
                  "After --warmup's repetitions, more untimed ones until this long after the "
                  "first: a GPU raises its clocks only after a while of steady work (--score: "
                  "one repetition, then as many as fit)")
      ->check(real_number(0, 3600, "[]"))
      ->capture_default_str();
  sub->add_option("--precision", command->precision,
                  "The ppN products: mixed (f16 operands, f32 sums on the tensor cores where the "
                  "device has them: docs/precision.md), f32, or both (each ppN in each, then "
                  "the parity of their logits)")
      ->check(CLI::IsMember({"f32", "mixed", "both"}))
      ->capture_default_str();
  sub->add_option("-o,--output", command->output, "Format of the results: md, json or csv")
      ->check(CLI::IsMember({"md", "json", "csv"}))
      ->capture_default_str();
  sub->add_flag("--probe", command->probe,
                "Also measure tgN with the attention probe on (every layer's attention and the "
                "top 10 read back each step), right after tgN without it");
  sub->add_option("--sampling", command->sampling,
                  "Also measure tgN with this sampling, chosen on the GPU: KEY=VALUE,... with "
                  "temp, top-k, top-p, min-p, repeat-penalty, repeat-last-n, presence-penalty, "
                  "frequency-penalty, seed (e.g. \"top-k=40\" \"top-p=0.95,repeat-penalty=1.1\"); "
                  "repeatable, one row each");
  sub->add_option("--score", command->score_tokens,
                  "Also measure scoring a text of this many tokens (0 skips): tokens/s of "
                  "`wgpt score`'s sliding windows (n_ctx wide, stride n_ctx / 2)")
      ->check(whole_number(0, kMaxGeneratedTokens))
      ->capture_default_str();
  sub->add_option("--score-top", command->score_top, "Alternatives per token when scoring")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_flag("--profile", command->profile,
                "Also show where the GPU time goes, by kernel: of a ppN pass, of a decode step "
                "with tgN (greedy and with each --sampling), with --train of one f32 training "
                "step, and with --batch-decode of a batched step");
  sub->add_flag("--products", command->products,
                "Also time every matrix product of a ppN pass (and of a training step, with "
                "--train) and the prompt's attention, in both precisions, as TFLOP/s against the "
                "H200's peaks");
  sub->add_option("--product-splits", command->product_splits,
                  "With --products: each product also timed (f32) with k cut into each of these "
                  "numbers of slices, comma-separated (e.g. 1,2,3,5,11), against the split "
                  "chosen for its shape")
      ->delimiter(',')
      ->check(whole_number(1, 4096));
  sub->add_flag("--train", command->train,
                "Also measure training (forward, backward, AdamW on random tokens) in f32 and "
                "in mixed precision, each from the same random weights (GPU only)");
  sub->add_option("--train-batch", command->training.batch, "Sequences per training step")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--train-seq", command->training.seq_len, "Positions per training sequence")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--batch-decode", command->batch_decode,
                  "Sequences per batched decode step, comma-separated (e.g. 1,8,32,64): each "
                  "count's ms/step and tok/s against the same sequences one at a time on the B = 1 "
                  "path (GPU)")
      ->delimiter(',')
      ->check(whole_number(1, 1024));
  sub->add_option("--batch-decode-steps", command->batch_decode_steps,
                  "Timed steps per --batch-decode count")
      ->check(whole_number(1, 100000))
      ->capture_default_str();
  sub->add_option("--train-steps", command->training.steps, "Timed training steps")
      ->check(whole_number(1, 1'000'000'000))
      ->capture_default_str();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
