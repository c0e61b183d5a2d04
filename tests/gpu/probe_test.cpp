// The probe on the GPU: the same checks as on the CPU, and one fence wait per probed step.
#include "cpu/probe_checks.h"

namespace wgpt::test::probe {
namespace {

TEST(ProbeGpu, PrefillAttentionEqualsGoldens) {
  expect_prefill_matches_golden(gpu_context(), "gpt2-tiny");
  expect_prefill_matches_golden(gpu_context(), "char-tiny");
}

TEST(ProbeGpu, DecodeAttentionEqualsFullRecompute) {
  expect_decode_matches_recompute(gpu_context());
}

TEST(ProbeGpu, DetailEqualsForwardCapturesAndCpuOps) { expect_detail_consistent(gpu_context()); }

TEST(ProbeGpu, DecodeDetailEqualsFullRecompute) {
  expect_decode_detail_matches_recompute(gpu_context());
}

TEST(ProbeGpu, TextWithTheProbeEqualsTextWithout) { expect_probe_keeps_the_text(gpu_context()); }

TEST(ProbeGpu, AsyncGenerationEqualsSync) { expect_async_matches_sync(gpu_context()); }

TEST(ProbeGpu, OneProbedStepIsOneSubmitAndOneFenceWait) {
  auto context = gpu_context();
  const auto model = model::Model::load(hf_fixture("char-tiny"), context);
  model::KvCache cache = model.new_cache();
  const std::vector<uint32_t> prompt = {20, 53, 1, 47};
  for (size_t detail : {size_t{0}, model.config().n_layer}) {
    SCOPED_TRACE("detail_layers " + std::to_string(detail));
    const gpu::Stats before = context->stats();
    const model::StepTrace trace =
        cache.length() == 0 ? model::trace_step(model, prompt, cache, {.detail_layers = detail})
                            : model::trace_step(model, std::span(prompt).first(1), cache,
                                                {.detail_layers = detail, .top_n = 4});
    const gpu::Stats after = context->stats();
    EXPECT_EQ(after.fence_waits - before.fence_waits, 1u);
    EXPECT_EQ(after.submits - before.submits, 1u);
    EXPECT_GE(trace.captures.size(), model.config().n_layer);
  }
  // The asynchronous form too.
  const gpu::Stats before = context->stats();
  std::optional<Result<model::StepTrace>> async;
  model::trace_step_async(
      model, std::span(prompt).first(1), cache, {.detail_layers = 1},
      [&](Result<model::StepTrace> result) { async.emplace(std::move(result)); });
  while (!async) context->poll();
  ASSERT_TRUE(async->ok()) << async->error().what();
  EXPECT_EQ(context->stats().fence_waits - before.fence_waits, 1u);
  EXPECT_EQ(context->stats().submits - before.submits, 1u);
  EXPECT_EQ(async->value().kv_len, prompt.size() + 2);
}

}  // namespace
}  // namespace wgpt::test::probe
