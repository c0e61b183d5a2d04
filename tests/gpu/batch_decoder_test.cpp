// The batched decode step (model::BatchDecoder) and the server's engine on it: each row's logits
// are the general forward pass's for its sequence (within float reassociation: the products take
// other kernels), a row's logits are bit for bit the same alone as among other rows of other
// lengths, the planned step is the general step bit for bit, and the batched engine's tokens,
// greedy and sampled, are the sequential engine's.
#include "wgpt/batch_decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
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
    const std::vector<float> logits = together.step(slots, tokens).logits.to_floats();
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
        alone.step(std::span(slots.data(), 1), std::span(tokens.data(), 1)).logits.to_floats();
    EXPECT_EQ(solo, row_of(logits, 0, vocab)) << "step " << step;
    // `alone` keeps its other slots in step with `together` by running them as a pair.
    alone.step(std::span(slots.data() + 1, 2), std::span(tokens.data() + 1, 2));
  }
  EXPECT_EQ(together.cache(2).length(), 66u);
  EXPECT_EQ(alone.cache(0).length(), 9u);
}

std::vector<uint32_t> u32s_of(const Tensor& tensor) {
  const Tensor copy = tensor.to_cpu();
  return {copy.u32s().begin(), copy.u32s().end()};
}

// The planned step replays the general step's pass: the same logits and greedy tokens, bit for
// bit, for row counts that fill their bucket or are padded to it, as rows join and leave; a
// repeated step creates no bind group and no buffer.
TEST(BatchDecoder, PlannedStepIsTheGeneralStepBitForBit) {
  const Model model = odd_model();
  const size_t slots = 5;  // buckets 1, 2, 4 and 5
  BatchDecoder planned(model, slots), general(model, slots);
  for (size_t s = 0; s < slots; ++s) {
    const std::vector<uint32_t> ids = prompt(2 + 9 * s, static_cast<uint32_t>(s));
    model.forward(ids, planned.cache(s), {.all_logits = false});
    model.forward(ids, general.cache(s), {.all_logits = false});
  }
  const std::vector<std::vector<uint32_t>> steps = {
      {2, 0, 1}, {0}, {1, 3, 4, 0, 2}, {4, 2}, {2, 0, 1}, {3, 1, 0}, {3}};
  gpu::Stats before, after;
  for (size_t step = 0; step < steps.size(); ++step) {
    const std::vector<uint32_t>& rows = steps[step];
    std::vector<uint32_t> tokens(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) tokens[r] = (rows[r] * 17 + step * 5) % 67;
    before = model.context()->stats();
    const model::BatchStep ours = planned.step(rows, tokens);
    const std::vector<float> logits = ours.logits.to_floats();
    const std::vector<uint32_t> best = u32s_of(ours.best);
    after = model.context()->stats();
    const model::BatchStep theirs = general.step_general(rows, tokens);
    EXPECT_EQ(logits, theirs.logits.to_floats()) << "step " << step;
    EXPECT_EQ(best, u32s_of(theirs.best)) << "step " << step;
    EXPECT_EQ(logits.size(), rows.size() * model.config().vocab_size);
  }
  EXPECT_EQ(planned.plans(), 4u);
  EXPECT_EQ(general.plans(), 0u);
  // The last step, {3}, replayed the plan of one row that {0} captured.
  EXPECT_GT(after.dispatches - before.dispatches, 2 * model.config().n_layer);
  EXPECT_EQ(after.bind_groups_created - before.bind_groups_created, 0u);
  EXPECT_EQ(after.buffers_created - before.buffers_created, 0u);
  EXPECT_EQ(planned.cache(3).length(), general.cache(3).length());
}

