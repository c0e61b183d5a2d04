#pragma once
// An error answered to a client: an HTTP status and OpenAI's error object,
//   {"error": {"message": "...", "type": "...", "param": "..." | null, "code": "..." | null}}
// with the type following from the status (docs/serve.md lists them).

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace wgpt::serve {

class ApiError : public std::runtime_error {
 public:
  // `param`: the request field at fault, if one is; `code`: a machine-readable reason.
  ApiError(int status, const std::string& message, std::string param = {}, std::string code = {});

  int status() const { return status_; }
  nlohmann::ordered_json body() const;

 private:
  int status_;
  std::string param_, code_;
};

// "invalid_request_error", "authentication_error", ... for a status.
const char* error_type(int status);

}  // namespace wgpt::serve
