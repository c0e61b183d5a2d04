// generate::score_async on the GPU, its readback driven by Context::poll(): the CPU's scores.
#include "cpu/score_async_checks.h"

namespace wgpt::test {
namespace {

TEST(ScoreAsyncGpu, EqualsSurprisalOnTheGpu) { expect_score_async_equals_surprisal(gpu_context()); }
TEST(ScoreAsyncGpu, ReportsBadInputOnTheGpu) {
  expect_score_async_reports_bad_input(gpu_context());
}

}  // namespace
}  // namespace wgpt::test
