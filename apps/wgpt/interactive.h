#pragma once
// `wgpt generate -i`: type a line, the model continues the text from it, type the next.

#include <string>

#include "model_options.h"
#include "wgpt/generate.h"

namespace wgpt::cli {

// Continues `transcript` (which may be empty) for options.max_new_tokens, then reads lines from
// standard input until an empty line or its end: each is appended to the transcript with a newline
// and the text continued from it. Standard output receives the whole transcript (typed lines
// included when standard input is not a terminal, which already shows them). Each turn reads the
// transcript again (one prefill; its newest half when it no longer fits the context).
void run_interactive(const LoadedModel& loaded, std::string transcript,
                     const generate::GenerateOptions& options);

}  // namespace wgpt::cli
