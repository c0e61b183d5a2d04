#include "commands.h"

namespace wgpt::cli {

void add_commands(CLI::App& app) {
  app.require_subcommand(1);
  // A flag takes no value (`--flag=VALUE` is a usage error). Besides being clearer, this keeps a
  // value away from CLI11 2.1's conversion for negated flags (`--no-context-shift=1e30`-like
  // numbers past long long), whose std::out_of_range escaped the parser (found by fuzz_cli).
  // Subcommands copy these defaults when they are added.
  app.option_defaults()->disable_flag_override();
  add_info_command(app);
  add_generate_command(app);
  add_tokenize_command(app);
  add_capture_command(app);
  add_init_command(app);
  add_bench_command(app);
  add_data_command(app);
  add_train_command(app);
  add_trace_command(app);
  add_score_command(app);
  add_council_command(app);
  add_top_command(app);
  add_convert_command(app);
  add_serve_command(app);
  add_serve_bench_command(app);
  add_completion_command(app);
}

}  // namespace wgpt::cli
