// The shapes the server answers with, from scheduler events: OpenAI's text_completion and
// chat.completion objects and their stream chunks, both logprobs layouts, echo, usage, and the
// probe's per-token extension.
#include <gtest/gtest.h>

#include <cmath>

#include "serve/generation_response.h"
#include "test_support.h"

namespace wgpt::test {
namespace {

using serve::FinishReason;
using serve::GenerationRequest;
using serve::GenerationResponse;
using serve::Json;
using serve::SequenceEvent;
using serve::TokenRecord;

class ServeResponse : public ::testing::Test {
 protected:
  // The GPT-2 tokenizer takes a while to load: once for the suite.
  static void SetUpTestSuite() {
    tokenizer_ = tokenizer::load_tokenizer(hf_fixture("gpt2-tiny")).release();
  }
  static void TearDownTestSuite() { delete tokenizer_; }

  ServeResponse() : model_{"tiny", *tokenizer_, 128, 50257} {
    config_.n_layer = 2;
    config_.n_head = 1;
  }

  // Token `id` with probability p, the alternatives (id 11 first), and one attention row over
  // two keys per layer.
  static SequenceEvent token(size_t choice, uint32_t id, const char* text, float p = 0.5f) {
    TokenRecord record{id, std::log(p), {{11, 0.6f}, {id, p}}, 2, {0.25f, 0.75f, 0.5f, 0.5f}};
    return {.choice = choice, .text = text, .token = std::move(record)};
  }
  static SequenceEvent finish(size_t choice, FinishReason reason) {
    return {.choice = choice, .finish = reason};
  }

  static tokenizer::Tokenizer* tokenizer_;
  serve::ServedModel model_;
  model::Config config_;
};
tokenizer::Tokenizer* ServeResponse::tokenizer_ = nullptr;

TEST_F(ServeResponse, CompletionObject) {
  GenerationRequest request;
  request.prompt = {{15496, 995}, "Hello world"};
  request.n = 2;
  request.echo = true;
  request.logprobs = true;
  request.top_logprobs = 1;
  request.probe = {.attention = true, .top = 2};
  model::Surprisal prompt_scores;
  prompt_scores.tokens = {{15496, std::nullopt, {}}, {995, 2.0, {{11, 0.5f}}}};
  GenerationResponse response(request, model_, config_, prompt_scores);
  response.add(token(0, 0, "!"));
  response.add(token(1, 1, "\""));
  EXPECT_FALSE(response.finished());
  response.add(finish(0, FinishReason::length));
  response.add(finish(1, FinishReason::stop));
  ASSERT_TRUE(response.finished());

  const Json object = response.object();
  EXPECT_EQ(object["object"], "text_completion");
  EXPECT_EQ(object["model"], "tiny");
  EXPECT_EQ(object["id"].get<std::string>().rfind("cmpl-", 0), 0u);
  EXPECT_EQ(object["usage"],
            Json({{"prompt_tokens", 2}, {"completion_tokens", 2}, {"total_tokens", 4}}));
  const Json& first = object["choices"][0];
  EXPECT_EQ(first["index"], 0);
  EXPECT_EQ(first["text"], "Hello world!");
  EXPECT_EQ(first["finish_reason"], "length");
  EXPECT_EQ(object["choices"][1]["finish_reason"], "stop");
  const Json& logprobs = first["logprobs"];
  EXPECT_EQ(logprobs["tokens"], Json({"Hello", " world", "!"}));
  EXPECT_TRUE(logprobs["token_logprobs"][0].is_null()) << "the first prompt token is not scored";
  EXPECT_NEAR(logprobs["token_logprobs"][1].get<double>(), -2.0 * std::log(2.0), 1e-12);
  EXPECT_NEAR(logprobs["token_logprobs"][2].get<double>(), std::log(0.5), 1e-6);
  EXPECT_EQ(logprobs["text_offset"], Json({0, 5, 11}));
  EXPECT_EQ(logprobs["top_logprobs"][2].size(), 1u) << "logprobs: 1 alternative";
  EXPECT_NEAR(logprobs["top_logprobs"][2][","].get<double>(), std::log(0.6), 1e-6)
      << "id 11 is ','";
  const Json& probe = first["wgpt"]["tokens"][0];
  EXPECT_EQ(probe["id"], 0);
  EXPECT_EQ(probe["kv_len"], 2);
  EXPECT_EQ(probe["attention"], Json({{{0.25, 0.75}}, {{0.5, 0.5}}})) << "[layer][head][key]";
  EXPECT_EQ(probe["top"].size(), 2u);
  EXPECT_EQ(probe["top"][0]["id"], 11);
}

TEST_F(ServeResponse, CompletionStream) {
  GenerationRequest request;
  request.prompt = {{15496}, "Hello"};
  request.echo = true;
  request.stream = true;
  request.include_usage = true;
  GenerationResponse response(request, model_, config_, std::nullopt);
  const std::vector<Json> opening = response.opening_chunks();
  ASSERT_EQ(opening.size(), 1u);
  EXPECT_EQ(opening[0]["choices"][0]["text"], "Hello") << "echo opens the stream";
  const std::optional<Json> chunk = response.chunk(token(0, 0, "!"));
  ASSERT_TRUE(chunk.has_value());
  EXPECT_EQ(chunk->dump(), Json({{"id", opening[0]["id"]},
                                 {"object", "text_completion"},
                                 {"created", opening[0]["created"]},
                                 {"model", "tiny"},
                                 {"choices", Json::array({{{"index", 0},
                                                           {"text", "!"},
                                                           {"logprobs", nullptr},
                                                           {"finish_reason", nullptr}}})}})
                               .dump());
  EXPECT_FALSE(response.chunk(token(0, 1, "")).has_value()) << "held-back text: nothing to say";
  const std::optional<Json> last = response.chunk(finish(0, FinishReason::length));
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ((*last)["choices"][0]["finish_reason"], "length");
  EXPECT_TRUE(response.finished());
  const Json usage = response.usage_chunk();
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], 2);
}

