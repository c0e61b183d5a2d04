// libFuzzer target: the command line. The input is split at NUL bytes into arguments and parsed
// by the tool's own app, stopped before any command runs: parsing must succeed or throw CLI11's
// ParseError (which main reports as a usage error), never anything else. The same bytes
// go through the value parsers the commands call after parsing (token ids, model configs).

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../cli/parse_only_app.h"
#include "option_checks.h"
#include "wgpt/model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  for (size_t start = 0; start <= input.size() && args.size() < 64;) {
    const size_t end = std::min(input.find('\0', start), input.size());
    args.push_back(input.substr(start, end - start));
    start = end + 1;
  }
  static wgpt::test::ParseOnlyApp app;  // built once: its construction costs more than a parse
  try {
    app.parse(args);
  } catch (const CLI::ParseError&) {
  }
  try {
    wgpt::cli::parse_token_ids(input, "--ids");
  } catch (const wgpt::Error&) {
  }
  try {
    wgpt::model::named_config(input);
  } catch (const wgpt::Error&) {
  }
  return 0;
}
