// The GPT-2 forward pass on the CPU equals HF transformers on the fixtures.
#include <gtest/gtest.h>

#include "model_golden_checks.h"
#include "test_support.h"

namespace wgpt::test {
namespace {

TEST(ModelGoldenCpu, Gpt2TinyBpeModelWithPrefixedNames) {
  auto model = model::Model::load(hf_fixture("gpt2-tiny"), nullptr);
  expect_matches_golden(model, hf_fixture("gpt2-tiny") / "golden.safetensors");
}

TEST(ModelGoldenCpu, CharTinyModelWithHubNamesAndMaskBuffers) {
  auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  expect_matches_golden(model, hf_fixture("char-tiny") / "golden.safetensors");
}

TEST(ModelGoldenCpu, CouncilExpert0FromFzm) {
  const auto shared = shared_fixtures();
  if (!shared)
    GTEST_SKIP() << "../shared/fixtures is absent: the council models belong to another project";
  const auto council = *shared / "forge-council";
  auto model = model::Model::from_tensors(model::Config::load(council),
                                          io::load_fzm(council / "expert0.fzm"), nullptr);
  expect_matches_golden(model, council / "expert0.golden.safetensors");
}

TEST(ModelGoldenCpu, KvCacheDecodingEqualsFullRecomputeAtEveryStep) {
  auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  expect_cache_matches_recompute(model, 5, 12);
}

}  // namespace
}  // namespace wgpt::test
