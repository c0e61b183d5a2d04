#pragma once
// The API key check: `Authorization: Bearer KEY`, compared in constant time so that how long the
// check takes says nothing about how much of a guess was right.

#include <string_view>

namespace wgpt::serve {

// Whether `given` equals `expected`, taking time that depends on the lengths only.
bool same_secret(std::string_view given, std::string_view expected);

// Whether an Authorization header carries `key` as its bearer token.
bool authorizes(std::string_view authorization_header, std::string_view key);

}  // namespace wgpt::serve
