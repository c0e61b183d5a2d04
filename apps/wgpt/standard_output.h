#pragma once
// Standard output is an output like any file: a write that fails (a full disk, /dev/full, a pipe
// whose reader is gone) is a wgpt::Error, so no command exits 0 having lost what it printed.

#include <string_view>

namespace wgpt::cli {

// Writes `text` and flushes it at once (text streamed as it is generated); throws wgpt::Error when
// the write fails, so that a long generation stops at the first lost token.
void write_stdout(std::string_view text);

// Flushes standard output and throws wgpt::Error when that, or any earlier write to it (printf
// included: the stream's error flag is sticky), failed. main() calls it before exiting 0; a
// command calls it wherever its printed lines must be out before it goes on.
void finish_stdout();

}  // namespace wgpt::cli
