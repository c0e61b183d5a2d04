#pragma once
// The sampling flags shared by the subcommands that generate (--greedy, --temp, --top-k, --top-p,
// --min-p, --repeat-penalty, --repeat-last-n, --presence-penalty, --frequency-penalty,
// --logit-bias, --seed, --ignore-eos), and `wgpt bench`'s sampling specs ("top-k=40,temp=0.8").
// The values are checked against the model by model::validate when a run starts.

#include <CLI/CLI.hpp>
#include <string>

#include "wgpt/generate.h"

namespace wgpt::cli {

void add_sampling_options(CLI::App& command, generate::SamplingOptions& sampling,
                          bool& ignore_end_of_text);

// "KEY=VALUE,..." with the keys of the flags above without their dashes' prefix (temp, top-k,
// top-p, min-p, repeat-penalty, repeat-last-n, presence-penalty, frequency-penalty, seed) and
// the word greedy. Throws wgpt::Error naming the spec and the part it cannot read.
generate::SamplingOptions parse_sampling_spec(const std::string& spec);

}  // namespace wgpt::cli
