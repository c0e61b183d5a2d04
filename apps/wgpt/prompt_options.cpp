#include "prompt_options.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "wgpt/error.h"

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
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    throw Error("cannot read " + path + ": " +
                (std::filesystem::exists(path, error) ? "not a regular file" : "no such file"));
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw Error("cannot read " + path);
  return text.str();
}

}  // namespace wgpt::cli
