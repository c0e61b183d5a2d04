#pragma once
// Training against PyTorch on the char-tiny fixture
// (tests/fixtures/hf/char-tiny/golden.safetensors): the loss and every gradient of one batch, then
// three AdamW steps — their losses and every parameter after them. Shared by the CPU and the GPU
// test binaries (header-only: the test binaries take their sources from tests/cpu and tests/gpu); a
// null context runs on the CPU. Tolerances from the fixtures' README: loss 1e-4; gradients 1e-4
// absolute or 1e-3 relative; AdamW parameters 1e-5.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "test_support.h"
#include "wgpt/io.h"
#include "wgpt/model.h"
#include "wgpt/train.h"

namespace wgpt::test {

inline std::filesystem::path char_tiny_dir() {
  return source_dir() / "tests" / "fixtures" / "hf" / "char-tiny";
}

// The fixture's training batch: one sequence of 47 tokens.
inline train::Batch char_tiny_batch(const io::TensorFile& golden) {
  auto ids = [&](const char* name) {
    std::vector<uint32_t> out;
    for (int64_t id : golden.at(name).ints()) out.push_back(static_cast<uint32_t>(id));
    return out;
  };
  train::Batch batch{1, 0, ids("train_input"), ids("train_target")};
  batch.seq_len = batch.inputs.size();
  return batch;
}

inline double mean(const Tensor& values) {
  double sum = 0.0;
  for (float v : values.to_floats()) sum += v;
  return sum / static_cast<double>(values.numel());
}

// Passes when every |actual − expected| ≤ max(atol, rtol · |expected|); reports the worst element.
inline ::testing::AssertionResult within(const std::string& name, const Tensor& actual,
                                         const io::TensorData& expected, double atol, double rtol) {
  std::vector<float> got = actual.to_floats();
  std::span<const float> want = expected.floats();
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << name << ": " << got.size() << " elements, expected " << want.size();
  }
  size_t bad = 0, worst = 0;
  double worst_error = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double error = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(error <= std::max(atol, rtol * std::fabs(want[i])))) {
      ++bad;
      if (!(error <= worst_error)) worst_error = error, worst = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << name << ": " << bad << " of " << got.size() << " elements differ; worst at " << worst
         << ": " << got[worst] << " vs " << want[worst];
}

