// Teacher-forced surprisal on the GPU equals the goldens.
#include "cpu/probe_checks.h"

namespace wgpt::test::probe {
namespace {

TEST(ProbeSurprisalGpu, EqualsMinusLog2SoftmaxOfGoldenLogits) {
  expect_surprisal_matches_golden(gpu_context(), "gpt2-tiny");
  expect_surprisal_matches_golden(gpu_context(), "char-tiny");
}

// Heads of 64 (the fixtures' are 16, which take the cached path one window at a time): a text's
// windows of equal length run packed through one pass of flash_attention's packed form, the
// shorter last window in a second, and score as the CPU reference scores them.
TEST(ProbeSurprisalGpu, PackedWindowsEqualTheCpuReference) {
  const model::Config config = model::named_config("2,2,128,96,300");
  const auto context = gpu_context();
  const auto reference = model::Model::random(config, 5);
  const auto model = model::Model::random(config, 5, context);
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < 260; ++i) ids.push_back(static_cast<uint32_t>((i * 37 + 11) % 300));

  // The body first: each packed sequence's rows as the cached path computes that sequence alone.
  const size_t t = 80, sequences = 3;
  ASSERT_LE(sequences * t, ids.size());
  const std::vector<float> packed =
      model.packed_body(std::span(ids).first(sequences * t), sequences).to_floats();
  for (size_t s = 0; s < sequences; ++s) {
    model::KvCache cache = model.new_cache();
    const std::vector<float> alone =
        model.body(std::span(ids).subspan(s * t, t), cache).to_floats();
    expect_close(std::span(packed).subspan(s * t * 128, t * 128), alone, 1e-4f,
                 "sequence " + std::to_string(s));
  }

  // Windows start at 0, 40, .., 160 (96 tokens each, one pass) and 200 (60 tokens, another).
  const model::Surprisal expected = model::surprisal(reference, ids, {.top_k = 3, .stride = 40});
  context->set_dispatches_per_submit(0);  // one submit per pass: the submits count the passes
  const gpu::Stats before = context->stats();
  const model::Surprisal actual = model::surprisal(model, ids, {.top_k = 3, .stride = 40});
  EXPECT_EQ(context->stats().submits - before.submits, 2u) << "one per pass";
  context->set_dispatches_per_submit(gpu::Context::kDefaultDispatchesPerSubmit);
  EXPECT_EQ(actual.windows, 6u);
  for (size_t i = 1; i < ids.size(); ++i) {
    ASSERT_TRUE(actual.tokens[i].bits.has_value()) << i;
    EXPECT_NEAR(*actual.tokens[i].bits, *expected.tokens[i].bits, 1e-4) << "token " << i;
    ASSERT_EQ(actual.tokens[i].alternatives.size(), 3u);
    EXPECT_EQ(actual.tokens[i].alternatives[0].id, expected.tokens[i].alternatives[0].id) << i;
  }
  EXPECT_NEAR(actual.mean_bits, expected.mean_bits, 1e-5);
}

}  // namespace
}  // namespace wgpt::test::probe
