// wgpt — run, inspect and train GPT-2 models on any GPU WebGPU reaches.
#include <cstdio>
#include <exception>

#include "commands.h"
#include "wgpt/error.h"

int main(int argc, char** argv) {
  CLI::App app{"wgpt: a WebGPU-native GPT-2 runtime"};
  app.require_subcommand(1);
  wgpt::cli::add_info_command(app);
  wgpt::cli::add_generate_command(app);
  wgpt::cli::add_tokenize_command(app);
  wgpt::cli::add_capture_command(app);
  wgpt::cli::add_init_command(app);
  wgpt::cli::add_bench_command(app);
  wgpt::cli::add_data_command(app);
  wgpt::cli::add_train_command(app);
  wgpt::cli::add_trace_command(app);
  wgpt::cli::add_score_command(app);
  wgpt::cli::add_serve_command(app);
  wgpt::cli::add_serve_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "wgpt: %s\n", error.what());
    return 1;
  }
  return 0;
}
