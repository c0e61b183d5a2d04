#pragma once
// A command's text output: a file, or standard output when it is named "-" (as every Unix tool).
// A file is written as every output is (io::OutputFile: a temporary beside it, renamed over it
// when complete), so a failed command leaves an existing file as it was; standard output's writes
// are checked (standard_output.h).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "wgpt/io.h"

namespace wgpt::cli {

// Whether an output option names standard output.
inline bool is_standard_output(const std::filesystem::path& path) { return path == "-"; }

// For an output that must be a file (binary formats, which a terminal cannot take): throws
// wgpt::Error when `path` is "-", naming the option and the format.
void require_file(const std::filesystem::path& path, const std::string& option,
                  const std::string& format);

class TextOutput {
 public:
  // Creates the file's temporary at once, so that an unwritable path fails before any work is
  // done; throws wgpt::Error naming it. An existing file is untouched until close().
  explicit TextOutput(const std::filesystem::path& path);

  void write(std::string_view text);
  // Completes the output (the file renamed into place, standard output flushed); throws
  // wgpt::Error naming it when any write failed.
  void close();
  // "standard output", or the file's path: for messages.
  std::string name() const;

 private:
  std::filesystem::path path_;
  std::optional<io::OutputFile> file_;  // absent for standard output
};

}  // namespace wgpt::cli
