// WebGPU's checks inside kernels (ContextOptions::kernel_checks): on unless turned off, and
// without them every kernel of a prefill, a decode step, sampling and scoring computes exactly
// what it computes with them. Without the checks a GPU's workgroup memory starts with whatever the
// last workgroup left there, so a kernel that read it before writing it would differ here on a
// GPU (llvmpipe starts every workgroup's memory zeroed regardless: a kernel made to read its
// memory before writing it still passed there).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "test_support.h"
#include "wgpt/decoder.h"
#include "wgpt/generate.h"
#include "wgpt/probe.h"
#include "wgpt/tokenizer.h"

namespace wgpt {
namespace {

TEST(KernelChecks, AreOnUnlessTurnedOff) {
  EXPECT_EQ(test::gpu_context()->limits().kernel_checks, gpu::kernel_checks_from_environment());
  auto checked = gpu::Context::create({.kernel_checks = true});
  EXPECT_TRUE(checked->limits().kernel_checks);
  auto unchecked = gpu::Context::create({.kernel_checks = false});
  EXPECT_FALSE(unchecked->limits().kernel_checks);
}

TEST(KernelChecks, TheEnvironmentVariableTakesOnOffOrFails) {
  test::Environment environment;
  environment.unset("WGPT_KERNEL_CHECKS");
  EXPECT_TRUE(gpu::kernel_checks_from_environment());
  for (const char* on : {"", "1", "on", "true"}) {
    environment.set("WGPT_KERNEL_CHECKS", on);
    EXPECT_TRUE(gpu::kernel_checks_from_environment()) << on;
  }
  for (const char* off : {"0", "off", "false"}) {
    environment.set("WGPT_KERNEL_CHECKS", off);
    EXPECT_FALSE(gpu::kernel_checks_from_environment()) << off;
  }
  environment.set("WGPT_KERNEL_CHECKS", "yes please");
  EXPECT_THROW(gpu::kernel_checks_from_environment(), Error);
}

// What a model computes on one context: a prefill's logits at every position, six decode steps'
// logits, sampled tokens in two modes, and a scored text's surprisal and alternatives.
struct Results {
  std::vector<float> prefill;
  std::vector<std::vector<float>> decoded;
  std::vector<std::vector<uint32_t>> sampled;
  std::vector<double> bits;
  std::vector<uint32_t> alternatives;
};

Results compute(const char* fixture, std::shared_ptr<gpu::Context> context) {
  const model::Model model = model::Model::load(test::hf_fixture(fixture), context);
  const auto tokenizer = tokenizer::load_tokenizer(test::hf_fixture(fixture));
  const std::vector<uint32_t> prompt = tokenizer->encode("The quick brown fox jumps over the");
  Results results;
  model::KvCache cache = model.new_cache();
  results.prefill = model.forward(prompt, cache, {.all_logits = true}).logits.to_floats();
  model::Decoder decoder(model, cache);
  uint32_t token = prompt.back();
  for (int step = 0; step < 6; ++step) {
    results.decoded.push_back(decoder.step_logits(token));
    token = (token * 31 + 7) % model.config().vocab_size;
  }
  const generate::SamplingOptions modes[] = {
      {.top_p = 0.9f, .seed = 3},
      {.temperature = 0.9f, .top_k = 20, .repeat_penalty = 1.3f, .penalty_last_n = 16, .seed = 4}};
  for (const generate::SamplingOptions& sampling : modes) {
    generate::GenerateOptions options;
    options.max_new_tokens = 12;
    options.sampling = sampling;
    options.stop_at_end_of_text = false;
    results.sampled.push_back(generate::generate(model, *tokenizer, prompt, options).ids);
  }
  // Longer than either fixture's context (128 and 64 positions): several windows.
  std::string words;
  for (int i = 0; i < 12; ++i) {
    words += "A text to score goes on about foxes, dogs and the order of words for a while. ";
  }
  const std::vector<uint32_t> text = tokenizer->encode(words);
  for (const model::TokenSurprisal& scored : model::surprisal(model, text).tokens) {
    results.bits.push_back(scored.bits.value_or(-1.0));
    for (const model::TopToken& alternative : scored.alternatives) {
      results.alternatives.push_back(alternative.id);
    }
  }
  return results;
}

TEST(KernelChecks, ChangeNoResultOfAnyKernel) {
  for (const char* fixture : {"gpt2-tiny", "char-tiny"}) {
    SCOPED_TRACE(fixture);
    const Results unchecked = compute(fixture, gpu::Context::create({.kernel_checks = false}));
    const Results checked = compute(fixture, gpu::Context::create({.kernel_checks = true}));
    EXPECT_EQ(unchecked.prefill, checked.prefill);
    EXPECT_EQ(unchecked.decoded, checked.decoded);
    EXPECT_EQ(unchecked.sampled, checked.sampled);
    EXPECT_EQ(unchecked.bits, checked.bits);
    EXPECT_EQ(unchecked.alternatives, checked.alternatives);
    EXPECT_FALSE(unchecked.sampled[0].empty());
    EXPECT_FALSE(unchecked.alternatives.empty());
    EXPECT_GT(unchecked.bits.size(), 128u);
  }
}

}  // namespace
}  // namespace wgpt