TEST(BatchDecoder, RefusesRowsItCannotRun) {
  const Model model = odd_model();
  BatchDecoder decoder(model, 2);
  model.forward(prompt(80, 4), decoder.cache(0), {.all_logits = false});
  model.forward(prompt(3, 4), decoder.cache(1), {.all_logits = false});
  const std::vector<uint32_t> token = {1, 1};
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{0}, std::span(token.data(), 1)), Error);  // full
  // Slot 1 has room for 77 more tokens, and no step takes more than max_rows().
  EXPECT_THROW(decoder.step(std::vector<uint32_t>(78, 1), std::vector<uint32_t>(78, 1)), Error);
  const size_t too_many = decoder.max_rows() + 1;
  EXPECT_THROW(decoder.step(std::vector<uint32_t>(too_many, 1), std::vector<uint32_t>(too_many, 1)),
               Error);
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{2}, std::span(token.data(), 1)), Error);
  EXPECT_THROW(decoder.step(std::vector<uint32_t>{1}, std::vector<uint32_t>{67}), Error);
  EXPECT_EQ(decoder.cache(1).length(), 3u) << "nothing ran";
  EXPECT_FALSE(BatchDecoder::supported(Model::random(model.config(), 1), 2)) << "on the CPU";
}

// A prompt run as rows of a step — beside another slot's decoding and another prompt — is its
// forward pass: the same next-token logits (within reassociation), the same cache (the next step
// agrees too), and its rows' numbers are the same bits alone as among the others.
TEST(BatchDecoder, PromptRowsArePrefill) {
  const Model model = odd_model();
  const size_t vocab = model.config().vocab_size;
  const std::vector<uint32_t> decoding = prompt(4, 9), first = prompt(7, 1), second = prompt(70, 2);
  BatchDecoder together(model, 3), alone(model, 3);
  model.forward(decoding, together.cache(0), {.all_logits = false});
  std::vector<uint32_t> slots = {0}, tokens = {5};
  for (uint32_t id : first) slots.push_back(1), tokens.push_back(id);
  for (uint32_t id : second) slots.push_back(2), tokens.push_back(id);
  const std::vector<float> logits = together.step(slots, tokens).logits.to_floats();
  EXPECT_EQ(together.cache(1).length(), first.size());
  EXPECT_EQ(together.cache(2).length(), second.size());
  const std::vector<float> first_alone =
      alone.step(std::vector<uint32_t>(first.size(), 1), first).logits.to_floats();
  for (size_t r = 0; r < first.size(); ++r) {
    EXPECT_EQ(row_of(first_alone, r, vocab), row_of(logits, 1 + r, vocab)) << "row " << r;
  }
  for (const auto& [slot, ids, last_row] :
       {std::tuple{1u, first, first.size()}, std::tuple{2u, second, tokens.size() - 1}}) {
    model::KvCache reference = model.new_cache();
    const std::vector<float> expected =
        model.forward(ids, reference, {.all_logits = false}).logits.to_floats();
    const std::vector<float> actual = row_of(logits, last_row, vocab);
    for (size_t v = 0; v < vocab; ++v) {
      ASSERT_NEAR(actual[v], expected[v], 1e-4f) << "slot " << slot << " id " << v;
    }
    const uint32_t next = 3;
    const std::vector<float> stepped =
        together.step(std::vector<uint32_t>{slot}, std::span(&next, 1)).logits.to_floats();
    const std::vector<float> continued =
        model.forward(std::span(&next, 1), reference, {.all_logits = false}).logits.to_floats();
    for (size_t v = 0; v < vocab; ++v) {
      ASSERT_NEAR(stepped[v], continued[v], 1e-4f) << "slot " << slot << " next, id " << v;
    }
  }
}

