#pragma once
// Checks a model against HF transformers' goldens (tests/fixtures/hf/*/golden.safetensors, or the
// council's): logits, every attention map, every hidden state, the loss, and greedy decoding with a
// KV cache. Shared by the CPU and the GPU test binaries; a null context runs on the CPU.

#include <filesystem>
#include <memory>

#include "wgpt/gpu.h"
#include "wgpt/model.h"

namespace wgpt::test {

// Tolerances from the fixtures' README (fp32): logits 1e-3, attention 1e-4, hidden 1e-4, loss 1e-4.
void expect_matches_golden(const model::Model& model, const std::filesystem::path& golden_path);
// Decodes prompt + n tokens one at a time with the KV cache and checks every step's logits
// against a full recompute without a cache.
void expect_cache_matches_recompute(const model::Model& model, size_t prompt_length, size_t steps);

}  // namespace wgpt::test
