// model::surprisal_async on the GPU, its readbacks driven by Context::poll(): the CPU's scores.
#include "cpu/surprisal_async_checks.h"

namespace wgpt::test {
namespace {

TEST(SurprisalAsyncGpu, WindowsEqualTheCpuReference) {
  expect_windows_equal_the_cpu_reference(gpu_context());
}
TEST(SurprisalAsyncGpu, ReportsBadInputOnTheGpu) { expect_bad_input_reported(gpu_context()); }

}  // namespace
}  // namespace wgpt::test
