#pragma once
// Writing JSON answers and OpenAI's error objects onto cpp-httplib's responses.

#include <httplib.h>

#include "serve/api_error.h"
#include "serve/generation_response.h"
#include "serve/scheduler.h"

namespace wgpt::serve {

// Compact JSON text; bytes that are not valid UTF-8 (part of a character) become U+FFFD.
std::string json_text(const Json& value);
void answer_json(httplib::Response& response, int status, const Json& body);
// The error's status and object; 429 and 503 also say when to retry (Retry-After).
void answer_error(httplib::Response& response, const ApiError& error);
// Throws the ApiError a refused admission answers with (429 or 503).
void check_admission(Admission admission, size_t queue_capacity);

}  // namespace wgpt::serve
