#pragma once
// What the tool asks of the operating system beyond standard C++, one small function each, with a
// branch for Linux, macOS and Windows (apps/wgpt/host.cpp).

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace wgpt::cli {

// The running executable's own path, or nullopt where the system cannot say.
std::optional<std::filesystem::path> executable_path();

// Whether `stream` (stdout, stderr) is a terminal rather than a file or a pipe.
bool is_terminal(std::FILE* stream);

// The command line this process was started with, each argument quoted where a shell would need
// it (what metrics.json records), or "" where the system cannot say.
std::string command_line();

}  // namespace wgpt::cli
