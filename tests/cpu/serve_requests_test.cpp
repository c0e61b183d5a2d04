// The bodies of /v1/completions and /v1/chat/completions: what a good request becomes, and every
// class of bad input answered with its status, the field at fault and a sentence that says why.
#include <gtest/gtest.h>

#include <cmath>

#include "serve/api_error.h"
#include "serve/generation_request.h"
#include "test_support.h"

namespace wgpt::test {
namespace {

using serve::ApiError;
using serve::GenerationRequest;

class ServeRequests : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bpe_ = tokenizer::load_tokenizer(hf_fixture("gpt2-tiny")).release();
  }
  static void TearDownTestSuite() { delete bpe_; }

  serve::ServedModel model() const { return {"tiny", *bpe_, 128, bpe_->vocab_size()}; }
  GenerationRequest completion(const char* body) const {
    return serve::parse_completion_request(nlohmann::json::parse(body), model());
  }
  GenerationRequest chat(const char* body) const {
    return serve::parse_chat_request(nlohmann::json::parse(body), model());
  }

  static tokenizer::Tokenizer* bpe_;
};
tokenizer::Tokenizer* ServeRequests::bpe_ = nullptr;

struct BadBody {
  const char* body;
  int status;
  const char* param;     // "" for none
  const char* fragment;  // part of the message
};

void expect_refused(const std::function<void()>& parse, const BadBody& bad) {
  try {
    parse();
    ADD_FAILURE() << bad.body << ": accepted";
  } catch (const ApiError& error) {
    const nlohmann::ordered_json body = error.body()["error"];
    EXPECT_EQ(error.status(), bad.status) << bad.body;
    EXPECT_EQ(body["param"].is_null() ? "" : body["param"].get<std::string>(), bad.param)
        << bad.body;
    EXPECT_NE(std::string(error.what()).find(bad.fragment), std::string::npos)
        << bad.body << ": " << error.what();
    EXPECT_EQ(body["type"], serve::error_type(bad.status));
  }
}

TEST_F(ServeRequests, CompletionDefaults) {
  const GenerationRequest request = completion(R"({"prompt": "Hello world", "model": "tiny"})");
  EXPECT_EQ(request.prompt.ids, (std::vector<uint32_t>{15496, 995}));
  EXPECT_EQ(request.prompt.text, "Hello world");
  EXPECT_EQ(request.max_tokens, 16u);  // OpenAI's default
  EXPECT_FALSE(request.sampling.greedy);
  EXPECT_EQ(request.sampling.temperature, 1.0f);
  EXPECT_EQ(request.sampling.top_p, 1.0f);
  EXPECT_EQ(request.sampling.top_k, 0u);
  EXPECT_EQ(request.n, 1u);
  EXPECT_FALSE(request.stream || request.echo || request.logprobs || request.probe.any());
  EXPECT_TRUE(request.stop.empty());
}

TEST_F(ServeRequests, CompletionFields) {
  const GenerationRequest request = completion(R"({
    "prompt": [15496, 995], "max_tokens": 5, "temperature": 0, "top_p": 0.5, "top_k": 7,
    "seed": 42, "n": 2, "stop": "\n", "logprobs": 3, "echo": true, "stream": true,
    "stream_options": {"include_usage": true}, "presence_penalty": 0, "logit_bias": {},
    "best_of": 2, "user": "someone", "wgpt": {"attention": true, "top": 5}})");
  EXPECT_EQ(request.prompt.text, "Hello world");
  EXPECT_TRUE(request.sampling.greedy);
  EXPECT_EQ(request.sampling.top_p, 0.5f);
  EXPECT_EQ(request.sampling.top_k, 7u);
  EXPECT_EQ(request.stop, std::vector<std::string>{"\n"});
  EXPECT_TRUE(request.echo && request.stream && request.include_usage);
  const std::vector<serve::SequenceRequest> sequences = request.sequences();
  ASSERT_EQ(sequences.size(), 2u);
  EXPECT_EQ(sequences[0].sampling.seed, 42u);
  EXPECT_EQ(sequences[1].sampling.seed, 43u) << "choice i samples from seed + i";
  EXPECT_EQ(sequences[1].choice, 1u);
  EXPECT_EQ(sequences[0].max_tokens, 5u);
  EXPECT_TRUE(sequences[0].report.logprob && sequences[0].report.attention);
  EXPECT_EQ(sequences[0].report.top, 5u) << "the larger of logprobs and the probe's top";
}