TEST_F(ServeResponse, Chat) {
  GenerationRequest request;
  request.chat = true;
  request.prompt = {{15496}, "Hello"};
  request.logprobs = true;
  request.top_logprobs = 1;
  request.stream = true;
  GenerationResponse streamed(request, model_, config_, std::nullopt);
  const std::vector<Json> opening = streamed.opening_chunks();
  ASSERT_EQ(opening.size(), 1u);
  EXPECT_EQ(opening[0]["object"], "chat.completion.chunk");
  EXPECT_EQ(opening[0]["choices"][0]["delta"], Json({{"role", "assistant"}, {"content", ""}}));
  const Json chunk = *streamed.chunk(token(0, 0, "!"));
  EXPECT_EQ(chunk["choices"][0]["delta"], Json({{"content", "!"}}));
  const Json& entry = chunk["choices"][0]["logprobs"]["content"][0];
  EXPECT_EQ(entry["token"], "!");
  EXPECT_EQ(entry["bytes"], Json({33}));
  EXPECT_EQ(entry["top_logprobs"][0]["token"], ",");
  EXPECT_EQ(entry["top_logprobs"].size(), 1u);

  request.stream = false;
  GenerationResponse whole(request, model_, config_, std::nullopt);
  whole.add(token(0, 0, "Hi"));
  whole.add(finish(0, FinishReason::stop));
  const Json object = whole.object();
  EXPECT_EQ(object["object"], "chat.completion");
  EXPECT_EQ(object["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(object["choices"][0]["message"], Json({{"role", "assistant"}, {"content", "Hi"}}));
  EXPECT_EQ(object["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(object["choices"][0]["logprobs"]["content"].size(), 1u);
}

}  // namespace
}  // namespace wgpt::test
