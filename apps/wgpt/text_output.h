#pragma once
// A command's text output: a file, or standard output when it is named "-" (as every Unix tool).

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace wgpt::cli {

// Whether an output option names standard output.
inline bool is_standard_output(const std::filesystem::path& path) { return path == "-"; }

// For an output that must be a file (binary formats, which a terminal cannot take): throws
// wgpt::Error when `path` is "-", naming the option and the format.
void require_file(const std::filesystem::path& path, const std::string& option,
                  const std::string& format);

class TextOutput {
 public:
  // Creates (truncates) the file at once, so that an unwritable path fails before any work is
  // done; throws wgpt::Error naming it.
  explicit TextOutput(const std::filesystem::path& path);

  void write(std::string_view text);
  // Flushes and closes; throws wgpt::Error naming the output when any write failed.
  void close();
  // "standard output", or the file's path: for messages.
  std::string name() const;

 private:
  std::filesystem::path path_;
  std::ofstream file_;
};

}  // namespace wgpt::cli
