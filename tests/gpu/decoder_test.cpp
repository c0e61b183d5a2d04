// The fused GPU decode path computes what Model::forward computes, step after step.
#include "wgpt/decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "test_support.h"

namespace wgpt::model {
namespace {

float max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  float worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

std::vector<uint32_t> golden_ids(const char* model, const char* name) {
  io::TensorFile golden = io::load_safetensors(test::hf_fixture(model) / "golden.safetensors");
  std::vector<uint32_t> ids;
  for (int64_t id : golden.at(name).ints()) ids.push_back(static_cast<uint32_t>(id));
  return ids;
}

// A fixture's model with its golden prompt prefilled by the general path, and HF's greedy ids.
struct Prefilled {
  explicit Prefilled(const char* name)
      : model(Model::load(test::hf_fixture(name), test::gpu_context())),
        prompt(golden_ids(name, "input_ids")),
        expected(golden_ids(name, "greedy_ids")),
        cache(model.new_cache()),
        first(
            test::argmax(model.forward(prompt, cache, {.all_logits = false}).logits.to_floats())) {}
  Model model;
  std::vector<uint32_t> prompt, expected;
  KvCache cache;
  uint32_t first;  // the prefill's greedy token
};

// Decodes six steps after `prompt` and compares every step's logits with the general forward
// pass, then continues the decoder's cache on the general path.
void expect_decoder_equals_forward(const Model& model, const std::vector<uint32_t>& prompt,
                                   Decoder::Tuning tuning) {
  KvCache fast = model.new_cache(), reference = model.new_cache();
  model.forward(prompt, fast, {.all_logits = false});
  std::vector<float> expected =
      model.forward(prompt, reference, {.all_logits = false}).logits.to_floats();
  Decoder decoder(model, fast, tuning);
  for (int step = 0; step < 6; ++step) {
    const uint32_t token = test::argmax(expected);
    const std::vector<float> logits = decoder.step_logits(token);
    expected =
        model.forward(std::span(&token, 1), reference, {.all_logits = false}).logits.to_floats();
    ASSERT_EQ(logits.size(), expected.size());
    EXPECT_LE(max_difference(logits, expected), 1e-4f) << "step " << step;
    EXPECT_EQ(fast.length(), reference.length());
  }
  // The general path continues the cache the decoder wrote.
  const uint32_t token = test::argmax(expected);
  const auto general =
      model.forward(std::span(&token, 1), fast, {.all_logits = false}).logits.to_floats();
  expected =
      model.forward(std::span(&token, 1), reference, {.all_logits = false}).logits.to_floats();
  EXPECT_LE(max_difference(general, expected), 1e-4f);
}

class DecoderParity : public testing::TestWithParam<const char*> {};

TEST_P(DecoderParity, LogitsEqualTheGeneralForwardAtEveryStep) {
  const Model model = Model::load(test::hf_fixture(GetParam()), test::gpu_context());
  ASSERT_TRUE(Decoder::supported(model));
  const std::vector<uint32_t> prompt = golden_ids(GetParam(), "input_ids");
  const std::pair<const char*, Decoder::Tuning> tunings[] = {
      {"GPU layout", {.layout = Decoder::Layout::gpu}},
      {"software layout", {.layout = Decoder::Layout::software}},
      {"GPU layout, weights warmed",
       {.layout = Decoder::Layout::gpu, .warm_weights = Decoder::Warming::on}}};
  for (const auto& [name, tuning] : tunings) {
    SCOPED_TRACE(name);
    expect_decoder_equals_forward(model, prompt, tuning);
  }
}

TEST_P(DecoderParity, GreedyIdsEqualHfTransformers) {
  const Model model = Model::load(test::hf_fixture(GetParam()), test::gpu_context());
  const std::vector<uint32_t> prompt = golden_ids(GetParam(), "input_ids");
  const std::vector<uint32_t> expected = golden_ids(GetParam(), "greedy_ids");
  KvCache cache = model.new_cache();
  uint32_t next =
      test::argmax(model.forward(prompt, cache, {.all_logits = false}).logits.to_floats());
  Decoder decoder(model, cache);
  std::vector<uint32_t> generated = {next};
  while (generated.size() < expected.size()) generated.push_back(next = decoder.step_greedy(next));
  EXPECT_EQ(generated, expected);
}

TEST_P(DecoderParity, PipelinedGreedyGivesTheSameTokensAndStopsWhenAsked) {
  Prefilled f(GetParam());
  Decoder decoder(f.model, f.cache);
  std::vector<uint32_t> generated = {f.first};
  const std::vector<uint32_t> rest = decoder.greedy(f.first, f.expected.size() - 1);
  generated.insert(generated.end(), rest.begin(), rest.end());
  EXPECT_EQ(generated, f.expected);
  EXPECT_EQ(f.cache.length(), f.prompt.size() + f.expected.size() - 1);

  f.cache.clear();
  f.model.forward(f.prompt, f.cache, {.all_logits = false});
  size_t seen = 0;
  const std::vector<uint32_t> stopped =
      decoder.greedy(f.first, 10, [&](uint32_t) { return ++seen < 3; });
  EXPECT_EQ(stopped, std::vector<uint32_t>(f.expected.begin() + 1, f.expected.begin() + 4));
  EXPECT_EQ(f.cache.length(), f.prompt.size() + 3);
}

TEST_P(DecoderParity, TracedStepsEqualTheGeneralProbe) {
  const Model model = Model::load(test::hf_fixture(GetParam()), test::gpu_context());
  const std::vector<uint32_t> prompt = golden_ids(GetParam(), "input_ids");
  KvCache fast = model.new_cache(), reference = model.new_cache();
  model.forward(prompt, fast, {.all_logits = false});
  StepTrace expected = trace_step(model, prompt, reference, {.top_n = 5});
  Decoder decoder(model, fast);
  const Config& c = model.config();
  for (int step = 0; step < 4; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const uint32_t token = test::argmax(expected.logits);
    const StepTrace traced = decoder.step_traced(token, 5);
    expected = trace_step(model, std::span(&token, 1), reference, {.top_n = 5});
    EXPECT_EQ(traced.kv_len, expected.kv_len);
    EXPECT_EQ(traced.q_len, 1u);
    EXPECT_EQ(fast.length(), reference.length());
    EXPECT_LE(max_difference(traced.logits, expected.logits), 1e-4f);
    ASSERT_EQ(traced.top.size(), 5u);
    for (size_t i = 0; i < 5; ++i) {  // probabilities from the GPU's softmax normaliser
      EXPECT_EQ(traced.top[i].id, expected.top[i].id) << "rank " << i;
      EXPECT_NEAR(traced.top[i].probability, expected.top[i].probability, 1e-6) << "rank " << i;
    }
    ASSERT_EQ(traced.captures.size(), c.n_layer);
    for (size_t layer = 0; layer < c.n_layer; ++layer) {
      const Capture& pattern = traced.at(hook_name(layer, "attn.hook_pattern"));
      EXPECT_EQ(pattern.shape, (Shape{c.n_head, 1, traced.kv_len}));
      EXPECT_LE(
          max_difference(pattern.values, expected.at(hook_name(layer, "attn.hook_pattern")).values),
          1e-5f)
          << "layer " << layer;
    }
  }
}

TEST_P(DecoderParity, GreedyTracedGivesGreedyTokensWithTheirTraces) {
  Prefilled f(GetParam());
  Decoder decoder(f.model, f.cache);
  std::vector<uint32_t> generated = {f.first};
  size_t kv_len = f.prompt.size();
  const std::vector<uint32_t> rest = decoder.greedy_traced(
      f.first, f.expected.size() - 1, 3, [&](uint32_t token, const StepTrace& trace) {
        EXPECT_EQ(trace.kv_len, ++kv_len);
        EXPECT_EQ(test::argmax(trace.logits), token);  // the GPU's choice is the logits' argmax
        EXPECT_EQ(trace.top.at(0).id, token);
        // Each head's attention row is a distribution over the kv_len keys.
        const Capture& last =
            trace.at(hook_name(f.model.config().n_layer - 1, "attn.hook_pattern"));
        for (size_t head = 0; head < f.model.config().n_head; ++head) {
          double sum = 0;
          for (float p : trace.newest_attention(f.model.config().n_layer - 1, head)) sum += p;
          EXPECT_NEAR(sum, 1.0, 1e-5) << "head " << head;
        }
        EXPECT_EQ(last.values.size(), f.model.config().n_head * kv_len);
        return true;
      });
  generated.insert(generated.end(), rest.begin(), rest.end());
  EXPECT_EQ(generated, f.expected);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DecoderParity, testing::Values("char-tiny", "gpt2-tiny"));

// GPT-2's width (so the MLP's 3072 inputs are staged in two parts) and more than two chunks of
// 64 keys, which the fixtures' small models never reach.
TEST(Decoder, WideModelsAndLongContextsEqualTheGeneralForward) {
  Config config;
  config.n_layer = 1;
  config.n_head = 12;
  config.n_embd = 768;
  config.n_ctx = 200;
  config.vocab_size = 300;
  const Model model = Model::random(config, 7, test::gpu_context());
  ASSERT_TRUE(Decoder::supported(model));
  std::vector<uint32_t> prompt(130);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<uint32_t>((i * 37 + 5) % 300);
  for (Decoder::Layout layout : {Decoder::Layout::gpu, Decoder::Layout::software}) {
    SCOPED_TRACE(layout == Decoder::Layout::gpu ? "GPU layout" : "software layout");
    KvCache fast = model.new_cache(), reference = model.new_cache();
    model.forward(prompt, fast, {.all_logits = false});
    StepTrace expected = trace_step(model, prompt, reference, {});
    Decoder decoder(model, fast, {.layout = layout});
    for (int step = 0; step < 3; ++step) {
      SCOPED_TRACE("step " + std::to_string(step));
      const uint32_t token = test::argmax(expected.logits);
      const StepTrace traced = decoder.step_traced(token, 0);
      expected = trace_step(model, std::span(&token, 1), reference, {});
      EXPECT_LE(max_difference(traced.logits, expected.logits), 1e-4f);
      EXPECT_LE(max_difference(traced.at("blocks.0.attn.hook_pattern").values,
                               expected.at("blocks.0.attn.hook_pattern").values),
                1e-5f);
    }
  }
}

TEST(Decoder, AGreedyStepIsOneSubmitOneWaitAndNoNewBuffers) {
  const Model model = Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
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
  EXPECT_EQ(after.dispatches - before.dispatches, 5u * (3 + 5 * model.config().n_layer));
}

TEST(Decoder, ATracedStepIsOneSubmitOneWaitAndNoNewBuffers) {
  const Model model = Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
  KvCache cache = model.new_cache();
  const uint32_t prompt[] = {1, 2, 3};
  model.forward(prompt, cache, {.all_logits = false});
  Decoder decoder(model, cache);
  decoder.step_traced(4, 2);  // the first step may size the staging pool
  const gpu::Stats before = model.context()->stats();
  for (uint32_t token = 5; token < 8; ++token) decoder.step_traced(token, 2);
  const gpu::Stats after = model.context()->stats();
  EXPECT_EQ(after.submits - before.submits, 3u);
  EXPECT_EQ(after.fence_waits - before.fence_waits, 3u);
  EXPECT_EQ(after.dispatches - before.dispatches, 3u * (2 + 5 * model.config().n_layer));

  // The asynchronous form: the same trace as a synchronous step at the same position.
  KvCache other = model.new_cache();
  model.forward(prompt, other, {.all_logits = false});
  Decoder second(model, other);
  for (uint32_t token = 4; token < 8; ++token) second.step_traced(token, 2);
  const StepTrace sync = second.step_traced(9, 2);
  std::optional<Result<StepTrace>> async;
  decoder.step_traced_async(9, 2,
                            [&](Result<StepTrace> result) { async.emplace(std::move(result)); });
  EXPECT_EQ(cache.length(), other.length());
  while (!async) model.context()->poll();
  ASSERT_TRUE(async->ok()) << async->error().what();
  EXPECT_EQ(async->value().logits, sync.logits);
  EXPECT_EQ(async->value().at("blocks.0.attn.hook_pattern").values,
            sync.at("blocks.0.attn.hook_pattern").values);
}

TEST(Decoder, KernelChainsTimeEveryKindAndLeaveDecodingAsItWas) {
  const Model model = Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
  const uint32_t prompt[] = {1, 2, 3};
  auto decode_after = [&](bool chains) {
    KvCache cache = model.new_cache();
    model.forward(prompt, cache, {.all_logits = false});
    Decoder decoder(model, cache);
    if (chains) {
      const std::vector<Decoder::KernelChain> rows = decoder.time_kernel_chains(3, 0.01);
      std::vector<std::string> kernels;
      for (const auto& row : rows) {
        kernels.push_back(row.kernel.substr(0, row.kernel.find('.')));  // less the variant
        EXPECT_GT(row.microseconds, 0.0) << row.kernel;
      }
      EXPECT_EQ(kernels,
                (std::vector<std::string>{"decode_embed", "decode_qkv", "decode_attention_chunk",
                                          "decode_attention_output", "decode_mlp_up",
                                          "decode_mlp_down", "decode_lm_head", "decode_argmax"}));
      EXPECT_EQ(cache.length(), 3u);
    }
    return decoder.greedy(4, 8);
  };
  EXPECT_EQ(decode_after(true), decode_after(false));
}

// Warming is automatic for q4 weights in the GPU layout only (where it measured faster), and
// either choice can be forced.
TEST(Decoder, WarmingIsAutomaticForQ4WeightsInTheGpuLayout) {
  using enum Decoder::Warming;
  auto warms = [](DType dtype, Decoder::Layout layout, Decoder::Warming warming) {
    const Model model =
        Model::load(test::hf_fixture("gpt2-tiny"), test::gpu_context(), {.weights = dtype});
    KvCache cache = model.new_cache();
    return Decoder(model, cache, {.layout = layout, .warm_weights = warming}).warms_weights();
  };
  EXPECT_TRUE(warms(DType::q4, Decoder::Layout::gpu, automatic));
  EXPECT_FALSE(warms(DType::q4, Decoder::Layout::software, automatic));
  EXPECT_FALSE(warms(DType::f32, Decoder::Layout::gpu, automatic));
  EXPECT_FALSE(warms(DType::f16, Decoder::Layout::gpu, automatic));
  EXPECT_FALSE(warms(DType::q4, Decoder::Layout::gpu, off));
  EXPECT_TRUE(warms(DType::f32, Decoder::Layout::software, on));
}

TEST(Decoder, RefusesAFullContextAndBadIds) {
  const Model model = Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
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
