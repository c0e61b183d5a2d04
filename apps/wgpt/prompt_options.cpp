#include "prompt_options.h"

#include <iostream>
#include <iterator>

#include "wgpt/error.h"
#include "wgpt/io.h"

namespace wgpt::cli {

void add_prompt_options(CLI::App& command, PromptOptions& options) {
  CLI::Option* text = command.add_option("-p,--prompt", options.text,
                                         "The prompt text, or - to read it from standard input");
  CLI::Option* file = command.add_option("-f,--file", options.file, "A file holding the prompt");
  text->excludes(file);
}

std::string read_prompt(const PromptOptions& options) {
  if (options.text == "-") {
    std::string text(std::istreambuf_iterator<char>(std::cin), {});
    if (std::cin.bad()) throw Error("cannot read the prompt from standard input");
    return text;
  }
  if (options.file.empty()) return options.text;
  return read_text_file(options.file);
}

std::string read_text_file(const std::string& path) {
  constexpr uint64_t kMaxTextBytes = uint64_t{256} << 20;
  return io::read_file(path, kMaxTextBytes, "a text");
}

}  // namespace wgpt::cli
