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

}  // namespace wgpt::cli
