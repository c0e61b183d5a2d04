#include "serve/request_fields.h"

#include <cmath>

#include "serve/api_error.h"

namespace wgpt::serve {
namespace {

std::string number_text(double value) {
  nlohmann::json j = value;
  if (value == std::floor(value) && std::abs(value) < 1e15) j = static_cast<int64_t>(value);
  return j.dump();
}

}  // namespace

nlohmann::json parse_body(std::string_view body) {
  try {
    return nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& error) {  // a parse_error, or out_of_range (1e999)
    throw ApiError(400, std::string("the request body is not valid JSON: ") + error.what());
  }
}

RequestFields::RequestFields(const nlohmann::json& object, std::string object_name)
    : object_(object), object_name_(std::move(object_name)) {
  if (!object.is_object()) {
    const std::string what = object_name_.empty() ? "the request body" : "'" + object_name_ + "'";
    throw ApiError(400, what + " must be a JSON object", object_name_);
  }
}

std::string RequestFields::name(std::string_view field) const {
  return object_name_.empty() ? std::string(field) : object_name_ + "." + std::string(field);
}

const nlohmann::json* RequestFields::get(std::string_view field) {
  read_.emplace(field);
  const auto it = object_.find(field);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<bool> RequestFields::boolean(std::string_view field) {
  const nlohmann::json* value = get(field);
  if (!value) return std::nullopt;
  if (!value->is_boolean())
    throw ApiError(400, "'" + name(field) + "' must be true or false", name(field));
  return value->get<bool>();
}

std::optional<double> RequestFields::number(std::string_view field, double low, double high) {
  const nlohmann::json* value = get(field);
  if (!value) return std::nullopt;
  if (!value->is_number())
    throw ApiError(400, "'" + name(field) + "' must be a number", name(field));
  const double x = value->get<double>();
  if (!(x >= low && x <= high)) {
    throw ApiError(400,
                   "'" + name(field) + "' must be between " + number_text(low) + " and " +
                       number_text(high) + ", not " + number_text(x),
                   name(field));
  }
  return x;
}

std::optional<int64_t> RequestFields::integer(std::string_view field, int64_t low, int64_t high) {
  const nlohmann::json* value = get(field);
  if (!value) return std::nullopt;
  if (!value->is_number_integer()) {
    throw ApiError(400, "'" + name(field) + "' must be an integer", name(field));
  }
  const bool above =
      value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(high);
  const int64_t x = above ? high : value->get<int64_t>();
  if (above || x < low || x > high) {
    throw ApiError(400,
                   "'" + name(field) + "' must be an integer from " + std::to_string(low) + " to " +
                       std::to_string(high) + ", not " + value->dump(),
                   name(field));
  }
  return x;
}

std::optional<std::string> RequestFields::string(std::string_view field) {
  const nlohmann::json* value = get(field);
  if (!value) return std::nullopt;
  if (!value->is_string())
    throw ApiError(400, "'" + name(field) + "' must be a string", name(field));
  return value->get<std::string>();
}

void RequestFields::reject_unread() const {
  for (const auto& [key, value] : object_.items()) {
    if (!read_.contains(key)) {
      throw ApiError(400, "Unrecognized request argument supplied: " + name(key), name(key));
    }
  }
}

}  // namespace wgpt::serve
