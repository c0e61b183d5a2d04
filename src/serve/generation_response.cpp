#include "serve/generation_response.h"

#include <chrono>
#include <cmath>
#include <random>

namespace wgpt::serve {
namespace {

std::string random_id(const char* prefix) {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = prefix;
  for (int i = 0; i < 24; ++i) id += kHex[generator() % 16];
  return id;
}

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Json bytes_json(const std::string& bytes) {
  Json values = Json::array();
  for (unsigned char byte : bytes) values.push_back(byte);
  return values;
}

}  // namespace

GenerationResponse::GenerationResponse(const GenerationRequest& request, const ServedModel& model,
                                       const model::Config& config,
                                       std::optional<model::Surprisal> prompt_scores)
    : request_(request),
      model_(model),
      n_layer_(config.n_layer),
      n_head_(config.n_head),
      prompt_scores_(std::move(prompt_scores)),
      id_(random_id(request.chat ? "chatcmpl-" : "cmpl-")),
      created_(unix_seconds()),
      choices_(request.n) {}

Json GenerationResponse::envelope(bool chunk) const {
  const char* object = !request_.chat ? "text_completion"
                       : chunk        ? "chat.completion.chunk"
                                      : "chat.completion";
  return {{"id", id_}, {"object", object}, {"created", created_}, {"model", model_.name}};
}

Json GenerationResponse::choice_json(const ChoicePart& part, size_t& text_offset) const {
  Json choice = {{"index", part.index}};
  if (!request_.chat) {
    choice["text"] = part.text;
  } else {
    Json message = Json::object();
    if (!part.chunk || part.opening) message["role"] = "assistant";
    if (!part.chunk || part.opening || !part.text.empty()) message["content"] = part.text;
    choice[part.chunk ? "delta" : "message"] = std::move(message);
  }
  const bool with_prompt = request_.echo && (part.opening || !part.chunk);
  choice["logprobs"] = part.tokens.empty() && !with_prompt
                           ? Json(nullptr)
                           : logprobs_json(part.tokens, with_prompt, text_offset);
  choice["finish_reason"] = part.finish ? Json(to_string(*part.finish)) : Json(nullptr);
  if (request_.probe.any() && !part.tokens.empty()) choice["wgpt"] = probe_json(part.tokens);
  return choice;
}

Json GenerationResponse::logprobs_json(std::span<const TokenRecord> tokens, bool with_prompt,
                                       size_t& offset) const {
  if (!request_.logprobs) return nullptr;
  if (request_.chat) return chat_logprobs(tokens);
  const tokenizer::Tokenizer& tokenizer = model_.tokenizer;
  Json texts = Json::array(), logprobs = Json::array(), tops = Json::array(),
       offsets = Json::array();
  auto top_json = [&](std::span<const model::TopToken> top) {
    Json entry = Json::object();
    for (const model::TopToken& t : top.first(std::min(top.size(), request_.top_logprobs))) {
      entry[tokenizer.token_bytes(t.id)] = std::log(t.probability);
    }
    return entry;
  };
  auto add = [&](uint32_t id, Json logprob, Json top) {
    const std::string text = tokenizer.token_bytes(id);
    texts.push_back(text);
    logprobs.push_back(std::move(logprob));
    tops.push_back(std::move(top));
    offsets.push_back(offset);
    offset += text.size();
  };
  if (with_prompt && prompt_scores_) {
    for (const model::TokenSurprisal& token : prompt_scores_->tokens) {
      if (!token.bits) {
        add(token.id, nullptr, nullptr);  // the first token has no prediction
      } else {
        add(token.id, -*token.bits * std::log(2.0), top_json(token.alternatives));
      }
    }
  }
  for (const TokenRecord& token : tokens) add(token.id, token.logprob, top_json(token.top));
  return {{"tokens", std::move(texts)},
          {"token_logprobs", std::move(logprobs)},
          {"top_logprobs", std::move(tops)},
          {"text_offset", std::move(offsets)}};
}

Json GenerationResponse::chat_logprobs(std::span<const TokenRecord> tokens) const {
  const tokenizer::Tokenizer& tokenizer = model_.tokenizer;
  Json content = Json::array();
  for (const TokenRecord& token : tokens) {
    Json top = Json::array();
    const size_t count = std::min(token.top.size(), request_.top_logprobs);
    for (const model::TopToken& t : std::span(token.top).first(count)) {
      const std::string text = tokenizer.token_bytes(t.id);
      top.push_back(
          {{"token", text}, {"logprob", std::log(t.probability)}, {"bytes", bytes_json(text)}});
    }
    const std::string text = tokenizer.token_bytes(token.id);
    content.push_back({{"token", text},
                       {"logprob", token.logprob},
                       {"bytes", bytes_json(text)},
                       {"top_logprobs", std::move(top)}});
  }
  return {{"content", std::move(content)}};
}

Json GenerationResponse::probe_json(std::span<const TokenRecord> tokens) const {
  const tokenizer::Tokenizer& tokenizer = model_.tokenizer;
  Json list = Json::array();
  for (const TokenRecord& token : tokens) {
    Json entry = {{"id", token.id}, {"text", tokenizer.token_bytes(token.id)}};
    if (request_.probe.attention) {
      // attention[layer][head][key]: the new position's row over the kv_len keys.
      Json layers = Json::array();
      for (size_t layer = 0; layer < n_layer_; ++layer) {
        Json heads = Json::array();
        for (size_t head = 0; head < n_head_; ++head) {
          const auto row = std::span(token.attention)
                               .subspan((layer * n_head_ + head) * token.kv_len, token.kv_len);
          heads.push_back(std::vector<float>(row.begin(), row.end()));
        }
        layers.push_back(std::move(heads));
      }
      entry["kv_len"] = token.kv_len;
      entry["attention"] = std::move(layers);
    }
    if (request_.probe.top > 0) {
      Json top = Json::array();
      const size_t count = std::min(token.top.size(), request_.probe.top);
      for (const model::TopToken& t : std::span(token.top).first(count)) {
        top.push_back({{"id", t.id}, {"text", tokenizer.token_bytes(t.id)}, {"p", t.probability}});
      }
      entry["top"] = std::move(top);
    }
    list.push_back(std::move(entry));
  }
  return {{"tokens", std::move(list)}};
}

Json GenerationResponse::usage() const {
  const size_t prompt = request_.prompt.ids.size();
  return {{"prompt_tokens", prompt},
          {"completion_tokens", completion_tokens_},
          {"total_tokens", prompt + completion_tokens_}};
}

void GenerationResponse::note(const SequenceEvent& event) {
  if (event.token) ++completion_tokens_;
  if (event.finish) {
    choices_[event.choice].finish = event.finish;
    ++finished_;
  }
}

std::vector<Json> GenerationResponse::opening_chunks() {
  std::vector<Json> chunks;
  if (!request_.chat && !request_.echo) return chunks;
  for (size_t index = 0; index < choices_.size(); ++index) {
    Json chunk = envelope(true);
    const ChoicePart part{.index = index,
                          .text = request_.chat ? "" : request_.prompt.text,
                          .chunk = true,
                          .opening = true};
    chunk["choices"] = Json::array({choice_json(part, choices_[index].text_offset)});
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

std::optional<Json> GenerationResponse::chunk(const SequenceEvent& event) {
  note(event);
  const bool reports = event.token && (request_.logprobs || request_.probe.any());
  if (event.text.empty() && !event.finish && !reports) return std::nullopt;
  ChoicePart part{.index = event.choice, .text = event.text, .finish = event.finish, .chunk = true};
  if (event.token) part.tokens = std::span(&*event.token, 1);
  Json chunk = envelope(true);
  chunk["choices"] = Json::array({choice_json(part, choices_[event.choice].text_offset)});
  return chunk;
}

Json GenerationResponse::usage_chunk() const {
  Json chunk = envelope(true);
  chunk["choices"] = Json::array();
  chunk["usage"] = usage();
  return chunk;
}

void GenerationResponse::add(SequenceEvent event) {
  note(event);
  Choice& choice = choices_[event.choice];
  choice.text += event.text;
  if (event.token) choice.tokens.push_back(std::move(*event.token));
}

Json GenerationResponse::object() const {
  Json result = envelope(false);
  Json choices = Json::array();
  for (size_t index = 0; index < choices_.size(); ++index) {
    const Choice& choice = choices_[index];
    const ChoicePart part{.index = index,
                          .text = (request_.echo ? request_.prompt.text : "") + choice.text,
                          .tokens = choice.tokens,
                          .finish = choice.finish};
    size_t text_offset = 0;
    choices.push_back(choice_json(part, text_offset));
  }
  result["choices"] = std::move(choices);
  result["usage"] = usage();
  return result;
}

}  // namespace wgpt::serve
