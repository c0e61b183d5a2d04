#pragma once
// Checks a model against HF transformers' goldens (tests/fixtures/hf/*/golden.safetensors, or the
// council's): logits, every attention map, every hidden state, the loss, and greedy decoding with a
// KV cache. Shared by the CPU and the GPU test binaries; a null context runs on the CPU.

#include <filesystem>
#include <memory>

#include "wgpt/gpu.h"
#include "wgpt/model.h"

namespace wgpt::test {

// The largest |difference| allowed from HF's values. The defaults are the fixtures' README's for
// fp32 weights; weights stored in fewer bits are held to the bounds of weight_dtype_test.cpp.
struct GoldenTolerances {
  float logits = 1e-3f;
  float attention = 1e-4f;
  float hidden = 1e-4f;
  float loss = 1e-4f;
};
// Logits, attention, hidden states and the loss of the prompt, and greedy decoding with the cache
// (whose ids must equal HF's exactly).
void expect_matches_golden(const model::Model& model, const std::filesystem::path& golden_path,
                           const GoldenTolerances& tolerances = {});
// Decodes prompt + n tokens one at a time with the KV cache and checks every step's logits
// against a full recompute without a cache.
void expect_cache_matches_recompute(const model::Model& model, size_t prompt_length, size_t steps);

}  // namespace wgpt::test
