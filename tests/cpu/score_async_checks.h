#pragma once
// generate::score_async against model::surprisal, shared by the CPU and GPU test binaries: the
// asynchronous scoring the browser uses must give the synchronous scores, window for window.

#include <gtest/gtest.h>

#include <optional>

#include "test_support.h"
#include "wgpt/generate.h"
#include "wgpt/probe.h"

namespace wgpt::test {

// Runs score_async to completion: on the CPU it has finished on return, on the GPU poll() drives
// it.
inline Result<model::Surprisal> score_to_completion(const model::Model& model,
                                                    std::vector<uint32_t> ids, size_t top_k) {
  std::optional<Result<model::Surprisal>> outcome;
  generate::score_async(model, std::move(ids), top_k, [&](Result<model::Surprisal> result) {
    outcome.emplace(std::move(result));
  });
  while (!outcome) {
    EXPECT_TRUE(model.on_gpu()) << "on the CPU score_async finishes before it returns";
    if (!model.on_gpu()) break;
    model.context()->poll();
  }
  return std::move(*outcome);
}

inline void expect_score_async_equals_surprisal(const model::Model& model,
                                                const std::vector<uint32_t>& ids, size_t windows) {
  const model::Surprisal expected = model::surprisal(model, ids, {.top_k = 4});
  Result<model::Surprisal> scored = score_to_completion(model, ids, 4);
  ASSERT_TRUE(scored.ok()) << scored.error().what();
  const model::Surprisal& actual = scored.value();
  ASSERT_EQ(actual.tokens.size(), ids.size());
  EXPECT_FALSE(actual.tokens[0].bits.has_value());
  for (size_t i = 1; i < ids.size(); ++i) {
    EXPECT_EQ(actual.tokens[i].id, ids[i]);
    ASSERT_TRUE(actual.tokens[i].bits.has_value());
    EXPECT_NEAR(*actual.tokens[i].bits, *expected.tokens[i].bits, 1e-9) << "token " << i;
    ASSERT_EQ(actual.tokens[i].alternatives.size(), 4u);
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(actual.tokens[i].alternatives[k].id, expected.tokens[i].alternatives[k].id);
    }
  }
  EXPECT_NEAR(actual.mean_bits, expected.mean_bits, 1e-9);
  EXPECT_NEAR(actual.perplexity, expected.perplexity, 1e-9);
  EXPECT_EQ(actual.windows, windows);
  EXPECT_EQ(actual.stride, expected.stride);
}

// One window, and a text past the context (char-tiny's 64 positions) in windows 32 apart.
inline void expect_score_async_equals_surprisal(std::shared_ptr<gpu::Context> context) {
  const auto model =
      model::Model::load(source_dir() / "tests/fixtures/hf/char-tiny", std::move(context));
  expect_score_async_equals_surprisal(model, {20, 43, 50, 50, 53, 1, 61, 53, 56, 50, 42}, 1);
  std::vector<uint32_t> long_text;
  for (uint32_t i = 0; i < 150; ++i) long_text.push_back((i * 7 + 3) % 65);
  expect_score_async_equals_surprisal(model, long_text, 1 + (150 - 64 + 31) / 32);
}

inline void expect_score_async_reports_bad_input(std::shared_ptr<gpu::Context> context) {
  const auto model =
      model::Model::load(source_dir() / "tests/fixtures/hf/char-tiny", std::move(context));
  auto message = [&](std::vector<uint32_t> ids) {
    Result<model::Surprisal> result = score_to_completion(model, std::move(ids), 3);
    return result.ok() ? std::string("no error") : std::string(result.error().what());
  };
  EXPECT_NE(message({7}).find("at least two tokens"), std::string::npos);
  EXPECT_NE(message({1, 99}).find("outside the vocabulary"), std::string::npos);
}

}  // namespace wgpt::test
