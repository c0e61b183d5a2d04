#include "serve/http_answer.h"

namespace wgpt::serve {

std::string json_text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void answer_json(httplib::Response& response, int status, const Json& body) {
  response.status = status;
  response.set_content(json_text(body), "application/json");
}

void answer_error(httplib::Response& response, const ApiError& error) {
  if (error.status() == 429 || error.status() == 503) response.set_header("Retry-After", "1");
  answer_json(response, error.status(), error.body());
}

void check_admission(Admission admission, size_t queue_capacity) {
  if (admission == Admission::queue_full) {
    throw ApiError(429,
                   "the server is busy: every slot is taken and its queue of " +
                       std::to_string(queue_capacity) + " is full; retry later",
                   {}, "queue_full");
  }
  if (admission == Admission::shutting_down) {
    throw ApiError(503, "the server is shutting down", {}, "shutting_down");
  }
}

}  // namespace wgpt::serve