inline void expect_gradients_match_pytorch(const std::shared_ptr<gpu::Context>& context) {
  const io::TensorFile golden = io::load_safetensors(char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(char_tiny_dir(), context, {.trainable = true});
  const train::LossAndGrads result = train::loss_and_grads(model, char_tiny_batch(golden));
  EXPECT_NEAR(mean(result.token_losses), golden.at("train_loss").floats()[0], 1e-4);
  const std::vector<train::Parameter> params = train::parameters(model);
  ASSERT_EQ(result.grads.size(), params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_TRUE(
        within(params[i].name, result.grads[i], golden.at("grad." + params[i].name), 1e-4, 1e-3));
  }
}

inline void expect_adamw_matches_pytorch(const std::shared_ptr<gpu::Context>& context) {
  const io::TensorFile golden = io::load_safetensors(char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(char_tiny_dir(), context, {.trainable = true});
  const train::Batch batch = char_tiny_batch(golden);
  std::vector<train::Parameter> params = train::parameters(model);
  train::AdamW optimizer(
      params, {.beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f, .weight_decay = 0.1f, .clip = 0.0f});
  std::span<const float> losses = golden.at("adamw3_losses").floats();
  for (size_t step = 0; step < 3; ++step) {
    const train::LossAndGrads result = train::loss_and_grads(model, batch);
    EXPECT_NEAR(mean(result.token_losses), losses[step], 1e-4) << "step " << step;
    optimizer.step(params, result.grads, 1e-3f);
  }
  for (const train::Parameter& p : params) {
    EXPECT_TRUE(within(p.name, p.value, golden.at("adamw3." + p.name), 1e-5, 0.0));
  }
}

// Mixed precision scales the loss by a power of two and AdamW divides it out: where its products
// run the f32 kernels (the CPU, a device without tensor cores) that changes no bit of three
// clipped AdamW steps; with tensor cores, each step's loss stays within 1% of f32's.
inline void expect_loss_scaling_changes_nothing(const std::shared_ptr<gpu::Context>& context) {
  const io::TensorFile golden = io::load_safetensors(char_tiny_dir() / "golden.safetensors");
  const train::Batch batch = char_tiny_batch(golden);
  const bool tensor_cores = context && context->limits().f16_matrix.available();
  std::vector<std::vector<float>> final_params[2];
  double losses[2][3] = {};
  for (int run = 0; run < 2; ++run) {
    model::Model model = model::Model::load(char_tiny_dir(), context, {.trainable = true});
    model.set_precision(run == 0 ? ops::Precision::f32 : ops::Precision::mixed);
    std::vector<train::Parameter> params = train::parameters(model);
    train::AdamW optimizer(params, {.clip = 1.0f});
    for (size_t step = 0; step < 3; ++step) {
      const train::LossAndGrads result = train::loss_and_grads(model, batch);
      EXPECT_EQ(result.grad_scale, run == 0 ? 1.0f : 64.0f);  // 47 positions → 2^6
      losses[run][step] = mean(result.token_losses);
      optimizer.step(params, result.grads, 1e-3f, result.grad_scale);
    }
    for (const train::Parameter& p : params) final_params[run].push_back(p.value.to_floats());
  }
  for (size_t step = 0; step < 3; ++step) {
    if (tensor_cores) {
      EXPECT_NEAR(losses[1][step], losses[0][step], 0.01 * losses[0][step]) << "step " << step;
    } else {
      EXPECT_EQ(losses[1][step], losses[0][step]) << "step " << step;
    }
  }
  if (!tensor_cores) {
    EXPECT_EQ(final_params[1], final_params[0]);
  }
}

// Two sequences in one batch (attention folded over batch × heads, positions restarting per
// sequence) give the mean of the two sequences' gradients taken one at a time.
inline void expect_batch_is_mean_of_sequences(const std::shared_ptr<gpu::Context>& context) {
  const io::TensorFile golden = io::load_safetensors(char_tiny_dir() / "golden.safetensors");
  const model::Model model = model::Model::load(char_tiny_dir(), context, {.trainable = true});
  const train::Batch whole = char_tiny_batch(golden);
  const size_t half = whole.seq_len / 2;
  auto slice = [&](size_t first) {
    auto part = [&](const std::vector<uint32_t>& ids) {
      return std::vector<uint32_t>(ids.begin() + first, ids.begin() + first + half);
    };
    return train::Batch{1, half, part(whole.inputs), part(whole.targets)};
  };
  const train::Batch a = slice(0), b = slice(half);
  train::Batch both{2, half, a.inputs, a.targets};
  both.inputs.insert(both.inputs.end(), b.inputs.begin(), b.inputs.end());
  both.targets.insert(both.targets.end(), b.targets.begin(), b.targets.end());
  const train::LossAndGrads batched = train::loss_and_grads(model, both);
  const train::LossAndGrads first = train::loss_and_grads(model, a);
  const train::LossAndGrads second = train::loss_and_grads(model, b);
  const std::vector<train::Parameter> params = train::parameters(model);
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<float> mean = first.grads[i].to_floats();
    std::vector<float> other = second.grads[i].to_floats();
    for (size_t j = 0; j < mean.size(); ++j) mean[j] = 0.5f * (mean[j] + other[j]);
    const io::TensorData expected = io::TensorData::from_floats(
        params[i].name, io::Shape(params[i].value.shape().begin(), params[i].value.shape().end()),
        std::move(mean));
    EXPECT_TRUE(within(params[i].name, batched.grads[i], expected, 2e-6, 1e-4));
  }
}

}  // namespace wgpt::test
