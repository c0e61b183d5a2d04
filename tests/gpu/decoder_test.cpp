// The fused GPU decode path computes what Model::forward computes, step after step.
#include "wgpt/decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_support.h"

namespace wgpt::model {
namespace {

std::filesystem::path fixture(const char* name) {
  return test::source_dir() / "tests" / "fixtures" / "hf" / name;
}

uint32_t argmax(const std::vector<float>& row) {
  return static_cast<uint32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

float max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

std::vector<uint32_t> golden_ids(const char* model, const char* name) {
  io::TensorFile golden = io::load_safetensors(fixture(model) / "golden.safetensors");
  std::vector<uint32_t> ids;
  for (int64_t id : golden.at(name).ints()) ids.push_back(static_cast<uint32_t>(id));
  return ids;
}

class DecoderParity : public testing::TestWithParam<const char*> {};

TEST_P(DecoderParity, LogitsEqualTheGeneralForwardAtEveryStep) {
  const Model model = Model::load(fixture(GetParam()), test::gpu_context());
  ASSERT_TRUE(Decoder::supported(model));
  const std::vector<uint32_t> prompt = golden_ids(GetParam(), "input_ids");
  KvCache fast = model.new_cache(), reference = model.new_cache();
  model.forward(prompt, fast, {.all_logits = false});
  std::vector<float> expected =
      model.forward(prompt, reference, {.all_logits = false}).logits.to_floats();
  Decoder decoder(model, fast);
  for (int step = 0; step < 6; ++step) {
    const uint32_t token = argmax(expected);
    const std::vector<float> logits = decoder.step_logits(token);
    expected =
        model.forward(std::span(&token, 1), reference, {.all_logits = false}).logits.to_floats();
    ASSERT_EQ(logits.size(), expected.size());
    EXPECT_LE(max_difference(logits, expected), 1e-4f) << "step " << step;
    EXPECT_EQ(fast.length(), reference.length());
  }
  // The general path continues the cache the decoder wrote.
  const uint32_t token = argmax(expected);
  const auto general =
      model.forward(std::span(&token, 1), fast, {.all_logits = false}).logits.to_floats();
  expected =
      model.forward(std::span(&token, 1), reference, {.all_logits = false}).logits.to_floats();
  EXPECT_LE(max_difference(general, expected), 1e-4f);
}

TEST_P(DecoderParity, GreedyIdsEqualHfTransformers) {
  const Model model = Model::load(fixture(GetParam()), test::gpu_context());
  const std::vector<uint32_t> prompt = golden_ids(GetParam(), "input_ids");
  const std::vector<uint32_t> expected = golden_ids(GetParam(), "greedy_ids");
  KvCache cache = model.new_cache();
  uint32_t next = argmax(model.forward(prompt, cache, {.all_logits = false}).logits.to_floats());
  Decoder decoder(model, cache);
  std::vector<uint32_t> generated = {next};
  while (generated.size() < expected.size()) generated.push_back(next = decoder.step_greedy(next));
  EXPECT_EQ(generated, expected);
}

TEST_P(DecoderParity, PipelinedGreedyGivesTheSameTokensAndStopsWhenAsked) {
  const Model model = Model::load(fixture(GetParam()), test::gpu_context());
  const std::vector<uint32_t> prompt = golden_ids(GetParam(), "input_ids");
  const std::vector<uint32_t> expected = golden_ids(GetParam(), "greedy_ids");
  KvCache cache = model.new_cache();
  const uint32_t first =
      argmax(model.forward(prompt, cache, {.all_logits = false}).logits.to_floats());
  Decoder decoder(model, cache);
  std::vector<uint32_t> generated = {first};
  const std::vector<uint32_t> rest = decoder.greedy(first, expected.size() - 1);
  generated.insert(generated.end(), rest.begin(), rest.end());
  EXPECT_EQ(generated, expected);
  EXPECT_EQ(cache.length(), prompt.size() + expected.size() - 1);

  cache.clear();
  model.forward(prompt, cache, {.all_logits = false});
  size_t seen = 0;
  const std::vector<uint32_t> stopped =
      decoder.greedy(first, 10, [&](uint32_t) { return ++seen < 3; });
  EXPECT_EQ(stopped, std::vector<uint32_t>(expected.begin() + 1, expected.begin() + 4));
  EXPECT_EQ(cache.length(), prompt.size() + 3);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DecoderParity, testing::Values("char-tiny", "gpt2-tiny"));

TEST(Decoder, AGreedyStepIsOneSubmitOneWaitAndNoNewBuffers) {
  const Model model = Model::load(fixture("char-tiny"), test::gpu_context());
  KvCache cache = model.new_cache();
  const uint32_t prompt[] = {1, 2, 3};
  model.forward(prompt, cache, {.all_logits = false});
  Decoder decoder(model, cache);
  uint32_t next = decoder.step_greedy(4);
  const gpu::Stats before = model.context()->stats();
  for (int i = 0; i < 5; ++i) next = decoder.step_greedy(next);
  const gpu::Stats after = model.context()->stats();
  EXPECT_EQ(after.submits - before.submits, 5u);
  EXPECT_EQ(after.fence_waits - before.fence_waits, 5u);
  EXPECT_EQ(after.buffers_created, before.buffers_created);
  EXPECT_EQ(after.dispatches - before.dispatches, 5u * (3 + 6 * model.config().n_layer));
}

TEST(Decoder, RefusesAFullContextAndBadIds) {
  const Model model = Model::load(fixture("char-tiny"), test::gpu_context());
  KvCache cache = model.new_cache();
  std::vector<uint32_t> prompt(model.config().n_ctx, 1);
  model.forward(prompt, cache, {.all_logits = false});
  Decoder decoder(model, cache);
  EXPECT_THROW(decoder.step_greedy(1), Error);
  cache.clear();
  EXPECT_THROW(decoder.step_greedy(static_cast<uint32_t>(model.config().vocab_size)), Error);
}

}  // namespace
}  // namespace wgpt::model
