#include "interactive.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "standard_output.h"

namespace wgpt::cli {

void run_interactive(const LoadedModel& loaded, std::string transcript,
                     const generate::GenerateOptions& options) {
  const size_t n_ctx = loaded.model.config().n_ctx;
  const bool echo = !isatty(fileno(stdin));
  auto turn = [&] {
    std::vector<uint32_t> ids = loaded.tokenizer->encode(transcript);
    if (ids.size() > n_ctx)
      ids.erase(ids.begin(), ids.end() - static_cast<std::ptrdiff_t>(n_ctx / 2));
    transcript += generate::generate(loaded.model, *loaded.tokenizer, ids, options,
                                     [](std::string_view text) {
                                       write_stdout(text);
                                       return true;
                                     })
                      .text;
  };
  std::fprintf(stderr,
               "interactive: type a line and press Enter, and the model continues the text from "
               "it; an empty line or the end of input ends\n");
  if (!transcript.empty()) {
    write_stdout(transcript);
    turn();
  }
  for (std::string line; std::getline(std::cin, line) && !line.empty();) {
    std::string added = transcript.empty() || transcript.back() == '\n' ? "" : "\n";
    added += line + "\n";
    if (echo) write_stdout(added);
    const size_t before = transcript.size();
    transcript += added;
    try {
      turn();
    } catch (const Error& error) {  // a line the vocabulary cannot encode: say so, go on
      std::fprintf(stderr, "wgpt: %s\n", error.what());
      transcript.resize(before);
    }
  }
  write_stdout("\n");
}

}  // namespace wgpt::cli
