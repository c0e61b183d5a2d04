// The endpoints besides generation: /v1/score, /tokenize, /detokenize, /v1/models, /health,
// /metrics.
#include <algorithm>
#include <cmath>

#include "serve/handlers.h"
#include "serve/http_answer.h"
#include "serve/request_fields.h"

namespace wgpt::serve {
namespace {

Json scored_token_json(const tokenizer::Tokenizer& tokenizer, const model::TokenSurprisal& token) {
  Json top = Json::array();
  for (const model::TopToken& alternative : token.alternatives) {
    top.push_back({{"id", alternative.id},
                   {"text", tokenizer.token_bytes(alternative.id)},
                   {"logprob", std::log(alternative.probability)}});
  }
  const bool scored = token.bits.has_value();
  return {{"id", token.id},
          {"text", tokenizer.token_bytes(token.id)},
          {"logprob", scored ? Json(-*token.bits * std::log(2.0)) : Json(nullptr)},
          {"bits", scored ? Json(*token.bits) : Json(nullptr)},
          {"top_logprobs", std::move(top)}};
}

}  // namespace

void handle_score(ServerState& state, const httplib::Request& request,
                  httplib::Response& response) {
  const nlohmann::json body = parse_body(request.body);
  RequestFields fields(body);
  check_model_name(fields.get("model"), state.served);
  const Prompt prompt = read_prompt(fields.get("prompt"), state.served, "prompt");
  const auto top =
      static_cast<size_t>(fields.integer("top_logprobs", 0, kMaxTopLogprobs).value_or(0));
  fields.reject_unread();
  const size_t count = prompt.ids.size();
  if (count < 2) {
    throw ApiError(400,
                   "'prompt' must have at least two tokens: the first has nothing before it to be "
                   "predicted from",
                   "prompt");
  }
  if (count > state.served.n_ctx) {
    throw ApiError(400,
                   "'prompt' has " + std::to_string(count) +
                       " tokens, more than the model's context of " +
                       std::to_string(state.served.n_ctx) + ": score it in parts",
                   "prompt", "context_length_exceeded");
  }
  const model::Surprisal scored = score_on_model_thread(state, prompt.ids, top);
  Json tokens = Json::array();
  for (const model::TokenSurprisal& token : scored.tokens) {
    tokens.push_back(scored_token_json(state.served.tokenizer, token));
  }
  answer_json(response, 200,
              {{"object", "score"},
               {"model", state.served.name},
               {"tokens", std::move(tokens)},
               {"mean_bits", scored.mean_bits},
               {"perplexity", scored.perplexity},
               {"usage", {{"prompt_tokens", count}, {"total_tokens", count}}}});
}

void handle_tokenize(ServerState& state, const httplib::Request& request,
                     httplib::Response& response) {
  const nlohmann::json body = parse_body(request.body);
  RequestFields fields(body);
  const std::optional<std::string> content = fields.string("content");
  fields.reject_unread();
  if (!content) throw ApiError(400, "'content' is required: the text to tokenize", "content");
  std::vector<uint32_t> ids;
  try {
    ids = state.served.tokenizer.encode(*content);
  } catch (const Error& error) {
    throw ApiError(400, std::string("'content' cannot be tokenized: ") + error.what(), "content");
  }
  answer_json(response, 200, {{"tokens", ids}});
}

void handle_detokenize(ServerState& state, const httplib::Request& request,
                       httplib::Response& response) {
  const nlohmann::json body = parse_body(request.body);
  RequestFields fields(body);
  const nlohmann::json* tokens = fields.get("tokens");
  fields.reject_unread();
  if (!tokens)
    throw ApiError(400, "'tokens' is required: the token ids to turn into text", "tokens");
  if (!tokens->is_array() ||
      !std::all_of(tokens->begin(), tokens->end(), [](const auto& id) { return id.is_number(); })) {
    throw ApiError(400, "'tokens' must be an array of token ids", "tokens");
  }
  // An empty array is the empty text; read_prompt checks the ids otherwise.
  const std::string content =
      tokens->empty() ? std::string() : read_prompt(tokens, state.served, "tokens").text;
  answer_json(response, 200, {{"content", content}});
}

void handle_models(ServerState& state, httplib::Response& response) {
  const model::Config& config = state.model.config();
  const Json meta = {{"n_ctx", config.n_ctx},           {"n_layer", config.n_layer},
                     {"n_head", config.n_head},         {"n_embd", config.n_embd},
                     {"vocab_size", config.vocab_size}, {"parameters", config.parameter_count()}};
  answer_json(response, 200,
              {{"object", "list"},
               {"data", Json::array({{{"id", state.served.name},
                                      {"object", "model"},
                                      {"created", state.started_unix_seconds},
                                      {"owned_by", "wgpt"},
                                      {"meta", meta}}})}});
}

void handle_health(ServerState& state, httplib::Response& response) {
  if (state.shutting_down) {
    return answer_error(response,
                        ApiError(503, "the server is shutting down", {}, "shutting_down"));
  }
  answer_json(response, 200, {{"status", "ok"}});
}

void handle_metrics(ServerState& state, httplib::Response& response) {
  response.set_content(state.metrics.prometheus(state.scheduler.load(), Metrics::Clock::now()),
                       "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace wgpt::serve
