// wgpt — run, inspect and train GPT-2 models on any GPU WebGPU reaches.
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>

#include "commands.h"
#include "standard_output.h"
#include "wgpt/error.h"
#include "wgpt/version.h"

namespace {

// Exit statuses: 0 done, 1 the command failed (its message says why), 2 the command line is wrong.
constexpr int kFailed = 1;
constexpr int kUsageError = 2;

int report(const char* message) {
  std::fprintf(stderr, "wgpt: %s\n", message);
  return kFailed;
}

}  // namespace

int main(int argc, char** argv) {
  // A file-size limit (ulimit -f) then fails the write with EFBIG, which is reported like any
  // failed write, instead of killing the process with SIGXFSZ.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"wgpt: a WebGPU-native GPT-2 runtime"};
  app.set_version_flag("--version",
                       std::string("wgpt ") + std::string(wgpt::version()) +
                           "\ncommit: " + std::string(wgpt::commit()) +
                           "\nwebgpu: " + std::string(wgpt::webgpu_build()),
                       "Print the version, the commit and the WebGPU library it was built with");
  wgpt::cli::add_commands(app);
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
      // --help (status 0) prints to standard output, which is checked like any output.
      if (app.exit(error) != 0) return kUsageError;
    }
    wgpt::cli::finish_stdout();
  } catch (const std::bad_alloc&) {
    return report("not enough memory for this command (a smaller model, batch or context fits)");
  } catch (const std::exception& error) {
    return report(error.what());
  }
  return 0;
}
