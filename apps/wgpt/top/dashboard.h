#pragma once
// `wgpt top`'s terminal dashboard: the scanned models and their details or tensors on the left;
// the run (tok/s instant and mean, time to first token, a sparkline), the machine (GPU through
// NVML, host CPU and memory) and the generated text on the right; a status line with the keys.

#include <filesystem>
#include <vector>

#include "top/runner.h"

namespace wgpt::top {

struct DashboardOptions {
  std::vector<std::filesystem::path> roots;
  RunRequest request;
};

// Runs until the user quits; the terminal must be one (stdin and stdout).
void run_dashboard(const DashboardOptions& options);

}  // namespace wgpt::top
