#pragma once
// model::surprisal_async, shared by the CPU and GPU test binaries (a null context runs on the
// CPU): the GPU's windows, recorded back to back and reduced on the device, give the CPU
// reference's scores; progress and errors arrive through the callbacks.

#include <gtest/gtest.h>

#include <optional>

#include "test_support.h"
#include "wgpt/probe.h"

namespace wgpt::test {

// Runs surprisal_async to completion: on the CPU it has finished on return, on the GPU poll()
// drives it.
inline Result<model::Surprisal> surprisal_to_completion(const model::Model& model,
                                                        std::vector<uint32_t> ids,
                                                        model::SurprisalOptions options) {
  std::optional<Result<model::Surprisal>> outcome;
  model::surprisal_async(
      model, std::move(ids), std::move(options),
      [&](Result<model::Surprisal> result) { outcome.emplace(std::move(result)); });
  while (!outcome) {
    EXPECT_TRUE(model.on_gpu()) << "on the CPU surprisal_async finishes before it returns";
    if (!model.on_gpu()) break;
    model.context()->poll();
  }
  return std::move(*outcome);
}

// A text of four windows scores as the CPU reference scores it, every window's progress reported
// in order; on the GPU each pass is one submit: the three windows of 64 tokens run as one, the
// last (54 tokens) alone.
inline void expect_windows_equal_the_cpu_reference(std::shared_ptr<gpu::Context> context) {
  const auto path = source_dir() / "tests/fixtures/hf/char-tiny";
  const auto reference = model::Model::load(path);
  const auto model = model::Model::load(path, context);
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < 150; ++i) ids.push_back(static_cast<uint32_t>((i * 17 + 5) % 65));
  const model::Surprisal expected = model::surprisal(reference, ids, {.top_k = 4, .stride = 32});
  std::vector<size_t> progress;
  // One submit per pass, not in parts: the submits count the passes.
  if (context) context->set_dispatches_per_submit(0);
  const gpu::Stats before = context ? context->stats() : gpu::Stats{};
  Result<model::Surprisal> scored = surprisal_to_completion(
      model, ids, {.top_k = 4, .stride = 32, .on_window = [&](size_t done, size_t total) {
                     EXPECT_EQ(total, 4u);
                     progress.push_back(done);
                   }});
  // The shared context's default back before any assertion can end the test.
  const uint64_t submits = context ? context->stats().submits - before.submits : 0;
  if (context) context->set_dispatches_per_submit(gpu::Context::kDefaultDispatchesPerSubmit);
  ASSERT_TRUE(scored.ok()) << scored.error().what();
  if (context) {
    EXPECT_EQ(submits, 2u) << "one per pass";
  }
  EXPECT_EQ(progress, (std::vector<size_t>{1, 2, 3, 4}));
  const model::Surprisal& actual = scored.value();
  EXPECT_EQ(actual.windows, 4u);
  ASSERT_EQ(actual.tokens.size(), ids.size());
  EXPECT_FALSE(actual.tokens[0].bits.has_value());
  for (size_t i = 1; i < ids.size(); ++i) {
    ASSERT_TRUE(actual.tokens[i].bits.has_value()) << i;
    EXPECT_NEAR(*actual.tokens[i].bits, *expected.tokens[i].bits, 1e-4) << "token " << i;
    ASSERT_EQ(actual.tokens[i].alternatives.size(), 4u);
    for (size_t k = 0; k < 4; ++k) {
      EXPECT_EQ(actual.tokens[i].alternatives[k].id, expected.tokens[i].alternatives[k].id);
      EXPECT_NEAR(actual.tokens[i].alternatives[k].probability,
                  expected.tokens[i].alternatives[k].probability, 1e-5);
    }
  }
  EXPECT_NEAR(actual.mean_bits, expected.mean_bits, 1e-5);
  EXPECT_NEAR(actual.perplexity, expected.perplexity, 1e-4);
}

inline void expect_bad_input_reported(std::shared_ptr<gpu::Context> context) {
  const auto model =
      model::Model::load(source_dir() / "tests/fixtures/hf/char-tiny", std::move(context));
  auto message = [&](std::vector<uint32_t> ids) {
    Result<model::Surprisal> result = surprisal_to_completion(model, std::move(ids), {.top_k = 3});
    return result.ok() ? std::string("no error") : std::string(result.error().what());
  };
  EXPECT_NE(message({7}).find("at least two tokens"), std::string::npos);
  EXPECT_NE(message({1, 99}).find("outside the vocabulary"), std::string::npos);
  EXPECT_EQ(message(std::vector<uint32_t>(65, 1)), "no error") << "longer texts take windows";
}

}  // namespace wgpt::test
