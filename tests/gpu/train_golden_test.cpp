// Training on the GPU against PyTorch (char-tiny): the same checks as on the CPU; and with dropout,
// against the CPU.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

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

// Three AdamW steps with dropout on the GPU and on the CPU: the same masks, so the same losses and
// parameters, to the tolerances of the PyTorch comparison above.
TEST(TrainGoldenGpu, DropoutStepsMatchTheCpu) {
  const io::TensorFile golden = io::load_safetensors(test::char_tiny_dir() / "golden.safetensors");
  const train::Batch batch = test::char_tiny_batch(golden);
  const model::Model cpu = model::Model::load(test::char_tiny_dir());
  const model::Model gpu =
      model::Model::load(test::char_tiny_dir(), test::gpu_context(), {.trainable = true});
  std::vector<train::Parameter> cpu_params = train::parameters(cpu);
  std::vector<train::Parameter> gpu_params = train::parameters(gpu);
  train::AdamW cpu_optimizer(cpu_params, {}), gpu_optimizer(gpu_params, {});
  for (uint64_t step = 0; step < 3; ++step) {
    const train::Dropout dropout{.p = 0.2f, .seed = 9, .step = step};
    const train::LossAndGrads on_cpu = train::loss_and_grads(cpu, batch, dropout);
    const train::LossAndGrads on_gpu = train::loss_and_grads(gpu, batch, dropout);
    EXPECT_NEAR(test::mean(on_gpu.token_losses), test::mean(on_cpu.token_losses), 1e-4)
        << "step " << step;
    cpu_optimizer.step(cpu_params, on_cpu.grads, 1e-3f);
    gpu_optimizer.step(gpu_params, on_gpu.grads, 1e-3f);
  }
  for (size_t i = 0; i < cpu_params.size(); ++i) {
    const Tensor& want = cpu_params[i].value;
    const io::TensorData expected = io::TensorData::from_floats(
        cpu_params[i].name, io::Shape(want.shape().begin(), want.shape().end()), want.to_floats());
    EXPECT_TRUE(test::within(gpu_params[i].name, gpu_params[i].value, expected, 1e-5, 0.0));
  }
}

// A GPU model loaded for decoding holds its matrices in column strips, which training cannot
// update: both entry points say how to load it instead of failing inside a product.
TEST(TrainGoldenGpu, AModelLoadedForDecodingIsRefusedWithTheFix) {
  const io::TensorFile golden = io::load_safetensors(test::char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(test::char_tiny_dir(), test::gpu_context());
  ASSERT_EQ(model.matrix_layout(), Layout::column_strips);
  for (const auto& attempt : std::vector<std::function<void()>>{
           [&] { train::parameters(model); },
           [&] { train::loss_and_grads(model, test::char_tiny_batch(golden)); }}) {
    try {
      attempt();
      ADD_FAILURE() << "a model in column strips was trained";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("LoadOptions::trainable"), std::string::npos)
          << error.what();
    }
  }
}

TEST(TrainGoldenGpu, LossScalingOfMixedPrecisionChangesNothingWithoutTensorCores) {
  test::expect_loss_scaling_changes_nothing(test::gpu_context());
}

}  // namespace
}  // namespace wgpt
