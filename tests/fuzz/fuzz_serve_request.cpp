// libFuzzer target: request bodies of `wgpt serve`'s generation endpoints on arbitrary bytes. A
// body is accepted or refused with wgpt::serve::ApiError — never another exception, a crash or a
// hang — and an accepted one keeps the promises the scheduler relies on: a non-empty prompt of
// ids in the vocabulary that fits the context with max_tokens, 1 to 16 choices.

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "serve/api_error.h"
#include "serve/generation_request.h"

namespace {

// A character vocabulary of printable ASCII: small, and any text outside it is refused.
const wgpt::tokenizer::Tokenizer& characters() {
  static const auto tokenizer = [] {
    nlohmann::json vocabulary = nlohmann::json::object();
    for (int c = 32; c < 127; ++c) vocabulary[std::string(1, static_cast<char>(c))] = c - 32;
    vocabulary["\n"] = 95;
    return wgpt::tokenizer::CharTokenizer::from_json(vocabulary.dump());
  }();
  return *tokenizer;
}

void check(const wgpt::serve::GenerationRequest& request, const wgpt::serve::ServedModel& model) {
  const size_t prompt = request.prompt.ids.size();
  if (prompt == 0 || prompt + request.max_tokens > model.n_ctx) std::abort();
  for (uint32_t id : request.prompt.ids) {
    if (id >= model.vocab_size) std::abort();
  }
  if (request.n < 1 || request.n > wgpt::serve::kMaxChoices) std::abort();
  if (request.sequences().size() != request.n) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const wgpt::tokenizer::Tokenizer& tokenizer = characters();
  const wgpt::serve::ServedModel model{"fuzz", tokenizer, 64, tokenizer.vocab_size()};
  // The first byte chooses the endpoint; the rest is the body.
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const nlohmann::json parsed = wgpt::serve::parse_body(body);
    if (data[0] % 2 == 0) {
      check(wgpt::serve::parse_completion_request(parsed, model), model);
    } else {
      check(wgpt::serve::parse_chat_request(parsed, model), model);
    }
  } catch (const wgpt::serve::ApiError& error) {
    if (error.status() != 400 && error.status() != 404) std::abort();
  }
  return 0;
}
