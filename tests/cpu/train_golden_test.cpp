// Training on the CPU against PyTorch (char-tiny), and a finite-difference witness of the
// gradients that relies on nothing but the forward pass.
#include <gtest/gtest.h>

#include <cmath>

#include "cpu/train_golden_checks.h"

namespace wgpt {
namespace {

TEST(TrainGoldenCpu, GradientsMatchPyTorch) { test::expect_gradients_match_pytorch(nullptr); }

TEST(TrainGoldenCpu, ThreeAdamWStepsMatchPyTorch) { test::expect_adamw_matches_pytorch(nullptr); }

TEST(TrainGoldenCpu, BatchIsTheMeanOfItsSequences) {
  test::expect_batch_is_mean_of_sequences(nullptr);
}

// Central differences of the mean loss at the largest-gradient entry of a few parameters, one of
// each kind: embeddings, a norm, a projection, a bias.
TEST(TrainGoldenCpu, GradientsAgreeWithFiniteDifferences) {
  const io::TensorFile golden = io::load_safetensors(test::char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(test::char_tiny_dir());
  const train::Batch batch = test::char_tiny_batch(golden);
  const train::LossAndGrads analytic = train::loss_and_grads(model, batch);
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
    const double plus = test::mean(train::token_losses(model, batch));
    values[at] = saved - h;
    const double minus = test::mean(train::token_losses(model, batch));
    values[at] = saved;
    const double numeric = (plus - minus) / (2.0 * h);
    EXPECT_NEAR(grad[at], numeric, 1e-2 * std::fabs(numeric) + 1e-4) << name << "[" << at << "]";
  }
}

}  // namespace
}  // namespace wgpt
