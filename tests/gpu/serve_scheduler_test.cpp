// The server's scheduler on the GPU, with the same checks as the CPU test (which runs the
// reference): on the sequential engine (the fused B = 1 decode path in every slot) and on the
// batched engine (one GPU step for every slot that continues its cache).
#include "cpu/serve_scheduler_checks.h"

namespace wgpt::test::serve_checks {
namespace {

TEST(ServeSchedulerGpu, TokensDoNotDependOnTheBatch) {
  expect_tokens_independent_of_the_batch(gpu_context());
}
TEST(ServeSchedulerGpu, ReportsAgreeWithTheProbe) {
  expect_reports_agree_with_the_probe(gpu_context());
}
TEST(ServeSchedulerGpu, CancelFreesTheSlotAtTheNextTick) {
  expect_cancel_frees_the_slot_at_the_next_tick(gpu_context());
}
TEST(ServeSchedulerGpu, QueueIsBounded) { expect_a_bounded_queue(gpu_context()); }
TEST(ServeSchedulerGpu, DrainEndsWaitingAndLetsRunningFinish) { expect_a_drain(gpu_context()); }
TEST(ServeSchedulerGpu, StopConditions) { expect_the_stop_conditions(gpu_context()); }

TEST(ServeSchedulerBatchedGpu, TokensDoNotDependOnTheBatch) {
  expect_tokens_independent_of_the_batch(gpu_context(), EngineChoice::batched);
}
TEST(ServeSchedulerBatchedGpu, ReportsAgreeWithTheProbe) {
  expect_reports_agree_with_the_probe(gpu_context(), EngineChoice::batched);
}
TEST(ServeSchedulerBatchedGpu, CancelFreesTheSlotAtTheNextTick) {
  expect_cancel_frees_the_slot_at_the_next_tick(gpu_context(), EngineChoice::batched);
}
TEST(ServeSchedulerBatchedGpu, DrainEndsWaitingAndLetsRunningFinish) {
  expect_a_drain(gpu_context(), EngineChoice::batched);
}
TEST(ServeSchedulerBatchedGpu, StopConditions) {
  expect_the_stop_conditions(gpu_context(), EngineChoice::batched);
}

}  // namespace
}  // namespace wgpt::test::serve_checks
