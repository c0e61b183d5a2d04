#pragma once
// Reads a request body's fields as OpenAI's API does: a null field counts as absent, a field of
// the wrong type or out of range is a 400 naming it, and a field nobody read is rejected as
// "Unrecognized request argument supplied: NAME" — a misspelt option never passes silently.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace wgpt::serve {

// The request body as JSON; a 400 naming the parse error otherwise.
nlohmann::json parse_body(std::string_view body);

class RequestFields {
 public:
  // `object` must outlive the reader; `object_name` is empty for the body itself, else the
  // field that holds the object ("wgpt"), which errors put before its fields' names.
  explicit RequestFields(const nlohmann::json& object, std::string object_name = {});

  // The field, or null when absent or null; marks it read.
  const nlohmann::json* get(std::string_view name);
  std::optional<bool> boolean(std::string_view name);
  std::optional<double> number(std::string_view name, double low, double high);
  std::optional<int64_t> integer(std::string_view name, int64_t low, int64_t high);
  std::optional<std::string> string(std::string_view name);
  // Throws for the first field no getter asked for.
  void reject_unread() const;

  // A field's name as errors give it: "top" in "wgpt" is "wgpt.top".
  std::string name(std::string_view field) const;

 private:
  const nlohmann::json& object_;
  std::string object_name_;
  std::set<std::string, std::less<>> read_;
};

}  // namespace wgpt::serve
