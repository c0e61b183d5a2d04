// Sampled generation on the GPU decode path: the CPU backend's tokens for the same seed (except
// at a choice the reference finds within the sampling tolerance of an edge), the same tokens from
// generate(), generate_traced() and its asynchronous form, and a sampled step's cost.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "test_support.h"
#include "wgpt/decoder.h"
#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

struct Mode {
  const char* name;
  SamplingOptions options;
};

std::vector<Mode> modes() {
  return {
      {"temperature 0.8", {.temperature = 0.8f, .seed = 7}},
      {"top-k 5", {.top_k = 5, .seed = 8}},
      {"top-p 0.9", {.top_p = 0.9f, .seed = 9}},
      {"min-p 0.1", {.temperature = 1.2f, .min_p = 0.1f, .seed = 10}},
      {"penalties and bias",
       {.temperature = 0.9f,
        .top_k = 20,
        .top_p = 0.95f,
        .repeat_penalty = 1.3f,
        .presence_penalty = 0.4f,
        .frequency_penalty = 0.2f,
        .penalty_last_n = 16,
        .logit_bias = {{1, 1.5f}, {2, -INFINITY}},
        .seed = 11}},
  };
}

GenerateResult run(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                   const std::vector<uint32_t>& prompt, const SamplingOptions& sampling,
                   size_t tokens) {
  GenerateOptions options;
  options.max_new_tokens = tokens;
  options.sampling = sampling;
  options.stop_at_end_of_text = false;
  return generate(model, tokenizer, prompt, options);
}

// The CPU backend's and the GPU's tokens agree up to the first step where they differ, and there
// the CPU reference's choice lay within the tolerance of an edge.
void expect_backends_agree(const char* name, const char* prompt_text, size_t tokens) {
  const auto tokenizer = tokenizer::load_tokenizer(test::hf_fixture(name));
  const model::Model cpu = model::Model::load(test::hf_fixture(name));
  const model::Model gpu = model::Model::load(test::hf_fixture(name), test::gpu_context());
  ASSERT_TRUE(model::Decoder::supported(gpu));
  const std::vector<uint32_t> prompt = tokenizer->encode(prompt_text);
  for (const Mode& mode : modes()) {
    SCOPED_TRACE(std::string(name) + ", " + mode.name);
    const GenerateResult on_cpu = run(cpu, *tokenizer, prompt, mode.options, tokens);
    const GenerateResult on_gpu = run(gpu, *tokenizer, prompt, mode.options, tokens);
    ASSERT_EQ(on_cpu.ids.size(), tokens);
    ASSERT_EQ(on_gpu.ids.size(), tokens);
    size_t step = 0;
    while (step < tokens && on_cpu.ids[step] == on_gpu.ids[step]) ++step;
    if (step == tokens) continue;
    std::vector<uint32_t> context = prompt;
    context.insert(context.end(), on_cpu.ids.begin(), on_cpu.ids.begin() + step);
    model::KvCache cache = cpu.new_cache();
    const std::vector<float> logits =
        cpu.forward(context, cache, {.all_logits = false}).logits.to_floats();
    EXPECT_LT(model::choose_token(logits, context, mode.options).margin, model::kSamplingTolerance)
        << "step " << step << ": CPU " << on_cpu.ids[step] << ", GPU " << on_gpu.ids[step];
  }
}

TEST(SampledGeneration, GpuTokensEqualTheCpuBackendsOnTheCharFixture) {
  expect_backends_agree("char-tiny", "ROMEO:", 24);
}

TEST(SampledGeneration, GpuTokensEqualTheCpuBackendsOnTheBpeFixture) {
  expect_backends_agree("gpt2-tiny", "Hello, my dog", 8);
}

// generate(), generate_traced() and generate_traced_async() run the same decoder and choose with
// the same kernels: the same tokens, to the last.
TEST(SampledGeneration, EveryEntryPointGivesTheSameTokens) {
  const auto tokenizer = tokenizer::load_tokenizer(test::hf_fixture("char-tiny"));
  const model::Model model = model::Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
  const std::vector<uint32_t> prompt = tokenizer->encode("JULIET:");
  for (const Mode& mode : modes()) {
    SCOPED_TRACE(mode.name);
    GenerateOptions options;
    options.max_new_tokens = 20;
    options.sampling = mode.options;
    const GenerateResult plain = generate(model, *tokenizer, prompt, options);
    std::vector<uint32_t> reported;
    auto record = [&](size_t, const model::StepTrace&, uint32_t token) {
      reported.push_back(token);
      return true;
    };
    const GenerateResult traced =
        generate_traced(model, *tokenizer, prompt, options, {.top_n = 3}, record);
    std::optional<Result<GenerateResult>> async;
    generate_traced_async(model, *tokenizer, prompt, options, {.top_n = 3}, {}, {},
                          [&](Result<GenerateResult> result) { async.emplace(std::move(result)); });
    while (!async) model.context()->poll();
    ASSERT_TRUE(async->ok()) << async->error().what();
    EXPECT_EQ(traced.ids, plain.ids);
    EXPECT_EQ(reported, plain.ids);
    EXPECT_EQ(async->value().ids, plain.ids);
    EXPECT_EQ(async->value().text, plain.text);
  }
}

