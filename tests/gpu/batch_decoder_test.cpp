// The batched decode step (model::BatchDecoder) and the server's engine on it: each row's logits
// are the general forward pass's for its sequence (within float reassociation: the products take
// other kernels), a row's logits are bit for bit the same alone as among other rows of other
// lengths, and the batched engine's greedy tokens are the sequential engine's.
#include "wgpt/batch_decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "serve/batched_engine.h"
#include "serve/engine_choice.h"
#include "serve/sequential_engine.h"
#include "test_support.h"
#include "wgpt/tokenizer.h"

namespace wgpt {
namespace {

using model::BatchDecoder;
using model::Model;

// Odd sizes: heads of 12 values, a vocabulary of 67, three prompts of different lengths (the
// longest crossing the attention kernel's tile of 64 keys once it has decoded a few steps).
Model odd_model() {
  model::Config config;
  config.n_layer = 2;
  config.n_head = 3;
  config.n_embd = 36;
  config.n_ctx = 80;
  config.vocab_size = 67;
  return Model::random(config, 5, test::gpu_context());
}

std::vector<uint32_t> prompt(size_t length, uint32_t seed) {
  std::vector<uint32_t> ids(length);
  for (size_t i = 0; i < length; ++i) ids[i] = static_cast<uint32_t>((i * 31 + seed) % 67);
  return ids;
}

std::vector<float> row_of(const std::vector<float>& logits, size_t row, size_t vocab) {
  return {logits.begin() + static_cast<std::ptrdiff_t>(row * vocab),
          logits.begin() + static_cast<std::ptrdiff_t>((row + 1) * vocab)};
}

TEST(BatchDecoder, RowsAreTheForwardPassAndDoNotDependOnEachOther) {
  const Model model = odd_model();
  const size_t vocab = model.config().vocab_size;
  ASSERT_TRUE(BatchDecoder::supported(model, 3));
  const std::vector<std::vector<uint32_t>> prompts = {prompt(5, 1), prompt(1, 2), prompt(62, 3)};
  BatchDecoder together(model, 3), alone(model, 3);
  std::vector<model::KvCache> references;
  for (size_t s = 0; s < 3; ++s) {
    model.forward(prompts[s], together.cache(s), {.all_logits = false});
    model.forward(prompts[s], alone.cache(s), {.all_logits = false});
    references.push_back(model.new_cache());
    model.forward(prompts[s], references.back(), {.all_logits = false});
  }
  // Four steps of all three slots in a scrambled order; slot 2 also steps alone in `alone`.
  const std::vector<uint32_t> slots = {2, 0, 1};
  for (uint32_t step = 0; step < 4; ++step) {
    const std::vector<uint32_t> tokens = {step * 7 % 67, step * 11 % 67, step * 13 % 67};
    const std::vector<float> logits = together.step(slots, tokens).to_floats();
    for (size_t r = 0; r < 3; ++r) {
      const std::vector<float> expected =
          model.forward(std::span(&tokens[r], 1), references[slots[r]], {.all_logits = false})
              .logits.to_floats();
      const std::vector<float> actual = row_of(logits, r, vocab);
      for (size_t v = 0; v < vocab; ++v) {
        ASSERT_NEAR(actual[v], expected[v], 1e-4f)
            << "step " << step << " row " << r << " id " << v;
      }
    }
    const std::vector<float> solo =
        alone.step(std::span(slots.data(), 1), std::span(tokens.data(), 1)).to_floats();
    EXPECT_EQ(solo, row_of(logits, 0, vocab)) << "step " << step;
    // `alone` keeps its other slots in step with `together` by running them as a pair.
    alone.step(std::span(slots.data() + 1, 2), std::span(tokens.data() + 1, 2));
  }
  EXPECT_EQ(together.cache(2).length(), 66u);
  EXPECT_EQ(alone.cache(0).length(), 9u);
}

TEST(BatchDecoder, RefusesRowsItCannotRun) {
  const Model model = odd_model();
  BatchDecoder decoder(model, 2);
  model.forward(prompt(80, 4), decoder.cache(0), {.all_logits = false});
  model.forward(prompt(3, 4), decoder.cache(1), {.all_logits = false});
  const std::vector<uint32_t> token = {1, 1};
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{0}, std::span(token.data(), 1)), Error);  // full
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{1, 1}, token), Error);  // a slot twice
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{2}, std::span(token.data(), 1)), Error);
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{1}, std::vector<uint32_t>{67}), Error);
  EXPECT_EQ(decoder.cache(1).length(), 3u) << "nothing ran";
  EXPECT_FALSE(BatchDecoder::supported(Model::random(model.config(), 1), 2)) << "on the CPU";
}

// Greedy sequences of three prompt lengths, joining at different steps, through an engine.
std::vector<std::vector<uint32_t>> greedy_runs(serve::StepEngine& engine,
                                               const std::vector<std::vector<uint32_t>>& prompts,
                                               size_t steps) {
  std::vector<std::vector<uint32_t>> tokens(prompts.size());
  for (size_t step = 0; step < steps; ++step) {
    std::vector<serve::StepInput> batch;
    for (size_t s = 0; s < prompts.size(); ++s) {
      if (step < s) continue;  // slot s joins at step s
      if (step == s) {
        engine.begin(s, {.greedy = true});
        batch.push_back({.slot = s, .ids = prompts[s]});
      } else {
        batch.push_back({.slot = s, .ids = std::span(&tokens[s].back(), 1)});
      }
    }
    const std::vector<serve::StepOutput> outputs = engine.step(batch);
    for (size_t i = 0; i < batch.size(); ++i) tokens[batch[i].slot].push_back(outputs[i].token);
  }
  return tokens;
}

TEST(BatchedEngine, GreedyTokensAreTheSequentialEngines) {
  const auto dir = test::source_dir() / "tests/fixtures/hf/char-tiny";
  const Model model = Model::load(dir, test::gpu_context());
  const auto tokenizer = tokenizer::load_tokenizer(dir);
  const std::vector<std::vector<uint32_t>> prompts = {
      tokenizer->encode("ROMEO:"), tokenizer->encode("What light through yonder"),
      tokenizer->encode("O")};
  serve::BatchedEngine batched(model, 3);
  serve::SequentialEngine sequential(model, 3);
  const auto expected = greedy_runs(sequential, prompts, 20);
  EXPECT_EQ(greedy_runs(batched, prompts, 20), expected);
  EXPECT_EQ(expected[2].size(), 18u);
}

TEST(BatchedEngine, AutomaticChoiceTakesItOnHardwareGpusOnly) {
  using serve::EngineChoice;
  const Model gpu_model = odd_model();
  const Model cpu_model = Model::random(gpu_model.config(), 5);
  const bool software = gpu_model.context()->adapter_info().is_cpu;
  EXPECT_EQ(serve::make_step_engine(gpu_model, 2, EngineChoice::automatic)->name(),
            software ? "sequential" : "batched");
  EXPECT_EQ(serve::make_step_engine(gpu_model, 2, EngineChoice::batched)->name(), "batched");
  EXPECT_EQ(serve::make_step_engine(gpu_model, 2, EngineChoice::sequential)->name(), "sequential");
  EXPECT_EQ(serve::make_step_engine(cpu_model, 2, EngineChoice::automatic)->name(), "sequential");
  EXPECT_THROW(serve::make_step_engine(cpu_model, 2, EngineChoice::batched), Error);
}

}  // namespace
}  // namespace wgpt
