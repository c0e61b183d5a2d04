#pragma once
// A progress line on standard error: rewritten in place on a terminal, and written whole, one line
// per update, when standard error is a log file or a pipe (where `\r` would pile every update
// into one unreadable line).

#include <string>

namespace wgpt::cli {

class ProgressLine {
 public:
  ProgressLine();
  void update(const std::string& text);
  // Ends the line on a terminal (after the last update).
  void done();

 private:
  bool terminal_;
  bool shown_ = false;
};

}  // namespace wgpt::cli