TEST_F(ServeRequests, Penalties) {
  const GenerationRequest request = completion(R"({
    "prompt": "hi", "presence_penalty": 0.5, "frequency_penalty": -1, "repeat_penalty": 1.3,
    "repeat_last_n": 8, "min_p": 0.05, "ignore_eos": true,
    "logit_bias": {"50256": -100, "13": 2.5}})");
  EXPECT_EQ(request.sampling.presence_penalty, 0.5f);
  EXPECT_EQ(request.sampling.frequency_penalty, -1.0f);
  EXPECT_EQ(request.sampling.repeat_penalty, 1.3f);
  EXPECT_EQ(request.sampling.penalty_last_n, 8u);
  EXPECT_EQ(request.sampling.min_p, 0.05f);
  EXPECT_TRUE(request.ignore_eos && request.sequences()[0].ignore_eos);
  ASSERT_EQ(request.sampling.logit_bias.size(), 2u);
  EXPECT_EQ(request.sampling.logit_bias.at(13), 2.5f);
  EXPECT_TRUE(std::isinf(request.sampling.logit_bias.at(50256)) &&
              request.sampling.logit_bias.at(50256) < 0)
      << "-100 bans the token, as OpenAI's";
}

TEST_F(ServeRequests, PromptForms) {
  EXPECT_EQ(completion(R"({"prompt": ["Hello world"]})").prompt.ids,
            (std::vector<uint32_t>{15496, 995}));
  EXPECT_EQ(completion(R"({"prompt": [[15496, 995]]})").prompt.text, "Hello world");
  // The whole context may be asked for.
  EXPECT_EQ(completion(R"({"prompt": "Hello", "max_tokens": 127})").max_tokens, 127u);
}

