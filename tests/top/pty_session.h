#pragma once
// A program run on a pseudo-terminal of a given size, as a person at a terminal would run it:
// keys go in, the screen's output comes back, and the text on it can be searched with its escape
// sequences taken out.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace wgpt::test {

class PtySession {
 public:
  // Starts argv[0] with `argv` and `environment` (NAME=value entries added to this process's).
  PtySession(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
             int rows, int columns);
  ~PtySession();
  PtySession(const PtySession&) = delete;
  PtySession& operator=(const PtySession&) = delete;

  void send(const std::string& keys);
  // Forgets the output so far: later searches see only what comes after.
  void mark();
  // Reads until the text since the mark matches `pattern` (returning the match) or the time runs
  // out.
  std::optional<std::smatch> wait_for(const std::regex& pattern, std::chrono::milliseconds timeout);
  // The output since the mark, escape sequences and control characters replaced by spaces and
  // runs of spaces folded into one.
  std::string text() const { return text_; }
  // The exit status once the program has ended, or none after `timeout`.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);

 private:
  // Reads what is there within `timeout_ms`; false once the terminal is closed.
  bool read_some(int timeout_ms);
  pid_t child_ = -1;
  int terminal_ = -1;
  std::string raw_;   // since the mark
  std::string text_;  // raw_ made plain
};

// Terminal output as plain text (see PtySession::text).
std::string plain_text(const std::string& raw);

}  // namespace wgpt::test
