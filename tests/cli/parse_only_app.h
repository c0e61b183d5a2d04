#pragma once
// The tool's command line exactly as main() builds it, with every subcommand's action replaced by
// nothing: parsing — conversions, validators, requirements — runs in full, no command does. For
// the option tests and the command-line fuzzer.

#include <memory>

#include "commands.h"

namespace wgpt::test {

inline void disable_actions(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands(std::function<bool(CLI::App*)>{})) {
    sub->callback([] {});
    disable_actions(*sub);
  }
}

inline std::unique_ptr<CLI::App> parse_only_app() {
  auto app = std::make_unique<CLI::App>("wgpt");
  cli::add_commands(*app);
  disable_actions(*app);
  return app;
}

}  // namespace wgpt::test
