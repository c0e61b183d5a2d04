#pragma once
// The council's fixtures and its definition written out in plain loops, shared by the CPU and GPU
// tests.

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "wgpt/council.h"

namespace wgpt::test {

// ../shared/fixtures/forge-council/manifest.json, when the shared fixtures are there.
std::optional<std::filesystem::path> council_manifest();

// A council of this project's own, for the tests that must run without ../shared: the char-tiny
// fixture (tests/fixtures/hf) and three variants sharing its token table, every other weight
// scaled by 1 + k/4 (k = 1, 2, 3) so that the experts differ in how sure they are; on `context`
// (null: the CPU).
council::Loaded char_tiny_council(std::shared_ptr<gpu::Context> context = nullptr);

// One council step as the definition says, from each expert's own forward pass over the whole
// sequence (a fresh cache, its own LM head), in double precision.
struct ReferenceStep {
  std::vector<double> entropy, weights;
  std::vector<double> hidden;  // Σ w_i·h_i
  std::vector<double> logits;  // the first expert's token table · hidden
};
ReferenceStep reference_step(const std::vector<council::Expert>& experts,
                             std::span<const uint32_t> sequence, float beta);

}  // namespace wgpt::test
