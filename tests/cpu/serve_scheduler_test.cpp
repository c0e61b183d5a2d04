// The server's scheduler on the CPU reference (tests/gpu/serve_scheduler_test.cpp runs the same
// checks on the GPU's decode path), and its handling of a failing step engine.
#include "cpu/serve_scheduler_checks.h"

namespace wgpt::test::serve_checks {
namespace {

TEST(ServeScheduler, TokensDoNotDependOnTheBatch) {
  expect_tokens_independent_of_the_batch(nullptr);
}
TEST(ServeScheduler, ReportsAgreeWithTheProbe) { expect_reports_agree_with_the_probe(nullptr); }
TEST(ServeScheduler, CancelFreesTheSlotAtTheNextTick) {
  expect_cancel_frees_the_slot_at_the_next_tick(nullptr);
}
TEST(ServeScheduler, QueueIsBounded) { expect_a_bounded_queue(nullptr); }
TEST(ServeScheduler, DrainEndsWaitingAndLetsRunningFinish) { expect_a_drain(nullptr); }
TEST(ServeScheduler, StopConditions) { expect_the_stop_conditions(nullptr); }

// A step engine whose steps fail: every sequence in the batch ends with a 500 and frees its slot.
class FailingEngine final : public serve::StepEngine {
 public:
  size_t slots() const override { return 2; }
  std::string_view name() const override { return "failing"; }
  void begin(size_t, const generate::SamplingOptions&) override {}
  std::vector<serve::StepOutput> step(std::span<const serve::StepInput>) override {
    throw Error("the device was lost");
  }
};

TEST(ServeScheduler, AFailedStepEndsTheBatchWithAnError) {
  const auto tokenizer = tokenizer::load_tokenizer(Rig::dir());
  serve::Metrics metrics;
  FailingEngine engine;
  serve::Scheduler scheduler(engine, *tokenizer, std::nullopt, metrics, 4);
  auto channel = std::make_shared<EventChannel>();
  SequenceRequest request;
  request.prompt = {1, 2, 3};
  ASSERT_EQ(scheduler.submit({request, request}, channel), Admission::accepted);
  EXPECT_FALSE(scheduler.tick()) << "nothing is left once the batch has failed";
  const auto events = channel->take(std::chrono::milliseconds(0));
  ASSERT_EQ(events.size(), 2u);
  for (const serve::SequenceEvent& event : events) {
    ASSERT_TRUE(event.error.has_value());
    EXPECT_EQ(event.error->status, 500);
    EXPECT_NE(event.error->message.find("the device was lost"), std::string::npos);
  }
  EXPECT_EQ(scheduler.load().busy, 0u);
}

}  // namespace
}  // namespace wgpt::test::serve_checks
