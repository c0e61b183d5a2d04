#include "sampling_options.h"

#include "option_checks.h"

namespace wgpt::cli {

void add_sampling_options(CLI::App& command, generate::SamplingOptions& sampling,
                          bool& ignore_end_of_text) {
  command.add_option("--temp", sampling.temperature, "Sampling temperature (> 0)")
      ->check(real_number(0, kLargestFloat, "(]"))
      ->capture_default_str();
  command.add_option("--top-k", sampling.top_k, "Keep the k most likely tokens (0: all)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  command.add_option("--top-p", sampling.top_p, "Nucleus sampling mass in (0, 1]")
      ->check(real_number(0, 1, "(]"))
      ->capture_default_str();
  command.add_option("--seed", sampling.seed, "Random seed (splitmix64)")
      ->check(whole_number(0, kAnyUint64))
      ->capture_default_str();
  command.add_flag("--greedy", sampling.greedy, "Always take the most likely token");
  command.add_flag("--ignore-eos", ignore_end_of_text,
                   "Keep generating past the end-of-text token");
}

}  // namespace wgpt::cli
