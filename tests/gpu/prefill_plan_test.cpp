// A prefill that repeats (the same prompt length on the same model) records the same dispatches on
// the same buffers: the second time on, it creates no bind group and no buffer (the bind groups
// come from the context's cache, the buffers from its pool), as the decode path's prepared
// dispatches do. The counters prove it.
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"
#include "wgpt/model.h"
#include "wgpt/train.h"

namespace wgpt::test {
namespace {

// Two layers of two heads of 64 (the fused attention's), a vocabulary of 50.
model::Config heads_of_64(size_t n_ctx) {
  return model::named_config("2,2,128," + std::to_string(n_ctx) + ",50");
}

TEST(PrefillPlan, ARepeatedPrefillCreatesNoBindGroupOrBuffer) {
  auto context = gpu_context();
  const model::Model model = model::Model::random(heads_of_64(64), 7, context);
  std::vector<uint32_t> ids(37);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>(i * 7 % 50);
  std::vector<float> first;
  gpu::Stats before, after;
  for (int run = 0; run < 3; ++run) {
    before = context->stats();
    model::KvCache cache = model.new_cache();
    std::vector<float> logits = model.forward(ids, cache, {.all_logits = false}).logits.to_floats();
    after = context->stats();
    if (run == 0) first = logits;
    EXPECT_EQ(logits, first) << "run " << run;
  }
  EXPECT_GT(after.dispatches - before.dispatches, 0u);
  EXPECT_EQ(after.bind_groups_created - before.bind_groups_created, 0u);
  EXPECT_EQ(after.buffers_created - before.buffers_created, 0u);
  // The pass in parts of the default size, and the logits' readback.
  const uint64_t per_submit = gpu::Context::kDefaultDispatchesPerSubmit;
  EXPECT_EQ(after.submits - before.submits,
            (after.dispatches - before.dispatches + per_submit - 1) / per_submit + 1);
}

// A prompt whose last position alone is read runs its last block on that row only (the keys and
// values of every row still stored): its logits are the full pass's last row, and the caches it
// leaves decode the same next step.
TEST(PrefillPlan, TheLastPositionAloneEqualsTheFullPassesLastRow) {
  auto context = gpu_context();
  const model::Model model = model::Model::random(heads_of_64(96), 3, context);
  std::vector<uint32_t> ids(70);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>(i * 11 % 50);
  model::KvCache last_only = model.new_cache(), full = model.new_cache();
  const std::vector<float> last =
      model.forward(ids, last_only, {.all_logits = false}).logits.to_floats();
  const std::vector<float> all = model.forward(ids, full, {.all_logits = true}).logits.to_floats();
  ASSERT_EQ(last.size(), 50u);
  ASSERT_EQ(all.size(), 70u * 50u);
  for (size_t v = 0; v < 50; ++v) EXPECT_NEAR(last[v], all[69 * 50 + v], 1e-4f) << v;
  const uint32_t next = 7;
  const std::vector<float> after_last =
      model.forward(std::span(&next, 1), last_only, {.all_logits = false}).logits.to_floats();
  const std::vector<float> after_full =
      model.forward(std::span(&next, 1), full, {.all_logits = false}).logits.to_floats();
  for (size_t v = 0; v < 50; ++v) EXPECT_NEAR(after_last[v], after_full[v], 1e-4f) << v;
}

// Submitting a long pass in parts (Context::set_dispatches_per_submit) changes when the GPU starts
// on it, not what it computes: a prefill's logits and a training step's losses and gradients are
// bit for bit those of one submit, and the pass takes as many submits as its parts.
TEST(PrefillPlan, APassSubmittedInPartsComputesTheSame) {
  auto context = gpu_context();
  const model::Model model = model::Model::random(heads_of_64(64), 5, context, {.trainable = true});
  std::vector<uint32_t> ids(41);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<uint32_t>(i * 13 % 50);
  train::Batch batch{.sequences = 2, .seq_len = 20};
  batch.inputs.assign(ids.begin(), ids.begin() + 40);
  batch.targets.assign(ids.begin() + 1, ids.begin() + 41);
  struct Run {
    std::vector<float> logits, losses;
    std::vector<std::vector<float>> grads;
    uint64_t prefill_dispatches, prefill_submits;
  };
  auto run = [&](size_t per_submit) {
    context->set_dispatches_per_submit(per_submit);
    Run r;
    const gpu::Stats before = context->stats();
    model::KvCache cache = model.new_cache();
    const Tensor logits = model.forward(ids, cache, {.all_logits = false}).logits;
    const gpu::Stats after = context->stats();
    r.prefill_dispatches = after.dispatches - before.dispatches;
    r.prefill_submits = after.submits - before.submits;
    r.logits = logits.to_floats();
    train::LossAndGrads step = train::loss_and_grads(model, batch);
    r.losses = step.token_losses.to_floats();
    for (const Tensor& grad : step.grads) r.grads.push_back(grad.to_floats());
    return r;
  };
  const Run whole = run(0);
  EXPECT_EQ(whole.prefill_submits, 1u);
  for (size_t per_submit : {1, 7}) {
    const Run parts = run(per_submit);
    EXPECT_EQ(parts.logits, whole.logits) << per_submit;
    EXPECT_EQ(parts.losses, whole.losses) << per_submit;
    EXPECT_EQ(parts.grads, whole.grads) << per_submit;
    EXPECT_EQ(parts.prefill_dispatches, whole.prefill_dispatches);
    EXPECT_EQ(parts.prefill_submits, (whole.prefill_dispatches + per_submit - 1) / per_submit)
        << per_submit;
  }
  context->set_dispatches_per_submit(gpu::Context::kDefaultDispatchesPerSubmit);
}

}  // namespace
}  // namespace wgpt::test
