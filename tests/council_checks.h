#pragma once
// The council's fixtures and its definition written out in plain loops, shared by the CPU and GPU
// tests.

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "wgpt/council.h"

namespace wgpt::test {

// ../shared/fixtures/forge-council/manifest.json, when the shared fixtures are there.
std::optional<std::filesystem::path> council_manifest();

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
