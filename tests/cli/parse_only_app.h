#pragma once
// The tool's command line exactly as main() builds it, parsed in full — conversions, validators,
// requirements — but stopped before any command runs: the app's parse-complete callback, which
// CLI11 calls after checking everything and before the subcommands' callbacks, throws. (Replacing
// the subcommands' callbacks instead would free the commands their options write into.) For the
// option tests and the command-line fuzzer.

#include <string>
#include <vector>

#include "commands.h"

namespace wgpt::test {

class ParseOnlyApp {
 public:
  ParseOnlyApp() {
    cli::add_commands(app_);
    app_.parse_complete_callback([] { throw Parsed{}; });
  }

  // Parses `args` (without the program name) as `wgpt ARGS...` would; throws CLI11's ParseError
  // when main() would report a usage error (or --help). CLI11 clears the previous parse first.
  void parse(const std::vector<std::string>& args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    try {
      app_.parse(reversed);
    } catch (const Parsed&) {
    }
  }

 private:
  struct Parsed {};
  CLI::App app_{"wgpt"};
};

}  // namespace wgpt::test
