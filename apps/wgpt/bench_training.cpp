// `wgpt bench --train`: training steps per second at a batch, for f32 and mixed precision.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "bench_parts.h"
#include "wgpt/train.h"

namespace wgpt::cli {

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  if (values.size() > 1) {
    double sum = 0;
    for (double v : values) sum += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(sum / static_cast<double>(values.size() - 1));
  }
  return s;
}

namespace {

// Tokens spread over the vocabulary, the next one the target: a batch any model can take.
train::Batch random_batch(size_t sequences, size_t seq_len, size_t vocab) {
  train::Batch batch{sequences, seq_len, {}, {}};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i <= sequences * seq_len; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t id = static_cast<uint32_t>((state >> 33) % vocab);
    if (i < sequences * seq_len) batch.inputs.push_back(id);
    if (i > 0) batch.targets.push_back(id);
  }
  return batch;
}

struct StepTimes {
  std::vector<double> seconds;  // the timed steps'
  std::vector<double> losses;   // every step's mean loss, the untimed first included
};

// One untimed step, then options.steps timed ones: forward, backward and AdamW in one submit,
// the losses read back (what `wgpt train` waits for each step).
StepTimes time_steps(const model::Config& config, const std::shared_ptr<gpu::Context>& context,
                     ops::Precision precision, const TrainingBench& options) {
  model::Model model = model::Model::random(config, 1, context, {.trainable = true});
  model.set_precision(precision);
  std::vector<train::Parameter> params = train::parameters(model);
  train::AdamW optimizer(params, {});
  const train::Batch batch = random_batch(options.batch, options.seq_len, config.vocab_size);
  // Forward, backward and AdamW in one recording; the token losses, not yet read.
  auto step_once = [&] {
    gpu::Scope scope(*context, gpu::Submits::in_parts);
    train::LossAndGrads result = train::loss_and_grads(model, batch);
    optimizer.step(params, result.grads, 1e-4f, result.grad_scale);
    return result.token_losses;
  };
  StepTimes times;
  for (size_t step = 0; step <= options.steps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<float> losses = step_once().to_floats();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    times.losses.push_back(std::accumulate(losses.begin(), losses.end(), 0.0) /
                           static_cast<double>(losses.size()));
    if (step == 0) continue;
    times.seconds.push_back(seconds);
    std::fprintf(stderr, "\rtraining (%s): step %zu/%zu",
                 precision == ops::Precision::f32 ? "f32" : "mixed", step, options.steps);
  }
  std::fprintf(stderr, "\n");
  if (options.profile && precision == ops::Precision::f32) {
    context->time_kernels(true);
    step_once().to_floats();
    context->time_kernels(false);
  }
  return times;
}

}  // namespace

void bench_training(const model::Config& config, const std::shared_ptr<gpu::Context>& context,
                    const TrainingBench& options) {
  const size_t tokens = options.batch * options.seq_len;
  std::printf(
      "\nTraining, batch %zu × %zu (%zu tokens per step), AdamW; one untimed step first:\n\n",
      options.batch, options.seq_len, tokens);
  std::printf(
      "| precision | ms/step | range ms | tokens/s | first step's loss | last step's loss |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  std::vector<double> losses[2];
  for (ops::Precision precision : {ops::Precision::f32, ops::Precision::mixed}) {
    const StepTimes times = time_steps(config, context, precision, options);
    const Spread s = spread_of(times.seconds);
    std::printf("| %s | %.1f ± %.1f | %.1f–%.1f | %.0f | %.4f | %.4f |\n",
                precision == ops::Precision::f32 ? "f32" : "mixed", 1000 * s.mean, 1000 * s.sd,
                1000 * s.min, 1000 * s.max, static_cast<double>(tokens) / s.mean,
                times.losses.front(), times.losses.back());
    losses[precision == ops::Precision::mixed] = times.losses;
  }
  double band = 0;  // docs/precision.md's loss band: each step's loss within 1% of f32's
  for (size_t step = 0; step < losses[0].size(); ++step) {
    band = std::max(band, std::fabs(losses[1][step] - losses[0][step]) / losses[0][step]);
  }
  std::printf(
      "\nLoss band: mixed within %.4f%% of f32 at every one of %zu steps (the contract: 1%%)\n",
      100.0 * band, losses[0].size());
  if (!context->limits().f16_matrix.available()) {
    std::printf("\n(this device has no tensor cores: mixed precision runs the f32 kernels)\n");
  }
  // time_steps timed one more f32 step by kernel (the mixed steps ran untimed after it).
  if (options.profile) print_kernel_profile(*context, 1, "one f32 training step");
}

}  // namespace wgpt::cli
