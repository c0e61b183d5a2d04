// The mixed-precision contract on a trained model (docs/precision.md): the shipped character model
// (heads of 64, so the prompt takes the fused attention) on a prompt long enough for the
// tensor-core products, in both precisions: logits close, the same greedy continuation. On a
// device without tensor cores both precisions run the same kernels, and the logits are equal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_support.h"
#include "wgpt/decoder.h"
#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::test {
namespace {

constexpr char kPrompt[] =
    "The jury further said in term-end presentments that the City Executive Committee, which had "
    "over-all charge of the election, deserves the praise and thanks of the City of Atlanta for "
    "the manner in which the election was conducted.";

struct Outputs {
  std::vector<float> logits;        // every prompt position's
  std::vector<uint32_t> continued;  // greedy tokens after the prompt
};

Outputs run(model::Model& model, ops::Precision precision, const std::vector<uint32_t>& prompt,
            size_t steps) {
  model.set_precision(precision);
  model::KvCache cache = model.new_cache();
  Outputs out;
  out.logits = model.forward(prompt, cache).logits.to_floats();
  const size_t vocab = model.config().vocab_size;
  std::vector<float> last(out.logits.end() - static_cast<std::ptrdiff_t>(vocab), out.logits.end());
  for (size_t step = 0; step < steps; ++step) {
    uint32_t next =
        static_cast<uint32_t>(std::max_element(last.begin(), last.end()) - last.begin());
    out.continued.push_back(next);
    last = model.forward(std::span(&next, 1), cache, {.all_logits = false}).logits.to_floats();
  }
  return out;
}

TEST(ModelPrecision, MixedKeepsLogitsCloseAndGreedyTokens) {
  const auto dir = source_dir() / "assets" / "brown-char";
  model::Model model = model::Model::load(dir, gpu_context());
  // Without tensor cores both precisions run the same kernels: a short prompt shows it (llvmpipe
  // takes ~0.3 s per prompt token of this model).
  const bool tensor_cores = gpu_context()->limits().f16_matrix.available();
  const std::string text = tensor_cores ? kPrompt : std::string(kPrompt).substr(0, 32);
  const std::vector<uint32_t> prompt = tokenizer::load_tokenizer(dir)->encode(text);
  const size_t steps = tensor_cores ? 24 : 2;
  ASSERT_LE(prompt.size() + steps + 1, model.config().n_ctx);
  const Outputs f32 = run(model, ops::Precision::f32, prompt, steps);
  const Outputs mixed = run(model, ops::Precision::mixed, prompt, steps);
  ASSERT_EQ(f32.logits.size(), mixed.logits.size());
  float worst = 0.0f;
  for (size_t i = 0; i < f32.logits.size(); ++i) {
    worst = std::max(worst, std::fabs(f32.logits[i] - mixed.logits[i]));
  }
  RecordProperty("max_logit_difference", std::to_string(worst));
  std::printf("%zu prompt tokens: largest logit difference, mixed against f32: %g\n", prompt.size(),
              worst);
  if (tensor_cores) {
    EXPECT_LE(worst, 0.05f);
  } else {
    EXPECT_EQ(worst, 0.0f);
  }
  EXPECT_EQ(mixed.continued, f32.continued);
}

}  // namespace
}  // namespace wgpt::test
