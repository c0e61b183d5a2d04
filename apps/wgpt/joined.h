#pragma once
// Words joined into one line, for the commands' messages and tables.

#include <string>
#include <string_view>
#include <vector>

namespace wgpt::cli {

inline std::string joined(const std::vector<std::string>& words, std::string_view separator = " ") {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += separator;
    line += word;
  }
  return line;
}

}  // namespace wgpt::cli
