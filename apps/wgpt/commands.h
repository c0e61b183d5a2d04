#pragma once
// Each subcommand of the wgpt tool lives in its own file and registers itself here.

#include <CLI/CLI.hpp>

namespace wgpt::cli {

// Every subcommand below, registered on the tool's app (main, and the tests and fuzzer of the
// command line, build the same app).
void add_commands(CLI::App& app);

void add_info_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_tokenize_command(CLI::App& app);
void add_capture_command(CLI::App& app);
void add_init_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_data_command(CLI::App& app);
void add_train_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_score_command(CLI::App& app);
void add_council_command(CLI::App& app);
void add_top_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_serve_bench_command(CLI::App& app);
// Last: its script lists every command registered before it (and itself).
void add_completion_command(CLI::App& app);

}  // namespace wgpt::cli
