#include "sampling_options.h"

namespace wgpt::cli {

void add_sampling_options(CLI::App& command, generate::SamplingOptions& sampling,
                          bool& ignore_end_of_text) {
  command.add_option("--temp", sampling.temperature, "Sampling temperature (> 0)")
      ->capture_default_str();
  command.add_option("--top-k", sampling.top_k, "Keep the k most likely tokens (0: all)")
      ->capture_default_str();
  command.add_option("--top-p", sampling.top_p, "Nucleus sampling mass in (0, 1]")
      ->capture_default_str();
  command.add_option("--seed", sampling.seed, "Random seed (splitmix64)")->capture_default_str();
  command.add_flag("--greedy", sampling.greedy, "Always take the most likely token");
  command.add_flag("--ignore-eos", ignore_end_of_text,
                   "Keep generating past the end-of-text token");
}

}  // namespace wgpt::cli
