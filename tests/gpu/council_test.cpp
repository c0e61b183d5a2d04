// The council on the GPU: the same steps as on the CPU (merged logits within 1e-4), every expert's
// step in one submit and one readback, and the asynchronous loop equal to the blocking one.
#include "wgpt/council.h"

#include <gtest/gtest.h>

#include "council_checks.h"
#include "test_support.h"

namespace wgpt::test {
namespace {

class GpuCouncil : public ::testing::Test {
 protected:
  void SetUp() override {
    manifest_ = council_manifest();
    if (!manifest_) {
      GTEST_SKIP()
          << "../shared/fixtures is absent: the council's experts belong to another project";
    }
  }
  std::optional<std::filesystem::path> manifest_;
};

TEST_F(GpuCouncil, StepsEqualTheCpuCouncil) {
  council::Loaded cpu = council::load_manifest(*manifest_);
  council::Loaded gpu = council::load_manifest(*manifest_, gpu_context());
  const model::SamplingOptions greedy{.greedy = true};
  std::vector<uint32_t> next = cpu.tokenizer->encode("ROMEO:\nWhat say");
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

TEST_F(GpuCouncil, EveryExpertsStepIsOneSubmitAndOneReadback) {
  council::Loaded gpu = council::load_manifest(*manifest_, gpu_context());
  const model::SamplingOptions greedy{.greedy = true};
  const council::Step first = gpu.council->step(gpu.tokenizer->encode("ROMEO:"), greedy, 1);
  const gpu::Stats before = gpu_context()->stats();
  gpu.council->step(std::vector<uint32_t>{first.chosen}, greedy, 1);
  const gpu::Stats after = gpu_context()->stats();
  EXPECT_EQ(after.submits - before.submits, 1u);
  EXPECT_EQ(after.fence_waits - before.fence_waits, 1u);
  EXPECT_GT(after.dispatches - before.dispatches, 4u * 4u);  // four experts' blocks, and the router
}

TEST_F(GpuCouncil, AsynchronousGenerationEqualsTheBlockingOne) {
  council::Loaded gpu = council::load_manifest(*manifest_, gpu_context());
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
