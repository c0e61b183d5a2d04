// generate::score_async on the CPU: the same scores as model::surprisal, and errors through `done`.
#include "cpu/score_async_checks.h"

namespace wgpt::test {
namespace {

TEST(ScoreAsync, EqualsSurprisalOnTheCpu) { expect_score_async_equals_surprisal(nullptr); }
TEST(ScoreAsync, ReportsBadInputOnTheCpu) { expect_score_async_reports_bad_input(nullptr); }

}  // namespace
}  // namespace wgpt::test
