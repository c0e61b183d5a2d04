// Training on the GPU against PyTorch (char-tiny): the same checks as on the CPU.
#include <gtest/gtest.h>

#include "cpu/train_golden_checks.h"

namespace wgpt {
namespace {

TEST(TrainGoldenGpu, GradientsMatchPyTorch) {
  test::expect_gradients_match_pytorch(test::gpu_context());
}

TEST(TrainGoldenGpu, ThreeAdamWStepsMatchPyTorch) {
  test::expect_adamw_matches_pytorch(test::gpu_context());
}

TEST(TrainGoldenGpu, BatchIsTheMeanOfItsSequences) {
  test::expect_batch_is_mean_of_sequences(test::gpu_context());
}

}  // namespace
}  // namespace wgpt
