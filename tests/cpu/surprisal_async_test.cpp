// model::surprisal_async on the CPU: the reference's windows, progress and errors via callbacks.
#include "cpu/surprisal_async_checks.h"

namespace wgpt::test {
namespace {

TEST(SurprisalAsync, WindowsEqualTheReferenceOnTheCpu) {
  expect_windows_equal_the_cpu_reference(nullptr);
}
TEST(SurprisalAsync, ReportsBadInputOnTheCpu) { expect_bad_input_reported(nullptr); }

}  // namespace
}  // namespace wgpt::test