// A sampled step is the greedy step's work with the sampler's dispatches in place of the argmax:
// one fence wait, no buffer created, and Tuning::steps_per_submit steps a submit.
TEST(SampledGeneration, ASampledStepIsOneWaitAndNoNewBuffersInSharedSubmits) {
  const model::Model model = model::Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
  model::KvCache cache = model.new_cache();
  std::vector<uint32_t> context = {1, 2, 3};
  model.forward(context, cache, {.all_logits = false});
  context.push_back(4);
  const SamplingOptions sampling{.top_k = 10, .top_p = 0.9f, .repeat_penalty = 1.2f, .seed = 5};
  model::Decoder decoder(model, cache, sampling);
  // The first steps may size pools: each readback in flight takes a staging buffer, and as many
  // steps as the submits in flight carry are in flight together.
  const model::Decoder::Tuning tuning;
  const size_t in_flight = tuning.steps_in_flight * tuning.steps_per_submit;
  for (uint32_t token : decoder.generate(context, in_flight)) context.push_back(token);
  const gpu::Stats before = model.context()->stats();
  const std::vector<uint32_t> tokens = decoder.generate(context, 6);
  const gpu::Stats after = model.context()->stats();
  ASSERT_EQ(tokens.size(), 6u);
  EXPECT_EQ(after.submits - before.submits,
            (6 + tuning.steps_per_submit - 1) / tuning.steps_per_submit);
  EXPECT_EQ(after.fence_waits - before.fence_waits, 6u);
  EXPECT_EQ(after.buffers_created, before.buffers_created);
  // prepare (with top-k's first pass), top-k's other three, top-p's four, draw, pick
  const size_t sampler = 1 + 3 + 4 + 1 + 1;
  EXPECT_EQ(after.dispatches - before.dispatches, 6u * (2 + 5 * model.config().n_layer + sampler));
}

// However many steps are in flight, and however many a submit carries, the GPU feeds each token
// to the next step and keeps the penalties' window itself: the same tokens, greedy or sampled; and
// a run stopped early, its later steps already submitted, continues as if they had not run.
TEST(SampledGeneration, StepsInFlightChangeNoToken) {
  const model::Model model = model::Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
  const std::vector<uint32_t> prompt = {5, 6, 7, 8};
  auto decode = [&](const SamplingOptions& sampling, size_t in_flight, size_t stop_after,
                    size_t per_submit = 1) {
    model::KvCache cache = model.new_cache();
    model.forward(std::span(prompt).first(prompt.size() - 1), cache, {.all_logits = false});
    model::Decoder decoder(model, cache, sampling,
                           {.steps_in_flight = in_flight, .steps_per_submit = per_submit});
    std::vector<uint32_t> context = prompt;
    size_t seen = 0;
    for (uint32_t token :
         decoder.generate(context, 12, [&](uint32_t) { return ++seen < stop_after; })) {
      context.push_back(token);
    }
    EXPECT_EQ(cache.length() + 1, context.size());
    for (uint32_t token : decoder.generate(context, 12 - seen)) context.push_back(token);
    return context;
  };
  std::vector<Mode> all = modes();
  all.push_back({"greedy", {.greedy = true}});
  for (const Mode& mode : all) {
    SCOPED_TRACE(mode.name);
    const std::vector<uint32_t> expected = decode(mode.options, 1, 12);
    ASSERT_EQ(expected.size(), prompt.size() + 12);
    for (size_t in_flight : {2, 3, 5}) {
      EXPECT_EQ(decode(mode.options, in_flight, 12), expected) << in_flight << " in flight";
      EXPECT_EQ(decode(mode.options, in_flight, 4), expected) << in_flight << ", stopped at 4";
    }
    // Several steps a submit (5 of 12: the last submit carries fewer), one or two submits ahead.
    for (size_t in_flight : {1, 2}) {
      EXPECT_EQ(decode(mode.options, in_flight, 12, 5), expected) << in_flight << " × 5 a submit";
      EXPECT_EQ(decode(mode.options, in_flight, 4, 5), expected) << in_flight << " × 5, stopped";
    }
  }
  model::KvCache cache = model.new_cache();
  EXPECT_THROW(model::Decoder(model, cache, SamplingOptions{}, {.steps_in_flight = 0}), Error);
  EXPECT_THROW(model::Decoder(model, cache, SamplingOptions{}, {.steps_per_submit = 0}), Error);
}

TEST(SampledGeneration, TheDecoderChecksItsOptionsAndContext) {
  const model::Model model = model::Model::load(test::hf_fixture("char-tiny"), test::gpu_context());
  model::KvCache cache = model.new_cache();
  EXPECT_THROW(model::Decoder(model, cache, SamplingOptions{.top_p = 0.0f}), Error);
  const std::vector<uint32_t> prompt = {1, 2, 3};
  model.forward(prompt, cache, {.all_logits = false});
  model::Decoder decoder(model, cache, SamplingOptions{.seed = 1});
  const uint32_t short_context[] = {4};
  EXPECT_THROW(decoder.generate(short_context, 2), Error) << "sampling needs the whole context";
  EXPECT_THROW(decoder.greedy(4, 2), Error) << "this decoder samples";
}

}  // namespace
}  // namespace wgpt::generate