// Sequences of several prompt lengths, joining at different steps, through an engine, slot s
// sampling with samplings[s]; a slot in `reporting` asks for its top tokens at step 6 only (its
// token chosen on the host that step).
std::vector<std::vector<uint32_t>> runs(serve::StepEngine& engine,
                                        const std::vector<std::vector<uint32_t>>& prompts,
                                        const std::vector<model::SamplingOptions>& samplings,
                                        size_t steps, std::vector<size_t> reporting = {}) {
  std::vector<std::vector<uint32_t>> tokens(prompts.size());
  for (size_t step = 0; step < steps; ++step) {
    std::vector<serve::StepInput> batch;
    for (size_t s = 0; s < prompts.size(); ++s) {
      if (step < s) continue;  // slot s joins at step s
      if (step == s) {
        engine.begin(s, samplings[s]);
        batch.push_back({.slot = s, .ids = prompts[s]});
      } else {
        batch.push_back({.slot = s, .ids = std::span(&tokens[s].back(), 1)});
      }
      const bool reports = std::find(reporting.begin(), reporting.end(), s) != reporting.end();
      if (reports && step == 6) batch.back().report.top = 2;
    }
    const std::vector<serve::StepOutput> outputs = engine.step(batch);
    for (size_t i = 0; i < batch.size(); ++i) tokens[batch[i].slot].push_back(outputs[i].token);
  }
  return tokens;
}

// Every way a batched row's token is chosen against the sequential engine (the fused B = 1 path,
// choosing on the host with the CPU reference except for plain greedy rows): a plain greedy row
// (the step's argmax), sampled rows and a greedy row with a penalty and a bias (their slots'
// samplers on the GPU), and a sampled slot that reports its top tokens for one step in between
// (on the host that step). The same tokens for the same seeds.
TEST(BatchedEngine, TokensAreTheSequentialEngines) {
  const auto dir = test::hf_fixture("char-tiny");
  const Model model = Model::load(dir, test::gpu_context());
  const auto tokenizer = tokenizer::load_tokenizer(dir);
  const std::vector<std::vector<uint32_t>> prompts = {
      tokenizer->encode("ROMEO:"), tokenizer->encode("What light through yonder"),
      tokenizer->encode("O"), tokenizer->encode("JULIET:")};
  const std::vector<model::SamplingOptions> samplings = {
      {.greedy = true},
      {.temperature = 0.9f, .top_k = 12, .seed = 7},
      {.temperature = 1.3f, .top_p = 0.9f, .min_p = 0.02f, .seed = 8},
      {.greedy = true, .repeat_penalty = 1.4f, .logit_bias = {{tokenizer->encode("e")[0], -2.0f}}}};
  serve::BatchedEngine batched(model, 4);
  serve::SequentialEngine sequential(model, 4);
  const auto expected = runs(sequential, prompts, samplings, 20, {2});
  EXPECT_EQ(runs(batched, prompts, samplings, 20, {2}), expected);
  EXPECT_EQ(expected[3].size(), 17u);
}

TEST(BatchedEngine, AutomaticChoiceTakesItOnHardwareGpusWithSeveralSlots) {
  using serve::EngineChoice;
  const Model gpu_model = odd_model();
  const Model cpu_model = Model::random(gpu_model.config(), 5);
  const bool software = gpu_model.context()->adapter_info().is_cpu;
  EXPECT_EQ(serve::make_step_engine(gpu_model, 2, EngineChoice::automatic)->name(),
            software ? "sequential" : "batched");
  EXPECT_EQ(serve::make_step_engine(gpu_model, 2, EngineChoice::batched)->name(), "batched");
  EXPECT_EQ(serve::make_step_engine(gpu_model, 2, EngineChoice::sequential)->name(), "sequential");
  EXPECT_EQ(serve::make_step_engine(gpu_model, 1, EngineChoice::automatic)->name(), "sequential")
      << "one slot batches nothing";
  EXPECT_EQ(serve::make_step_engine(gpu_model, 1, EngineChoice::batched)->name(), "batched");
  EXPECT_EQ(serve::make_step_engine(cpu_model, 2, EngineChoice::automatic)->name(), "sequential");
  EXPECT_THROW(serve::make_step_engine(cpu_model, 2, EngineChoice::batched), Error);
}

}  // namespace
}  // namespace wgpt
