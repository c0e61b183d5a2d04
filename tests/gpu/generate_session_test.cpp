// generate::Session on the GPU: turns prefilled at the cache's position (the general forward
// pass) and decoded on the fused path give, greedily, the tokens of one generate() from the whole
// context on the GPU, and the CPU backend's session's tokens — past the context too.
#include <gtest/gtest.h>

#include "cpu/generate_session_checks.h"
#include "wgpt/decoder.h"
#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

// The tokens of each turn of a session over `texts`.
std::vector<std::vector<uint32_t>> session_ids(const model::Model& model,
                                               const tokenizer::Tokenizer& tokenizer,
                                               const std::vector<std::string>& texts,
                                               const GenerateOptions& options) {
  Session session(model, tokenizer, options);
  std::vector<std::vector<uint32_t>> turns;
  for (const std::string& text : texts)
    turns.push_back(session.continue_with(tokenizer.encode(text)).ids);
  return turns;
}

TEST(GenerateSessionGpu, GreedyTurnsEqualWholeRunsAndTheCpu) {
  const auto path = test::session_fixture("char-tiny");
  const auto tokenizer = tokenizer::load_tokenizer(path);
  const model::Model cpu = model::Model::load(path);
  const model::Model gpu = model::Model::load(path, test::gpu_context());
  ASSERT_TRUE(model::Decoder::supported(gpu));
  const GenerateOptions options = test::session_options(16, {.greedy = true});
  const test::SessionShifts shifts =
      test::expect_turns_equal_whole_runs(gpu, *tokenizer, test::long_session_texts(), options);
  EXPECT_GE(shifts.before_turn, 1u);
  EXPECT_GE(shifts.while_generating, 1u);
  EXPECT_EQ(session_ids(gpu, *tokenizer, test::long_session_texts(), options),
            session_ids(cpu, *tokenizer, test::long_session_texts(), options));
}

}  // namespace
}  // namespace wgpt::generate
