#include "context_notes.h"

#include <cstdio>

#include "standard_output.h"

namespace wgpt::cli {

void report_context(size_t n_ctx, const generate::GenerateResult& result) {
  if (result.stop != generate::StopReason::context_full && result.context_shifts == 0) return;
  finish_stdout();
  if (result.stop == generate::StopReason::context_full) {
    std::fprintf(stderr,
                 "stopped: the model's context of %zu tokens is full (--context-shift goes on)\n",
                 n_ctx);
  }
  if (result.context_shifts > 0) {
    std::fprintf(stderr,
                 "context shift: the context of %zu tokens filled %zu time(s); each time its "
                 "oldest half was dropped and the newest half read again\n",
                 n_ctx, result.context_shifts);
  }
}

}  // namespace wgpt::cli
