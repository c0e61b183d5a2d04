// Teacher-forced surprisal on the GPU equals the goldens.
#include "cpu/probe_checks.h"

namespace wgpt::test::probe {
namespace {

TEST(ProbeSurprisalGpu, EqualsMinusLog2SoftmaxOfGoldenLogits) {
  expect_surprisal_matches_golden(gpu_context(), "gpt2-tiny");
  expect_surprisal_matches_golden(gpu_context(), "char-tiny");
}

}  // namespace
}  // namespace wgpt::test::probe
