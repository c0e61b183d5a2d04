#include "council_checks.h"

#include <cmath>
#include <string>

#include "test_support.h"
#include "wgpt/io.h"

namespace wgpt::test {

std::optional<std::filesystem::path> council_manifest() {
  const auto shared = shared_fixtures();
  if (!shared) return std::nullopt;
  return *shared / "forge-council" / "manifest.json";
}

council::Loaded char_tiny_council(std::shared_ptr<gpu::Context> context) {
  const std::filesystem::path base = hf_fixture("char-tiny");
  const model::Config config = model::Config::load(base);
  const io::TensorFile tensors = io::load_tensors(base / "model.safetensors");
  std::vector<council::Expert> experts;
  for (int k = 0; k <= 3; ++k) {
    io::TensorFile scaled;
    for (const io::TensorData& t : tensors.tensors) {
      const bool table =
          t.name().find("wte") != std::string::npos || t.name().find("wpe") != std::string::npos;
      if (k == 0 || table || t.is_integer()) {
        scaled.tensors.push_back(t);
        continue;
      }
      std::vector<float> values(t.floats().begin(), t.floats().end());
      for (float& v : values) v *= 1.0f + static_cast<float>(k) / 4.0f;
      scaled.tensors.push_back(io::TensorData::from_floats(t.name(), t.shape(), std::move(values)));
    }
    experts.push_back(
        {"char-tiny " + std::to_string(k), model::Model::from_tensors(config, scaled, context)});
  }
  return {std::make_unique<council::Council>(std::move(experts)), tokenizer::load_tokenizer(base)};
}

ReferenceStep reference_step(const std::vector<council::Expert>& experts,
                             std::span<const uint32_t> sequence, float beta) {
  ReferenceStep step;
  std::vector<std::vector<float>> hidden;
  for (const council::Expert& expert : experts) {
    model::KvCache cache = expert.model.new_cache();
    const model::ForwardOutput out =
        expert.model.forward(sequence, cache, {.all_logits = false, .capture_hidden = true});
    const std::vector<float> logits = out.logits.to_floats();
    const std::vector<float> last = out.hidden.back().to_floats();
    hidden.emplace_back(last.end() - static_cast<ptrdiff_t>(expert.model.config().n_embd),
                        last.end());
    double largest = logits[0], total = 0;
    for (float logit : logits) largest = std::max<double>(largest, logit);
    for (float logit : logits) total += std::exp(logit - largest);
    double entropy = 0;
    for (float logit : logits) {
      const double p = std::exp(logit - largest) / total;
      if (p > 0) entropy -= p * std::log(p);
    }
    step.entropy.push_back(entropy);
  }
  double total = 0;
  for (double h : step.entropy) total += std::exp(-beta * h);
  for (double h : step.entropy) step.weights.push_back(std::exp(-beta * h) / total);
  const size_t width = hidden.front().size();
  step.hidden.assign(width, 0.0);
  for (size_t i = 0; i < experts.size(); ++i) {
    for (size_t c = 0; c < width; ++c) step.hidden[c] += step.weights[i] * hidden[i][c];
  }
  const std::vector<float> table =
      experts.front().model.weights().token_embedding.front().to_floats();
  const size_t vocab = experts.front().model.config().vocab_size;
  for (size_t v = 0; v < vocab; ++v) {
    double dot = 0;
    for (size_t c = 0; c < width; ++c) dot += table[v * width + c] * step.hidden[c];
    step.logits.push_back(dot);
  }
  return step;
}

}  // namespace wgpt::test
