// `wgpt bench --profile`'s tables of GPU time by kernel (bench_parts.h).
#include <cstdio>

#include "bench_parts.h"

namespace wgpt::cli {

void print_kernel_profile(gpu::Context& context, size_t steps, const std::string& what) {
  const std::vector<gpu::KernelTiming> rows = context.kernel_timings();
  double total = 0;
  for (const auto& row : rows) total += row.microseconds;
  const double count = static_cast<double>(steps);
  std::printf(
      "\nGPU time of %s by kernel (%s, %zu steps):\n\n"
      "| kernel | per step | µs each | µs per step | share |\n|---|---:|---:|---:|---:|\n",
      what.c_str(),
      context.kernel_timings_exact() ? "timestamp queries" : "wall time of each dispatch alone",
      steps);
  for (const auto& row : rows) {
    std::printf("| %s | %.3g | %.2f | %.1f | %.0f%% |\n", row.kernel.c_str(),
                static_cast<double>(row.dispatches) / count,
                row.microseconds / static_cast<double>(row.dispatches), row.microseconds / count,
                100.0 * row.microseconds / total);
  }
  std::printf("| total in kernels | | | %.1f | |\n", total / count);
}

void print_kernel_chains(model::Decoder& decoder, size_t cache_length) {
  constexpr size_t kLength = 62;  // as many dispatches as GPT-2's step
  constexpr double kSeconds = 0.3;
  const std::vector<model::Decoder::KernelChain> rows =
      decoder.time_kernel_chains(kLength, kSeconds);
  std::printf(
      "\nEach decode kernel as one of %zu dependent dispatches in one pass (wall time over %.1f s "
      "of passes, two in flight, after as long a warm-up, kv_len %zu; its weights stay in cache, "
      "so the rows add "
      "up to less than a step):\n\n| kernel | µs per dispatch |\n|---|---:|\n",
      kLength, kSeconds, cache_length + 1);
  for (const auto& row : rows) std::printf("| %s | %.2f |\n", row.kernel.c_str(), row.microseconds);
}

}  // namespace wgpt::cli
