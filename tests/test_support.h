#pragma once
// Helpers shared by the test binaries: where the fixtures are, one GPU context per process, and
// seeded random data.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "wgpt/gpu.h"

namespace wgpt::test {

// The repository root.
std::filesystem::path source_dir();
// tests/fixtures/hf/`name`: the HF fixtures the repository holds (copied from ../shared).
std::filesystem::path hf_fixture(const std::string& name);
// ../shared/fixtures beside the checkout, when it is there (tests of files that belong to another
// project skip cleanly without it: GTEST_SKIP() with a message).
std::optional<std::filesystem::path> shared_fixtures();
// The process's GPU context, created on first use with the default options ($WGPT_BACKEND).
// GPU tests never skip: when no adapter exists this throws and the test fails.
std::shared_ptr<gpu::Context> gpu_context();
// Environment variables set or unset for one scope, restored when it ends.
class Environment {
 public:
  Environment() = default;
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment();
  void set(const char* name, const std::string& value);
  void unset(const char* name);

 private:
  void save(const char* name);
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// n floats uniformly in [lo, hi), reproducible from seed.
std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// The index of the largest value, the first of equal ones (as HF's greedy search picks).
uint32_t argmax(std::span<const float> row);

}  // namespace wgpt::test
