#include "standard_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "wgpt/error.h"

namespace wgpt::cli {
namespace {

[[noreturn]] void fail() {
  throw Error(std::string("cannot write standard output: ") +
              (errno ? std::strerror(errno) : "write error"));
}

}  // namespace

void write_stdout(std::string_view text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    fail();
  }
}

void finish_stdout() {
  errno = 0;
  // std::cout (CLI11's help) shares stdout's buffer: sync_with_stdio is on.
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) fail();
}

}  // namespace wgpt::cli
