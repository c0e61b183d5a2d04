#pragma once
// The one place where the tool checks the values given on its command line. Every numeric option
// of every subcommand takes one of these validators, which read the text before CLI11 converts
// it: left alone, CLI11 turns "-1" into 2^64 - 1 for an unsigned option, "99999999999999999999"
// into the largest uint64, "010" into 8 (octal) and "nan" into a float. Here each of those is an
// error that names the option and the accepted range.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace wgpt::cli {

inline constexpr uint64_t kAnyUint64 = std::numeric_limits<uint64_t>::max();
// Every real-valued option is a float: larger magnitudes would become infinity.
inline constexpr double kLargestFloat = std::numeric_limits<float>::max();

// A whole number in decimal digits from `min` to `max`, without a leading zero (which CLI11 would
// read as octal).
CLI::Validator whole_number(uint64_t min, uint64_t max);

// A finite decimal number between `low` and `high`; `ends` says whether each end is included:
// "[]", "[)", "(]" or "()". E.g. real_number(0, 1, "(]") for a probability mass.
CLI::Validator real_number(double low, double high, const char* ends);

// Token ids written "1,2,3": decimal, each below 2^32, no empty field (so "1,2," is an error,
// not the ids 1 and 2). Throws wgpt::Error naming `option` and the offending field.
std::vector<uint32_t> parse_token_ids(const std::string& text, const std::string& option);

}  // namespace wgpt::cli
