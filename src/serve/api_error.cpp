#include "serve/api_error.h"

namespace wgpt::serve {

ApiError::ApiError(int status, const std::string& message, std::string param, std::string code)
    : std::runtime_error(message),
      status_(status),
      param_(std::move(param)),
      code_(std::move(code)) {}

const char* error_type(int status) {
  switch (status) {
    case 401:
      return "authentication_error";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

nlohmann::ordered_json ApiError::body() const {
  auto or_null = [](const std::string& s) {
    return s.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(s);
  };
  return {{"error",
           {{"message", what()},
            {"type", error_type(status_)},
            {"param", or_null(param_)},
            {"code", or_null(code_)}}}};
}

}  // namespace wgpt::serve
