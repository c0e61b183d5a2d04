// The command line's values: every numeric option of every subcommand refuses what CLI11 alone
// would wrap or accept silently, and token id lists are parsed strictly.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "option_checks.h"
#include "parse_only_app.h"
#include "wgpt/error.h"

namespace wgpt::cli {
namespace {

struct NumericOption {
  std::string command;  // "generate", "data brown"
  std::string name;     // "--tokens"
  bool real;
};

void collect(const CLI::App& app, const std::string& path, std::vector<NumericOption>& out) {
  for (const CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    const bool whole = type.rfind("UINT", 0) == 0 || type.rfind("INT", 0) == 0;
    const bool real = type.rfind("FLOAT", 0) == 0;
    if ((whole || real) && !option->get_lnames().empty()) {
      out.push_back({path, "--" + option->get_lnames()[0], real});
    }
  }
  for (const CLI::App* sub : app.get_subcommands(std::function<bool(const CLI::App*)>{})) {
    collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
  }
}

// Parses `wgpt COMMAND OPTION=VALUE`; true when the value itself was refused (an error about this
// option; another option's, such as a required one missing, means the value passed). One app
// parses every case, as in the command-line fuzzer: CLI11 clears the previous parse first, and
// building the whole command line anew for each of ~1,000 cases was most of this test's time.
bool refused(const NumericOption& option, const std::string& value) {
  static test::ParseOnlyApp app;
  std::vector<std::string> args;
  for (size_t start = 0, space; start <= option.command.size(); start = space + 1) {
    space = option.command.find(' ', start);
    if (space == std::string::npos) space = option.command.size();
    args.push_back(option.command.substr(start, space - start));
  }
  args.push_back(option.name + "=" + value);
  try {
    app.parse(args);
  } catch (const CLI::RequiredError&) {
    return false;
  } catch (const CLI::ParseError& error) {
    // CLI11 names a flag given a value without its dashes, at the start.
    const std::string what = error.what();
    return what.find(option.name) != std::string::npos ||
           what.rfind(option.name.substr(2) + " ", 0) == 0;
  }
  return false;
}

const std::set<std::string> kSignedOptions = {"--presence-penalty", "--frequency-penalty"};

TEST(CommandLineOptions, EveryNumericOptionRefusesWrappedOrNonFiniteValues) {
  CLI::App app;
  add_commands(app);
  std::vector<NumericOption> options;
  collect(app, "", options);
  ASSERT_GT(options.size(), 30u);  // every subcommand's counts, rates and seeds
  for (const NumericOption& option : options) {
    SCOPED_TRACE(option.command + " " + option.name);
    for (const char* value : {"nan", "inf", "1e999", " 1", "", "x"}) {
      EXPECT_TRUE(refused(option, value)) << "accepted '" << value << "'";
    }
    // The penalties subtract any finite amount, a negative one too; nothing else is negative.
    if (!kSignedOptions.contains(option.name)) {
      EXPECT_TRUE(refused(option, "-1")) << "accepted '-1'";
    }
    // A float holds 1e20 but not 1e39; a count holds neither 2^64 nor a hex, octal or signed text.
    const auto more =
        option.real ? std::vector<const char*>{"1e39", "-1e39"}
                    : std::vector<const char*>{"99999999999999999999", "0x10", "1.5", "+3", "010"};
    for (const char* value : more) {
      EXPECT_TRUE(refused(option, value)) << "accepted '" << value << "'";
    }
  }
}

// Every long name of every flag (those of negated flags such as --no-context-shift too).
void collect_flags(const CLI::App& app, const std::string& path, std::vector<NumericOption>& out) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_expected_max() != 0) continue;  // takes values
    for (const std::string& name : option->get_lnames()) {
      if (name != "help" && name != "version") out.push_back({path, "--" + name, false});
    }
  }
  for (const CLI::App* sub : app.get_subcommands(std::function<bool(const CLI::App*)>{})) {
    collect_flags(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
  }
}

