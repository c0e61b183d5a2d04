#include "model_golden_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_support.h"

namespace wgpt::test {
namespace {

// Max |a - b| over two equal-length arrays; fails the test when over `tolerance`.
void expect_close(std::span<const float> actual, std::span<const float> expected, float tolerance,
                  const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what << ": sizes differ";
  float worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const float diff = std::fabs(actual[i] - expected[i]);
    if (!(diff <= worst)) {  // also catches NaN
      worst = std::isnan(diff) ? INFINITY : diff;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, tolerance) << what << ": max |diff| " << worst << " at element " << worst_at
                              << " (got " << actual[worst_at] << ", want " << expected[worst_at]
                              << ")";
}

std::vector<uint32_t> to_ids(const io::TensorData& tensor) {
  std::vector<uint32_t> ids;
  for (int64_t id : tensor.ints()) ids.push_back(static_cast<uint32_t>(id));
  return ids;
}

float mean_cross_entropy(const std::vector<float>& logits, const std::vector<uint32_t>& ids,
                         size_t vocab) {
  double total = 0;
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    std::span<const float> row(logits.data() + i * vocab, vocab);
    const float top = *std::max_element(row.begin(), row.end());
    double sum = 0;
    for (float v : row) sum += std::exp(static_cast<double>(v - top));
    total += std::log(sum) + top - row[ids[i + 1]];
  }
  return static_cast<float>(total / static_cast<double>(ids.size() - 1));
}

}  // namespace

void expect_matches_golden(const model::Model& model, const std::filesystem::path& golden_path,
                           const GoldenTolerances& tolerances) {
  const io::TensorFile golden = io::load_safetensors(golden_path);
  const std::vector<uint32_t> prompt = to_ids(golden.at("input_ids"));
  const size_t vocab = model.config().vocab_size;

  model::KvCache cache = model.new_cache();
  model::ForwardOutput out =
      model.forward(prompt, cache, {.capture_attention = true, .capture_hidden = true});
  const std::vector<float> logits = out.logits.to_floats();
  expect_close(logits, golden.at("logits").floats(), tolerances.logits, "logits");
  ASSERT_EQ(out.attention.size(), model.config().n_layer);
  for (size_t layer = 0; layer < out.attention.size(); ++layer) {
    const std::string name = "attn." + std::to_string(layer);
    expect_close(out.attention[layer].to_floats(), golden.at(name).floats(), tolerances.attention,
                 name);
  }
  ASSERT_EQ(out.hidden.size(), model.config().n_layer + 1);
  for (size_t i = 0; i < out.hidden.size(); ++i) {
    const std::string name = "hidden." + std::to_string(i);
    expect_close(out.hidden[i].to_floats(), golden.at(name).floats(), tolerances.hidden, name);
  }
  const float loss = mean_cross_entropy(logits, prompt, vocab);
  EXPECT_NEAR(loss, golden.at("loss").floats()[0], tolerances.loss) << "loss";

  // Greedy continuation with the KV cache, one token per step.
  const std::vector<uint32_t> expected_ids = to_ids(golden.at("greedy_ids"));
  std::vector<uint32_t> sequence = prompt;
  std::vector<uint32_t> generated;
  std::vector<float> last(logits.end() - static_cast<ptrdiff_t>(vocab), logits.end());
  for (size_t step = 0; step < expected_ids.size(); ++step) {
    const uint32_t next = test::argmax(last);
    generated.push_back(next);
    sequence.push_back(next);
    if (step + 1 < expected_ids.size()) {
      last = model.forward(std::span(&next, 1), cache, {.all_logits = false}).logits.to_floats();
    }
  }
  EXPECT_EQ(generated, expected_ids) << "greedy ids";
  // The logits at the last position of prompt + continuation, recomputed without a cache.
  model::KvCache fresh = model.new_cache();
  const std::vector<float> recomputed =
      model.forward(sequence, fresh, {.all_logits = false}).logits.to_floats();
  expect_close(recomputed, golden.at("greedy_logits_last").floats(), tolerances.logits,
               "greedy_logits_last");
}

void expect_cache_matches_recompute(const model::Model& model, size_t prompt_length, size_t steps) {
  const size_t vocab = model.config().vocab_size;
  std::vector<uint32_t> sequence;
  for (size_t i = 0; i < prompt_length; ++i)
    sequence.push_back(static_cast<uint32_t>((i * 7 + 3) % vocab));
  model::KvCache cache = model.new_cache();
  std::vector<float> cached =
      model.forward(sequence, cache, {.all_logits = false}).logits.to_floats();
  for (size_t step = 0; step < steps; ++step) {
    model::KvCache fresh = model.new_cache();
    const std::vector<float> full =
        model.forward(sequence, fresh, {.all_logits = false}).logits.to_floats();
    expect_close(cached, full, 1e-4f, "step " + std::to_string(step) + " logits");
    const uint32_t next = test::argmax(cached);
    sequence.push_back(next);
    cached = model.forward(std::span(&next, 1), cache, {.all_logits = false}).logits.to_floats();
  }
}

}  // namespace wgpt::test