TEST_F(ServeRequests, BadCompletions) {
  const BadBody cases[] = {
      {R"([1, 2])", 400, "", "must be a JSON object"},
      {R"({"prompt": "hi", "temprature": 1})", 400, "temprature",
       "Unrecognized request argument supplied: temprature"},
      {R"({})", 400, "prompt", "is required"},
      {R"({"prompt": 42})", 400, "prompt", "a string or an array of token ids"},
      {R"({"prompt": ""})", 400, "prompt", "is empty"},
      {R"({"prompt": []})", 400, "prompt", "is empty"},
      {R"({"prompt": [1, 50257]})", 400, "prompt", "integers from 0 to 50256, not 50257"},
      {R"({"prompt": [1, -1]})", 400, "prompt", "integers from 0 to 50256, not -1"},
      {R"({"prompt": [1, "a"]})", 400, "prompt", "integers from 0 to 50256"},
      {R"({"prompt": ["a", "b"]})", 400, "prompt", "one prompt per request"},
      {R"({"prompt": "hi", "max_tokens": -1})", 400, "max_tokens", "an integer from 0"},
      {R"({"prompt": "hi", "max_tokens": 1.5})", 400, "max_tokens", "must be an integer"},
      {R"({"prompt": "hi", "max_tokens": 128})", 400, "max_tokens",
       "maximum context length is 128 tokens, however you requested 129 tokens (1 in your "
       "prompt; 128 for the completion)"},
      {R"({"prompt": "hi", "temperature": 2.5})", 400, "temperature", "between 0 and 2, not 2.5"},
      {R"({"prompt": "hi", "temperature": "hot"})", 400, "temperature", "must be a number"},
      {R"({"prompt": "hi", "top_p": 0})", 400, "top_p", "greater than 0"},
      {R"({"prompt": "hi", "top_p": 1.5})", 400, "top_p", "between 0 and 1"},
      {R"({"prompt": "hi", "top_k": -3})", 400, "top_k", "an integer from 0"},
      {R"({"prompt": "hi", "n": 0})", 400, "n", "an integer from 1 to 16, not 0"},
      {R"({"prompt": "hi", "n": 17})", 400, "n", "an integer from 1 to 16, not 17"},
      {R"({"prompt": "hi", "seed": "x"})", 400, "seed", "must be an integer"},
      {R"({"prompt": "hi", "seed": 18446744073709551615})", 400, "seed", "an integer from"},
      {R"({"prompt": "hi", "stop": ["a", "b", "c", "d", "e"]})", 400, "stop", "up to 4"},
      {R"({"prompt": "hi", "stop": [""]})", 400, "stop", "must not be empty"},
      {R"({"prompt": "hi", "stop": 7})", 400, "stop", "a string or an array"},
      {R"({"prompt": "hi", "logprobs": 21})", 400, "logprobs", "from 0 to 20"},
      {R"({"prompt": "hi", "echo": "yes"})", 400, "echo", "must be true or false"},
      {R"({"prompt": "hi", "stream_options": {"include_usage": true}})", 400, "stream_options",
       "only allowed when 'stream' is true"},
      {R"({"prompt": "hi", "stream": true, "stream_options": {"x": 1}})", 400, "stream_options.x",
       "Unrecognized request argument supplied: stream_options.x"},
      {R"({"prompt": "hi", "presence_penalty": -2.5})", 400, "presence_penalty",
       "between -2 and 2"},
      {R"({"prompt": "hi", "repeat_penalty": 0})", 400, "repeat_penalty", "greater than 0"},
      {R"({"prompt": "hi", "repeat_last_n": 2000})", 400, "repeat_last_n", "from 0 to 128"},
      {R"({"prompt": "hi", "min_p": 1.5})", 400, "min_p", "between 0 and 1"},
      {R"({"prompt": "hi", "logit_bias": [1]})", 400, "logit_bias", "must be an object"},
      {R"({"prompt": "hi", "logit_bias": {"x1": 1}})", 400, "logit_bias", "token ids from 0"},
      {R"({"prompt": "hi", "logit_bias": {"50257": 1}})", 400, "logit_bias", "token ids from 0"},
      {R"({"prompt": "hi", "logit_bias": {"7": "a"}})", 400, "logit_bias.7", "must be a number"},
      {R"({"prompt": "hi", "frequency_penalty": 3})", 400, "frequency_penalty", "between -2 and 2"},
      {R"({"prompt": "hi", "best_of": 2})", 400, "best_of", "equal to 'n'"},
      {R"({"prompt": "hi", "suffix": "end"})", 400, "suffix", "not supported"},
      {R"({"prompt": "hi", "model": "gpt-4"})", 404, "model",
       "The model 'gpt-4' does not exist: this server serves 'tiny'"},
      {R"({"prompt": "hi", "model": 7})", 400, "model", "must be a string"},
      {R"({"prompt": "hi", "wgpt": true})", 400, "wgpt", "'wgpt' must be a JSON object"},
      {R"({"prompt": "hi", "wgpt": {"top": 101}})", 400, "wgpt.top", "from 0 to 100"},
      {R"({"prompt": "hi", "wgpt": {"atention": true}})", 400, "wgpt.atention",
       "Unrecognized request argument supplied: wgpt.atention"},
  };
  for (const BadBody& bad : cases) expect_refused([&] { completion(bad.body); }, bad);
}

