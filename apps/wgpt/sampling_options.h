#pragma once
// The sampling flags shared by the subcommands that generate: --greedy, --temp, --top-k, --top-p,
// --seed, --ignore-eos.

#include <CLI/CLI.hpp>

#include "wgpt/generate.h"

namespace wgpt::cli {

void add_sampling_options(CLI::App& command, generate::SamplingOptions& sampling,
                          bool& ignore_end_of_text);

}  // namespace wgpt::cli
