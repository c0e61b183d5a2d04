// The council on the GPU: the same steps as on the CPU (merged logits within 1e-4), every expert's
// step in one submit and one readback, and the asynchronous loop equal to the blocking one. On a
// council of the project's own, so that these run wherever the tests do.
#include "wgpt/council.h"

#include <gtest/gtest.h>

#include <string>

#include "council_checks.h"
#include "test_support.h"

namespace wgpt::test {
namespace {

// The same steps as the CPU council: merged logits and hidden state within 1e-4, the router's
// weights and entropies, each expert's and the council's choice.
void expect_steps_equal(council::Loaded cpu, council::Loaded gpu, const std::string& prompt) {
  const model::SamplingOptions greedy{.greedy = true};
  std::vector<uint32_t> next = cpu.tokenizer->encode(prompt);
  for (int index = 0; index < 4; ++index) {
    const council::Step want = cpu.council->step(next, greedy, 4);
    const council::Step got = gpu.council->step(next, greedy, 4);
    ASSERT_EQ(got.chosen, want.chosen) << "step " << index;
    for (size_t v = 0; v < want.logits.size(); ++v) {
      ASSERT_NEAR(got.logits[v], want.logits[v], 1e-4) << "step " << index << ", token " << v;
    }
    for (size_t c = 0; c < want.hidden.size(); ++c)
      ASSERT_NEAR(got.hidden[c], want.hidden[c], 1e-4);
    for (size_t i = 0; i < want.experts.size(); ++i) {
      EXPECT_NEAR(got.experts[i].weight, want.experts[i].weight, 1e-5) << "expert " << i;
      EXPECT_NEAR(got.experts[i].entropy, want.experts[i].entropy, 1e-4) << "expert " << i;
      EXPECT_EQ(got.experts[i].top.front().id, want.experts[i].top.front().id);
    }
    EXPECT_EQ(got.consensus, want.consensus);
    EXPECT_EQ(got.leader, want.leader);
    next = {want.chosen};
  }
}

// On the project's own council (char_tiny_council), and on Forge's four experts where
// ../shared/fixtures holds them.
TEST(GpuCouncil, StepsEqualTheCpuCouncil) {
  {
    SCOPED_TRACE("char-tiny council");
    expect_steps_equal(char_tiny_council(), char_tiny_council(gpu_context()), "ROMEO:\nWhat say");
  }
  if (const auto manifest = council_manifest()) {
    SCOPED_TRACE("Forge's council");
    expect_steps_equal(council::load_manifest(*manifest),
                       council::load_manifest(*manifest, gpu_context()), "ROMEO:\nWhat say");
  }
}

TEST(GpuCouncil, EveryExpertsStepIsOneSubmitAndOneReadback) {
  council::Loaded gpu = char_tiny_council(gpu_context());
  const model::SamplingOptions greedy{.greedy = true};
  const council::Step first = gpu.council->step(gpu.tokenizer->encode("ROMEO:"), greedy, 1);
  const gpu::Stats before = gpu_context()->stats();
  gpu.council->step(std::vector<uint32_t>{first.chosen}, greedy, 1);
  const gpu::Stats after = gpu_context()->stats();
  EXPECT_EQ(after.submits - before.submits, 1u);
  EXPECT_EQ(after.fence_waits - before.fence_waits, 1u);
  EXPECT_GT(after.dispatches - before.dispatches, 4u * 4u);  // four experts' blocks, and the router
}

TEST(GpuCouncil, AsynchronousGenerationEqualsTheBlockingOne) {
  council::Loaded gpu = char_tiny_council(gpu_context());
  council::CouncilOptions options;
  options.generate.max_new_tokens = 6;
  options.generate.sampling = {.temperature = 0.8f, .top_k = 10, .seed = 3};
  const std::vector<uint32_t> prompt = gpu.tokenizer->encode("JULIET:\n");
  const generate::GenerateResult blocking =
      council::generate(*gpu.council, *gpu.tokenizer, prompt, options, {});
  std::optional<Result<generate::GenerateResult>> outcome;
  size_t steps = 0;
  council::generate_async(
      *gpu.council, *gpu.tokenizer, prompt, options,
      [&](size_t, const council::Step&) { return ++steps > 0; }, {},
      [&](Result<generate::GenerateResult> result) { outcome.emplace(std::move(result)); });
  while (!outcome) gpu_context()->poll();
  ASSERT_TRUE(outcome->ok()) << outcome->error().what();
  EXPECT_EQ(outcome->value().ids, blocking.ids);
  EXPECT_EQ(outcome->value().text, blocking.text);
  EXPECT_EQ(steps, 6u);
}

}  // namespace
}  // namespace wgpt::test
