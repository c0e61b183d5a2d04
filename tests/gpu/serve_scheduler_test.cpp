// The server's scheduler on the GPU: the fused B = 1 decode path in every slot (where the CPU
// test runs the reference), with the same checks.
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

}  // namespace
}  // namespace wgpt::test::serve_checks
