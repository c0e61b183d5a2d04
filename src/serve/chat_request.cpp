// POST /v1/chat/completions for a model that was never taught to chat: the messages become a
// plain transcript that GPT-2 continues, and the reply is its continuation up to the next
// "\nUser:". Nothing about it is hidden (docs/serve.md shows the template):
//
//   <system and developer messages, each followed by a blank line>
//   User: <content>
//   Assistant: <content>
//   ...
//   Assistant:
#include "serve/api_error.h"
#include "serve/generation_request.h"

namespace wgpt::serve {
namespace {

constexpr const char* kNextTurn = "\nUser:";

std::string message_content(const nlohmann::json* content, const std::string& where) {
  const std::string field = where + ".content";
  if (!content) throw ApiError(400, "'" + field + "' is required", field);
  if (content->is_string()) return content->get<std::string>();
  if (!content->is_array()) {
    throw ApiError(400, "'" + field + "' must be a string or an array of text parts", field);
  }
  std::string text;
  auto text_part = [](const nlohmann::json& part) {
    return part.is_object() && part.contains("type") && part["type"] == "text" &&
           part.contains("text") && part["text"].is_string();
  };
  for (const nlohmann::json& part : *content) {
    if (!text_part(part)) {
      throw ApiError(400,
                     "'" + field + "' parts must be {\"type\": \"text\", \"text\": ...}: " +
                         "GPT-2 reads text only",
                     field);
    }
    text += part["text"].get<std::string>();
  }
  return text;
}

std::string transcript(const nlohmann::json* messages) {
  if (!messages) throw ApiError(400, "'messages' is required", "messages");
  if (!messages->is_array() || messages->empty()) {
    throw ApiError(400, "'messages' must be a non-empty array of messages", "messages");
  }
  std::string text;
  for (size_t i = 0; i < messages->size(); ++i) {
    const std::string where = "messages[" + std::to_string(i) + "]";
    RequestFields message((*messages)[i], where);
    const std::optional<std::string> role = message.string("role");
    const std::string content = message_content(message.get("content"), where);
    message.string("name");  // accepted; the transcript names roles only
    message.reject_unread();
    if (!role) throw ApiError(400, "'" + where + ".role' is required", where + ".role");
    if (*role == "system" || *role == "developer") {
      text += content + "\n\n";
    } else if (*role == "user") {
      text += "User: " + content + "\n";
    } else if (*role == "assistant") {
      text += "Assistant: " + content + "\n";
    } else {
      throw ApiError(
          400,
          "'" + where + ".role' must be system, developer, user or assistant, not '" + *role + "'",
          where + ".role");
    }
  }
  return text + "Assistant:";
}

}  // namespace

GenerationRequest parse_chat_request(const nlohmann::json& body, const ServedModel& model) {
  RequestFields fields(body);
  GenerationRequest request;
  request.chat = true;
  request.prompt.text = transcript(fields.get("messages"));
  try {
    request.prompt.ids = model.tokenizer.encode(request.prompt.text);
  } catch (const Error& error) {
    throw ApiError(400, std::string("'messages' cannot be tokenized: ") + error.what(), "messages");
  }
  // max_completion_tokens is OpenAI's newer name for max_tokens; without either, the reply may
  // fill the context.
  const std::optional<int64_t> max_tokens = fields.integer("max_tokens", 1, 1 << 30);
  const std::optional<int64_t> max_completion = fields.integer("max_completion_tokens", 1, 1 << 30);
  const size_t room = model.n_ctx - std::min(model.n_ctx, request.prompt.ids.size());
  request.max_tokens = static_cast<size_t>(max_completion.value_or(
      max_tokens.value_or(static_cast<int64_t>(std::max<size_t>(room, 1)))));
  read_generation_fields(fields, model, request);
  request.logprobs = fields.boolean("logprobs").value_or(false);
  if (const auto top = fields.integer("top_logprobs", 0, kMaxTopLogprobs)) {
    if (!request.logprobs) {
      throw ApiError(400, "'top_logprobs' needs 'logprobs': true", "top_logprobs");
    }
    request.top_logprobs = static_cast<size_t>(*top);
  }
  fields.reject_unread();
  request.stop.push_back(kNextTurn);
  check_context(request, model, "messages");
  return request;
}

}  // namespace wgpt::serve
