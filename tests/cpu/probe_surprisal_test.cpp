// Teacher-forced surprisal on the CPU: against the goldens, and HF's sliding windows.
#include "cpu/probe_checks.h"

namespace wgpt::test::probe {
namespace {

TEST(ProbeSurprisalCpu, EqualsMinusLog2SoftmaxOfGoldenLogits) {
  expect_surprisal_matches_golden(nullptr, "gpt2-tiny");
  expect_surprisal_matches_golden(nullptr, "char-tiny");
}

// −log2 p(ids.back() | the rest), from one full forward pass.
double last_token_bits(const model::Model& model, std::span<const uint32_t> ids) {
  model::KvCache cache = model.new_cache();
  const std::vector<float> logits =
      model.forward(ids.first(ids.size() - 1), cache, {.all_logits = false}).logits.to_floats();
  const double top = *std::max_element(logits.begin(), logits.end());
  double total = 0;
  for (float logit : logits) total += std::exp(static_cast<double>(logit) - top);
  return -(logits[ids.back()] - top - std::log(total)) / std::log(2.0);
}

TEST(ProbeSurprisalCpu, LongTextsUseHfSlidingWindows) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  const size_t n_ctx = model.config().n_ctx;  // 64
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < 150; ++i) ids.push_back(static_cast<uint32_t>((i * 17 + 5) % 65));
  size_t progress_calls = 0;
  const model::Surprisal scored = model::surprisal(
      model, ids, {.top_k = 2, .stride = 32, .on_window = [&](size_t done, size_t total) {
                     ++progress_calls;
                     EXPECT_EQ(done, progress_calls);
                     EXPECT_EQ(total, 4u);
                   }});
  // Windows start at 0, 32, 64, 96 and end at 64, 96, 128, 150.
  EXPECT_EQ(scored.windows, 4u);
  EXPECT_EQ(progress_calls, 4u);
  double total_bits = 0;
  for (size_t target = 1; target < ids.size(); ++target) {
    const size_t window_begin = target < n_ctx ? 0 : (target - n_ctx) / 32 * 32 + 32;
    const double expected =
        last_token_bits(model, std::span(ids).subspan(window_begin, target - window_begin + 1));
    ASSERT_TRUE(scored.tokens[target].bits.has_value());
    EXPECT_NEAR(*scored.tokens[target].bits, expected, 1e-4) << "token " << target;
    total_bits += *scored.tokens[target].bits;
  }
  EXPECT_NEAR(scored.mean_bits, total_bits / 149.0, 1e-9);
}

TEST(ProbeSurprisalCpu, PackedSequencesEqualEachBodyAlone) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  const size_t t = 40, sequences = 3, c = model.config().n_embd;
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < sequences * t; ++i) ids.push_back(static_cast<uint32_t>((i * 7 + 3) % 65));
  const std::vector<float> packed = model.packed_body(ids, sequences).to_floats();
  ASSERT_EQ(packed.size(), sequences * t * c);
  for (size_t s = 0; s < sequences; ++s) {
    model::KvCache cache = model.new_cache();
    const std::vector<float> alone =
        model.body(std::span(ids).subspan(s * t, t), cache).to_floats();
    expect_close(std::span(packed).subspan(s * t * c, t * c), alone, 0.0f,
                 "sequence " + std::to_string(s));
  }
  EXPECT_THROW(model.packed_body(ids, 7), Error);  // 120 tokens in 7
  EXPECT_THROW(model.packed_body(ids, 0), Error);
  EXPECT_THROW(model.packed_body(ids, 1), Error);  // 120 > the context of 64
  ids[5] = 65;
  EXPECT_THROW(model.packed_body(ids, sequences), Error);
}

TEST(ProbeSurprisalCpu, StrideIsClampedBelowTheContext) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  std::vector<uint32_t> ids(70, 7);
  const model::Surprisal scored = model::surprisal(model, ids, {.stride = 1000});
  EXPECT_EQ(scored.stride, 63u);
  EXPECT_EQ(scored.windows, 2u);
  for (size_t i = 1; i < ids.size(); ++i) EXPECT_TRUE(scored.tokens[i].bits.has_value()) << i;
}

TEST(ProbeSurprisalCpu, BadInputIsAnError) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  const std::vector<uint32_t> one = {3}, outside = {3, 65};
  EXPECT_THROW(model::surprisal(model, one), Error);
  EXPECT_THROW(model::surprisal(model, outside), Error);
}

}  // namespace
}  // namespace wgpt::test::probe
