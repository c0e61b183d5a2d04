#pragma once
// What `wgpt generate` (and its -i turns) say on standard error about a context that filled.

#include <cstddef>

#include "wgpt/generate.h"

namespace wgpt::cli {

// Says that the run stopped at the full context, or how often it shifted the context; nothing
// when neither happened. Standard output is flushed first, so the note follows the text it is
// about.
void report_context(size_t n_ctx, const generate::GenerateResult& result);

}  // namespace wgpt::cli
