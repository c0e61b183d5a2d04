#pragma once
// Whole-file reads of a tokenizer's text files.

#include <filesystem>
#include <string>

namespace wgpt::tokenizer {

// Throws wgpt::Error naming the path when the file cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace wgpt::tokenizer
