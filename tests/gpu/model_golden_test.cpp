// The GPT-2 forward pass on the GPU equals HF transformers on the fixtures.
#include <gtest/gtest.h>

#include <vector>

#include "model_golden_checks.h"
#include "test_support.h"
#include "wgpt/io.h"

namespace wgpt::test {
namespace {

TEST(ModelGoldenGpu, Gpt2TinyBpeModelWithPrefixedNames) {
  auto model = model::Model::load(hf_fixture("gpt2-tiny"), test::gpu_context());
  expect_matches_golden(model, hf_fixture("gpt2-tiny") / "golden.safetensors");
}

TEST(ModelGoldenGpu, CharTinyModelWithHubNamesAndMaskBuffers) {
  auto model = model::Model::load(hf_fixture("char-tiny"), test::gpu_context());
  expect_matches_golden(model, hf_fixture("char-tiny") / "golden.safetensors");
}

// A .fzm model (q4 weights) on the GPU: char-tiny written as .fzm by wgpt equals the CPU backend
// on the same file, and where ../shared/fixtures holds them, Forge's first council expert equals
// its golden.
TEST(ModelGoldenGpu, FzmModelsEqualTheCpuBackendAndForgesGolden) {
  const auto dir = hf_fixture("char-tiny");
  std::vector<io::TensorData> floats;  // the mask buffers (integers) are not weights
  for (const io::TensorData& t : io::load_tensors(dir / "model.safetensors").tensors) {
    if (!t.is_integer()) floats.push_back(t);
  }
  const io::TensorFile fzm = io::load_fzm(io::fzm_bytes(floats));
  const model::Config config = model::Config::load(dir);
  const auto cpu = model::Model::from_tensors(config, fzm);
  const auto gpu = model::Model::from_tensors(config, fzm, test::gpu_context());
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 24; ++i) ids.push_back((i * 7 + 3) % config.vocab_size);
  model::KvCache cpu_cache = cpu.new_cache(), gpu_cache = gpu.new_cache();
  const std::vector<float> want =
      cpu.forward(ids, cpu_cache, {.all_logits = true}).logits.to_floats();
  const std::vector<float> got =
      gpu.forward(ids, gpu_cache, {.all_logits = true}).logits.to_floats();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << "logit " << i;

  if (const auto shared = shared_fixtures()) {
    const auto council = *shared / "forge-council";
    auto expert = model::Model::from_tensors(
        model::Config::load(council), io::load_fzm(council / "expert0.fzm"), test::gpu_context());
    expect_matches_golden(expert, council / "expert0.golden.safetensors");
  }
}

TEST(ModelGoldenGpu, KvCacheDecodingEqualsFullRecomputeAtEveryStep) {
  auto model = model::Model::load(hf_fixture("char-tiny"), test::gpu_context());
  expect_cache_matches_recompute(model, 5, 12);
}

}  // namespace
}  // namespace wgpt::test
