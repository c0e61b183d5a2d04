// The generation loop's stop strings and context shift on the CPU backend: a shifted run goes on
// past the context, and after each shift it continues exactly as a fresh run from the kept half.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"
#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

struct Fixture {
  model::Model model = model::Model::load(test::hf_fixture("char-tiny"));
  std::unique_ptr<tokenizer::Tokenizer> tokenizer =
      tokenizer::load_tokenizer(test::hf_fixture("char-tiny"));
};

GenerateResult greedy(const Fixture& f, std::span<const uint32_t> prompt, size_t tokens,
                      bool context_shift, std::vector<std::string> stop_strings = {},
                      const TextCallback& on_text = {}) {
  GenerateOptions options;
  options.max_new_tokens = tokens;
  options.sampling.greedy = true;
  options.stop_at_end_of_text = false;
  options.context_shift = context_shift;
  options.stop_strings = std::move(stop_strings);
  return generate(f.model, *f.tokenizer, prompt, options, on_text);
}

TEST(GenerateContext, WithoutShiftTheContextIsAWall) {
  const Fixture f;
  const std::vector<uint32_t> prompt = f.tokenizer->encode("ROMEO:");
  const GenerateResult result = greedy(f, prompt, 150, false);
  EXPECT_EQ(result.stop, StopReason::context_full);
  EXPECT_EQ(prompt.size() + result.ids.size(), f.model.config().n_ctx + 1)
      << "the last token is generated but has no position left to run at";
  EXPECT_EQ(result.context_shifts, 0u);
}

TEST(GenerateContext, ShiftContinuesAsAFreshRunFromTheNewestHalf) {
  const Fixture f;
  const size_t n_ctx = f.model.config().n_ctx;
  const std::vector<uint32_t> prompt = f.tokenizer->encode("ROMEO:");
  const size_t tokens = 3 * n_ctx;
  const GenerateResult shifted = greedy(f, prompt, tokens, true);
  ASSERT_EQ(shifted.ids.size(), tokens) << "stopped: " << to_string(shifted.stop);
  EXPECT_EQ(shifted.stop, StopReason::max_tokens);
  EXPECT_GE(shifted.context_shifts, 4u);

  // The first shift comes when the context holds n_ctx + 1 tokens: the newest n_ctx / 2 stay.
  std::vector<uint32_t> all = prompt;
  all.insert(all.end(), shifted.ids.begin(), shifted.ids.end());
  const size_t first_shift = n_ctx + 1;  // tokens of `all` seen when it happens
  const std::vector<uint32_t> kept(
      all.begin() + static_cast<std::ptrdiff_t>(first_shift - n_ctx / 2),
      all.begin() + static_cast<std::ptrdiff_t>(first_shift));
  const GenerateResult fresh = greedy(f, kept, tokens, false);
  ASSERT_EQ(fresh.stop, StopReason::context_full);
  const auto after_shift = all.begin() + static_cast<std::ptrdiff_t>(first_shift);
  EXPECT_EQ(std::vector<uint32_t>(after_shift,
                                  after_shift + static_cast<std::ptrdiff_t>(fresh.ids.size())),
            fresh.ids)
      << "after the shift, the run continues as a fresh run from the kept half until the next";
}

TEST(GenerateContext, StopStringEndsTheTextBeforeIt) {
  const Fixture f;
  const std::vector<uint32_t> prompt = f.tokenizer->encode("ROMEO:");
  const std::string text = greedy(f, prompt, 40, false).text;
  ASSERT_GE(text.size(), 20u);
  const std::string stop = text.substr(12, 3);
  std::string streamed;
  const GenerateResult result =
      greedy(f, prompt, 40, false, {"never there", stop}, [&](std::string_view piece) {
        streamed += piece;
        return true;
      });
  EXPECT_EQ(result.stop, StopReason::stop_string);
  EXPECT_EQ(result.text, text.substr(0, text.find(stop)));
  EXPECT_EQ(streamed, result.text)
      << "a held-back tail that became the stop string is not streamed";

  const GenerateResult unmatched = greedy(f, prompt, 40, false, {"never there"});
  EXPECT_EQ(unmatched.stop, StopReason::max_tokens);
  EXPECT_EQ(unmatched.text, text)
      << "a tail held back as a possible stop string comes out at the end";
  EXPECT_THROW(greedy(f, prompt, 4, false, {""}), Error);
}

}  // namespace
}  // namespace wgpt::generate
