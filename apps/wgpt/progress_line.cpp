#include "progress_line.h"

#include <unistd.h>

#include <cstdio>

namespace wgpt::cli {

ProgressLine::ProgressLine() : terminal_(isatty(fileno(stderr)) != 0) {}

void ProgressLine::update(const std::string& text) {
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  shown_ = true;
}

void ProgressLine::done() {
  if (terminal_ && shown_) std::fprintf(stderr, "\n");
  shown_ = false;
}

}  // namespace wgpt::cli
