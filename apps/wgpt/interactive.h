#pragma once
// `wgpt generate -i`: type a line, the model continues the text from it, type the next — one KV
// cache throughout (generate::Session), so a turn reads only its new text.

#include <string>

#include "model_options.h"
#include "wgpt/generate.h"

namespace wgpt::cli {

// Continues `first_text` (when not empty) for options.max_new_tokens, then reads lines from
// standard input until an empty line or its end: each line, with a newline before it where the
// text does not end with one and a newline after it, is encoded on its own, appended, and the text
// continued from it. Standard output receives the whole text the model continues (typed lines
// included when standard input is not a terminal, which already shows them; a stop string
// included, since the model has read it). A line the vocabulary cannot encode or the context
// cannot take is reported and dropped, and the session goes on; a full context without context
// shift ends it. A first text that cannot be encoded or is longer than the context is an error.
void run_interactive(const LoadedModel& loaded, const std::string& first_text,
                     const generate::GenerateOptions& options);

}  // namespace wgpt::cli
