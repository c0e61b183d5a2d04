#include "serve/api_key.h"

namespace wgpt::serve {

bool same_secret(std::string_view given, std::string_view expected) {
  // Every byte of `given` is compared, against `expected` cycled (or itself when that is empty),
  // and the lengths' difference joins the result: no early exit, no branch on the contents.
  const std::string_view against = expected.empty() ? given : expected;
  volatile unsigned char difference = given.size() != expected.size();
  for (size_t i = 0; i < given.size(); ++i) {
    difference = difference | (static_cast<unsigned char>(given[i]) ^
                               static_cast<unsigned char>(against[i % against.size()]));
  }
  return difference == 0;
}

bool authorizes(std::string_view authorization_header, std::string_view key) {
  constexpr std::string_view kScheme = "Bearer ";
  if (!authorization_header.starts_with(kScheme)) return false;
  return same_secret(authorization_header.substr(kScheme.size()), key);
}

}  // namespace wgpt::serve
