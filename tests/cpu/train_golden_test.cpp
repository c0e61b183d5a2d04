// Training on the CPU against PyTorch (char-tiny), and a finite-difference witness of the
// gradients, without dropout and with it.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "cpu/train_golden_checks.h"

namespace wgpt {
namespace {

TEST(TrainGoldenCpu, GradientsMatchPyTorch) { test::expect_gradients_match_pytorch(nullptr); }

TEST(TrainGoldenCpu, ThreeAdamWStepsMatchPyTorch) { test::expect_adamw_matches_pytorch(nullptr); }

TEST(TrainGoldenCpu, BatchIsTheMeanOfItsSequences) {
  test::expect_batch_is_mean_of_sequences(nullptr);
}

// Central differences of `loss` at the largest-gradient entry of a few parameters of `model`, one
// of each kind: embeddings, a norm, a projection, a bias.
void expect_finite_differences(const model::Model& model, const train::LossAndGrads& analytic,
                               const std::function<double()>& loss) {
  const std::vector<train::Parameter> params = train::parameters(model);
  for (const char* name : {"wte.weight", "wpe.weight", "h.0.ln_1.weight", "h.0.attn.c_attn.weight",
                           "h.1.mlp.c_proj.weight", "h.1.mlp.c_fc.bias", "ln_f.bias"}) {
    size_t index = 0;
    while (params[index].name != name) ++index;
    std::span<float> values = params[index].value.floats();
    std::span<const float> grad = analytic.grads[index].floats();
    size_t at = 0;
    for (size_t i = 0; i < grad.size(); ++i) {
      if (std::fabs(grad[i]) > std::fabs(grad[at])) at = i;
    }
    const float saved = values[at], h = 1e-2f;
    values[at] = saved + h;
    const double plus = loss();
    values[at] = saved - h;
    const double minus = loss();
    values[at] = saved;
    const double numeric = (plus - minus) / (2.0 * h);
    EXPECT_NEAR(grad[at], numeric, 1e-2 * std::fabs(numeric) + 1e-4) << name << "[" << at << "]";
  }
}

// The gradients against central differences of the forward pass alone.
TEST(TrainGoldenCpu, GradientsAgreeWithFiniteDifferences) {
  const io::TensorFile golden = io::load_safetensors(test::char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(test::char_tiny_dir());
  const train::Batch batch = test::char_tiny_batch(golden);
  expect_finite_differences(model, train::loss_and_grads(model, batch),
                            [&] { return test::mean(train::token_losses(model, batch)); });
}

// With dropout, the gradients are those of the loss under the step's masks, which every pass of
// that step redraws the same; another step draws other masks.
TEST(TrainGoldenCpu, DropoutGradientsAgreeWithFiniteDifferences) {
  const io::TensorFile golden = io::load_safetensors(test::char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(test::char_tiny_dir());
  const train::Batch batch = test::char_tiny_batch(golden);
  const train::Dropout dropout{.p = 0.1f, .seed = 5, .step = 2};
  auto loss = [&](const train::Dropout& d) {
    return test::mean(train::loss_and_grads(model, batch, d).token_losses);
  };
  expect_finite_differences(model, train::loss_and_grads(model, batch, dropout),
                            [&] { return loss(dropout); });
  const double without = test::mean(train::token_losses(model, batch));
  EXPECT_NE(loss(dropout), without);
  EXPECT_NE(loss({.p = 0.1f, .seed = 5, .step = 3}), loss(dropout));
  EXPECT_EQ(loss({.p = 0.0f, .seed = 5, .step = 2}), without);
}

TEST(TrainGoldenCpu, LossScalingOfMixedPrecisionChangesNothingOnTheCpu) {
  test::expect_loss_scaling_changes_nothing(nullptr);
}

}  // namespace
}  // namespace wgpt
