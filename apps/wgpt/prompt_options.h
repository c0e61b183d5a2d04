#pragma once
// Where a command's prompt comes from: -p TEXT, -p - (standard input) or -f/--file FILE.

#include <CLI/CLI.hpp>
#include <string>

namespace wgpt::cli {

struct PromptOptions {
  std::string text;
  std::string file;
};

// Adds -p/--prompt and -f/--file (one or the other).
void add_prompt_options(CLI::App& command, PromptOptions& options);

// The prompt's text: -p's, standard input's for `-p -`, or the file's; empty when neither was
// given. Throws wgpt::Error naming the file that cannot be read.
std::string read_prompt(const PromptOptions& options);

// The whole of a regular file, read as text; throws wgpt::Error naming the file.
std::string read_text_file(const std::string& path);

}  // namespace wgpt::cli
