// The GPU sampler (model::TokenSampler) chooses the CPU reference's token (model::choose_token)
// for every mode, on random logits of vocabularies that are not multiples of the kernels' slices
// and with ties at the cuts. Both start from the same logits here, so their weights differ only
// in exp's last bits (relative ~1e-6): a different token is allowed only where the reference
// reports a choice within 1e-5 of an edge, and where ties decide, not at all.
#include "wgpt/sampling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "test_support.h"

namespace wgpt::model {
namespace {

Model tiny_model(size_t vocab) {
  Config config;
  config.n_layer = 1;
  config.n_head = 1;
  config.n_embd = 4;
  config.n_ctx = 96;
  config.vocab_size = vocab;
  return Model::random(config, 3, test::gpu_context());
}

// Logits in [-3, 3); with `levels`, rounded to that many values per unit (exact ties).
std::vector<float> logits_of(size_t vocab, uint32_t seed, float levels = 0) {
  std::vector<float> logits = test::random_floats(vocab, seed, -3.0f, 3.0f);
  if (levels > 0) {
    for (float& x : logits) x = std::round(x * levels) / levels;
  }
  return logits;
}

// Draws `draws` tokens on the GPU, one per context length (so each draw has its own random word),
// and compares each with the reference: a different token only where its margin is below
// `tolerance`. Returns how many differed.
size_t compare(const Model& model, const std::vector<float>& values, const SamplingOptions& options,
               size_t draws, double tolerance) {
  const auto& context = model.context();
  const Tensor logits = Tensor::from_floats(values, {values.size()}).to_gpu(context);
  const Tensor step = Tensor::empty_gpu(context, {2}, DType::u32);
  TokenSampler sampler(model, options, logits, step);
  size_t differing = 0;
  std::vector<uint32_t> tokens;
  for (size_t n = 0; n < draws; ++n) {
    tokens.push_back(static_cast<uint32_t>((n * 7919 + 13) % std::min<size_t>(values.size(), 40)));
    sampler.start(tokens);
    {
      gpu::Scope scope(*context);
      sampler.record();
    }
    const std::vector<uint32_t> state = step.to_u32();
    EXPECT_EQ(state[0], tokens.size()) << "the position advances";
    const Choice expected = choose_token(values, tokens, options);
    if (state[1] != expected.token) {
      ++differing;
      EXPECT_LT(expected.margin, tolerance)
          << "draw " << n << ": GPU " << state[1] << ", CPU " << expected.token;
    }
  }
  return differing;
}

struct Mode {
  const char* name;
  SamplingOptions options;
};

std::vector<Mode> modes() {
  SamplingOptions penalties{.temperature = 0.9f,
                            .repeat_penalty = 1.3f,
                            .presence_penalty = 0.5f,
                            .frequency_penalty = 0.2f,
                            .penalty_last_n = 32,
                            .logit_bias = {{3, 2.0f}, {10, -INFINITY}, {41, 1.5f}},
                            .seed = 4};
  SamplingOptions greedy_penalties = penalties;
  greedy_penalties.greedy = true;
  return {
      {"temperature", {.temperature = 0.7f, .seed = 1}},
      {"top-k 5", {.top_k = 5, .seed = 2}},
      {"top-k 3000", {.top_k = 3000, .seed = 3}},
      {"top-p 0.9", {.top_p = 0.9f, .seed = 5}},
      {"top-k 50 + top-p 0.8", {.temperature = 1.2f, .top_k = 50, .top_p = 0.8f, .seed = 6}},
      {"min-p 0.05", {.temperature = 1.3f, .min_p = 0.05f, .seed = 7}},
      {"penalties and bias", penalties},
      {"greedy", {.greedy = true}},
      {"greedy with penalties", greedy_penalties},
  };
}

TEST(TokenSampler, ChoosesTheReferenceTokenInEveryMode) {
  // 33001: 33 slices of 1024, the last partial, all adding into one histogram per pass.
  for (size_t vocab : {257u, 9001u, 33001u}) {
    const Model model = tiny_model(vocab);
    for (const Mode& mode : modes()) {
      SCOPED_TRACE(std::string(mode.name) + ", vocabulary " + std::to_string(vocab));
      EXPECT_LE(compare(model, logits_of(vocab, 11), mode.options, 12, 1e-5), 1u);
    }
  }
}

TEST(TokenSampler, CutsInsideTiesKeepTheLowestIds) {
  const size_t vocab = 5003;
  const Model model = tiny_model(vocab);
  // Four values per unit: hundreds of tokens share each logit, so every cut falls inside ties.
  const std::vector<float> logits = logits_of(vocab, 12, 4.0f);
  for (const Mode& mode :
       std::vector<Mode>{{"top-k 150", {.temperature = 50.0f, .top_k = 150, .seed = 8}},
                         {"top-p 0.025", {.temperature = 50.0f, .top_p = 0.025f, .seed = 9}},
                         {"top-k 700 + top-p 0.5", {.top_k = 700, .top_p = 0.5f, .seed = 10}}}) {
    SCOPED_TRACE(mode.name);
    // The cuts fall in the second-best value, whose kept ties interleave with the best value's
    // tokens; a high temperature flattens the kept set, so the draws reach every part of it.
    EXPECT_EQ(compare(model, logits, mode.options, 48, 0.0), 0u);
  }
}

// The passes add into histograms that each step's last kernel zeroes for the next; the first step
// must not start from what a pooled buffer of the same size held before.
TEST(TokenSampler, StartsFromZeroedHistogramsInAReusedBuffer) {
  const size_t vocab = 9001;
  const Model model = tiny_model(vocab);
  const std::vector<float> logits = logits_of(vocab, 13);
  for (const Mode& mode : std::vector<Mode>{{"top-k 40", {.top_k = 40, .seed = 14}},
                                            {"top-p 0.9", {.top_p = 0.9f, .seed = 15}}}) {
    SCOPED_TRACE(mode.name);
    {
      // The size of the sampler's histograms for one cut (four passes of 256 bins of 3 words):
      // freed, the buffer returns to the pool, which hands it to the sampler.
      const std::vector<uint32_t> junk(4 * 256 * 3, 0x00ffffffu);
      const Tensor left_behind = Tensor::from_u32(junk, {junk.size()}).to_gpu(model.context());
    }
    EXPECT_EQ(compare(model, logits, mode.options, 4, 1e-5), 0u);
  }
}

// Plain temperature and min-p need no cut; each cut is four passes of one byte of the rank key,
// of which sample_prepare runs top-k's first.
TEST(TokenSampler, RunsOnePassPerByteOfEachCut) {
  const Model model = tiny_model(300);
  const Tensor logits = Tensor::empty_gpu(model.context(), {300});
  const Tensor step = Tensor::empty_gpu(model.context(), {2}, DType::u32);
  auto passes = [&](const SamplingOptions& options) {
    return TokenSampler(model, options, logits, step).dispatches();
  };
  EXPECT_EQ(passes({.greedy = true}), 2u);
  EXPECT_EQ(passes({.min_p = 0.1f}), 3u);
  EXPECT_EQ(passes({.top_k = 40}), 6u);
  EXPECT_EQ(passes({.top_k = 300}), 3u) << "top-k of the whole vocabulary cuts nothing";
  EXPECT_EQ(passes({.top_p = 0.9f}), 7u);
  EXPECT_EQ(passes({.top_k = 40, .top_p = 0.9f}), 10u);
}

}  // namespace
}  // namespace wgpt::model