// A flag takes no value: CLI11 2.1 converted a negated flag's value with std::stoll, whose
// out_of_range escaped the parser for a number past long long (fuzz_cli found it for
// --no-context-shift); a malformed --logit-bias was a runtime error, not a usage error.
TEST(CommandLineOptions, FlagsTakeNoValueAndMalformedValuesAreUsageErrors) {
  CLI::App app;
  add_commands(app);
  std::vector<NumericOption> flags;
  collect_flags(app, "", flags);
  ASSERT_GT(flags.size(), 10u);
  for (const NumericOption& flag : flags) {
    SCOPED_TRACE(flag.command + " " + flag.name);
    for (const char* value : {"100000000000000000000", "1", "yes"}) {
      EXPECT_TRUE(refused(flag, value)) << "accepted '" << value << "'";
    }
  }
  for (const char* bad : {"--format", "5", "x=1", "5=x", "99999999999=1", "=1"}) {
    EXPECT_TRUE(refused({"generate", "--logit-bias", true}, bad)) << bad;
  }
  EXPECT_FALSE(refused({"generate", "--logit-bias", true}, "5=-inf"));
}

TEST(CommandLineOptions, ShapeOptionsRefuseZero) {
  // --heads 0 used to reach a division by zero (SIGFPE), --layers 0 an unloadable model.
  for (const char* name : {"--layers", "--heads", "--embd", "--ctx", "--steps", "--batch"}) {
    EXPECT_TRUE(refused({"train", name, false}, "0")) << name;
  }
  EXPECT_TRUE(refused({"bench", "--repetitions", false}, "0"));
  EXPECT_TRUE(refused({"generate", "--temp", true}, "-0.5"));
  EXPECT_FALSE(refused({"generate", "--temp", true}, "0"));  // greedy
  EXPECT_TRUE(refused({"generate", "--top-p", true}, "1.5"));
  EXPECT_TRUE(refused({"generate", "--top-p", true}, "0"));
  EXPECT_TRUE(refused({"generate", "--min-p", true}, "1.5"));
  EXPECT_TRUE(refused({"generate", "--repeat-penalty", true}, "0"));
  EXPECT_FALSE(refused({"generate", "--presence-penalty", true}, "-1"));
  EXPECT_TRUE(refused({"serve", "--port", false}, "65536"));
  EXPECT_TRUE(refused({"serve", "--parallel", false}, "0"));
  EXPECT_TRUE(refused({"train", "--dropout", true}, "1"));
}

TEST(CommandLineOptions, WholeNumbersAreDecimal) {
  CLI::App app;
  uint64_t value = 0;
  app.add_option("--n", value)->check(whole_number(0, 100));
  app.parse(std::vector<std::string>{"--n=100"});
  EXPECT_EQ(value, 100u);
  app.parse(std::vector<std::string>{"--n=0"});
  EXPECT_EQ(value, 0u);
  // CLI11 alone reads "010" as octal 8: a leading zero is refused rather than guessed at.
  EXPECT_THROW(app.parse(std::vector<std::string>{"--n=010"}), CLI::ValidationError);
  EXPECT_THROW(app.parse(std::vector<std::string>{"--n=101"}), CLI::ValidationError);
}

TEST(CommandLineOptions, RealNumbersHonourOpenAndClosedEnds) {
  CLI::App app;
  float value = 0;
  app.add_option("--p", value)->check(real_number(0, 1, "(]"));
  app.parse(std::vector<std::string>{"--p=1"});
  EXPECT_EQ(value, 1.0f);
  app.parse(std::vector<std::string>{"--p=2.5e-1"});
  EXPECT_EQ(value, 0.25f);
  EXPECT_THROW(app.parse(std::vector<std::string>{"--p=0"}), CLI::ValidationError);
  EXPECT_THROW(app.parse(std::vector<std::string>{"--p=0x1p-2"}), CLI::ValidationError);
}

TEST(TokenIds, ParseStrictly) {
  EXPECT_EQ(parse_token_ids("1,2,3", "--ids"), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(parse_token_ids("4294967295", "--ids"), (std::vector<uint32_t>{4294967295u}));
  for (const char* bad : {"1,2,", ",1", "1,,2", "", "4294967296", "-1", "1, 2", "0x1", "1e3"}) {
    EXPECT_THROW(parse_token_ids(bad, "--ids"), Error) << bad;
  }
  try {
    parse_token_ids("5,", "--ids");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--ids: '' is not a token id"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace wgpt::cli