TEST_F(ServeRequests, ChatTranscript) {
  const GenerationRequest request = chat(R"({"model": "tiny", "messages": [
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": "Hi"},
      {"role": "assistant", "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "!"}]},
      {"role": "user", "content": "Bye", "name": "ann"}], "stop": ["."], "logprobs": true,
      "top_logprobs": 2})");
  EXPECT_EQ(request.prompt.text, "Be brief.\n\nUser: Hi\nAssistant: Hello!\nUser: Bye\nAssistant:");
  EXPECT_EQ(request.prompt.ids, bpe_->encode(request.prompt.text));
  EXPECT_EQ(request.stop, (std::vector<std::string>{".", "\nUser:"}));
  EXPECT_EQ(request.max_tokens, 128 - request.prompt.ids.size()) << "the rest of the context";
  EXPECT_TRUE(request.chat && request.logprobs);
  EXPECT_EQ(request.top_logprobs, 2u);
  const char* both = R"({"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 9,
                         "max_completion_tokens": 4})";
  EXPECT_EQ(chat(both).max_tokens, 4u) << "max_completion_tokens wins";
}

TEST_F(ServeRequests, BadChats) {
  const BadBody cases[] = {
      {R"({})", 400, "messages", "is required"},
      {R"({"messages": []})", 400, "messages", "non-empty array"},
      {R"({"messages": ["hi"]})", 400, "messages[0]", "'messages[0]' must be a JSON object"},
      {R"({"messages": [{"role": "tool", "content": "x"}]})", 400, "messages[0].role",
       "must be system, developer, user or assistant, not 'tool'"},
      {R"({"messages": [{"content": "x"}]})", 400, "messages[0].role", "is required"},
      {R"({"messages": [{"role": "user"}]})", 400, "messages[0].content", "is required"},
      {R"({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]})", 400,
       "messages[0].content", "GPT-2 reads text only"},
      {R"({"messages": [{"role": "user", "content": [{"type": 5, "text": "x"}]}]})", 400,
       "messages[0].content", "GPT-2 reads text only"},
      {R"({"messages": [{"role": "user", "content": "x", "tool_calls": []}]})", 400,
       "messages[0].tool_calls", "Unrecognized"},
      {R"({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 2})", 400,
       "top_logprobs", "needs 'logprobs': true"},
      {R"({"messages": [{"role": "user", "content": "x"}], "tools": []})", 400, "tools",
       "Unrecognized request argument supplied: tools"},
      {R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0})", 400, "max_tokens",
       "an integer from 1"},
      {R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 125})", 400, "max_tokens",
       "maximum context length is 128 tokens"},
  };
  for (const BadBody& bad : cases) expect_refused([&] { chat(bad.body); }, bad);
  std::string long_chat = R"({"messages": [{"role": "user", "content": ")";
  for (int i = 0; i < 200; ++i) long_chat += "word ";
  long_chat += R"("}]})";
  expect_refused([&] { chat(long_chat.c_str()); },
                 {"200 words", 400, "messages", "maximum context length is 128 tokens"});
}

TEST_F(ServeRequests, TextOutsideACharacterVocabulary) {
  const auto characters = tokenizer::load_tokenizer(hf_fixture("char-tiny"));
  const serve::ServedModel model{"char", *characters, 64, characters->vocab_size()};
  expect_refused(
      [&] { serve::parse_completion_request(nlohmann::json::parse(R"({"prompt": "é"})"), model); },
      {"é", 400, "prompt", "'prompt' cannot be tokenized"});
}

TEST_F(ServeRequests, BodyThatIsNotJson) {
  expect_refused([] { serve::parse_body(R"({"prompt": )"); },
                 {"truncated", 400, "", "the request body is not valid JSON"});
  expect_refused([] { serve::parse_body("{\"prompt\": \"\xff\"}"); },
                 {"invalid UTF-8", 400, "", "the request body is not valid JSON"});
  // A number past double's range is nlohmann's out_of_range, not a parse_error: it ended the
  // server (found by fuzz_serve_request).
  expect_refused([] { serve::parse_body("177E1662622"); },
                 {"number overflow", 400, "", "the request body is not valid JSON"});
  expect_refused([] { serve::parse_body(R"({"max_tokens": 1e999})"); },
                 {"number overflow in a field", 400, "", "the request body is not valid JSON"});
}

}  // namespace
}  // namespace wgpt::test
