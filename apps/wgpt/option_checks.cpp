#include "option_checks.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "wgpt/error.h"

namespace wgpt::cli {
namespace {

bool all_digits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

bool leading_zero(const std::string& text) { return text.size() > 1 && text[0] == '0'; }

std::string number_text(double value) {
  if (value >= kLargestFloat) return "inf";
  if (value <= -kLargestFloat) return "-inf";
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace

CLI::Validator whole_number(uint64_t min, uint64_t max) {
  const std::string range =
      "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        uint64_t value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (!all_digits(text) || leading_zero(text) || error != std::errc() ||
            end != text.data() + text.size() || value < min || value > max) {
          return "'" + text + "' is not " + range + " (decimal digits, no leading zero)";
        }
        return {};
      },
      "[" + std::to_string(min) + ".." + std::to_string(max) + "]");
}

CLI::Validator real_number(double low, double high, const char* ends) {
  const bool low_open = ends[0] == '(', high_open = ends[1] == ')';
  const std::string range = (low_open ? "(" : "[") + number_text(low) + ", " + number_text(high) +
                            (high_open ? ")" : "]");
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        // strtod also reads leading spaces, hex floats, "inf" and "nan": only plain decimals pass.
        const bool plain =
            !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
        const bool inside =
            (low_open ? value > low : value >= low) && (high_open ? value < high : value <= high);
        if (!plain || end != text.c_str() + text.size() || !std::isfinite(value) || !inside ||
            std::fabs(value) > kLargestFloat) {
          return "'" + text + "' is not a number in " + range;
        }
        return {};
      },
      range);
}

std::vector<uint32_t> parse_token_ids(const std::string& text, const std::string& option) {
  std::vector<uint32_t> ids;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string field =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    uint32_t id = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), id);
    if (!all_digits(field) || error != std::errc() || end != field.data() + field.size()) {
      throw Error(option + ": '" + field.substr(0, 40) +
                  "' is not a token id (expected ids below 2^32 separated by commas, e.g. 1,2,3)");
    }
    ids.push_back(id);
    if (comma == std::string::npos) return ids;
    start = comma + 1;
  }
}

}  // namespace wgpt::cli
