#include "test_support.h"

#include <algorithm>
#include <cstdlib>
#include <random>

namespace wgpt::test {

std::filesystem::path source_dir() {
  // Overridable for a test binary copied to another machine beside a copy of the repository.
  const char* overridden = std::getenv("WGPT_SOURCE_DIR");
  return overridden && *overridden ? overridden : WGPT_SOURCE_DIR;
}

std::filesystem::path hf_fixture(const std::string& name) {
  return source_dir() / "tests" / "fixtures" / "hf" / name;
}

std::optional<std::filesystem::path> shared_fixtures() {
  auto path = source_dir().parent_path() / "shared" / "fixtures";
  if (std::filesystem::is_directory(path)) return path;
  return std::nullopt;
}

std::shared_ptr<gpu::Context> gpu_context() {
  static std::shared_ptr<gpu::Context> context = gpu::Context::create();
  return context;
}

Environment::~Environment() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second) {
      ::setenv(it->first.c_str(), it->second->c_str(), 1);
    } else {
      ::unsetenv(it->first.c_str());
    }
  }
}

void Environment::save(const char* name) {
  const char* old = std::getenv(name);
  saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
}

void Environment::set(const char* name, const std::string& value) {
  save(name);
  ::setenv(name, value.c_str(), 1);
}

void Environment::unset(const char* name) {
  save(name);
  ::unsetenv(name);
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (auto& v : values) v = dist(engine);
  return values;
}

uint32_t argmax(std::span<const float> row) {
  return static_cast<uint32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

}  // namespace wgpt::test
