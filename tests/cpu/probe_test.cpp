// The probe on the CPU reference: attention, detail, generation, and the step trace's helpers.
#include <fstream>
#include <sstream>

#include "cpu/probe_checks.h"

namespace wgpt::test::probe {
namespace {

TEST(ProbeCpu, PrefillAttentionEqualsGoldens) {
  expect_prefill_matches_golden(nullptr, "gpt2-tiny");
  expect_prefill_matches_golden(nullptr, "char-tiny");
}

TEST(ProbeCpu, DecodeAttentionEqualsFullRecompute) { expect_decode_matches_recompute(nullptr); }

TEST(ProbeCpu, DetailEqualsForwardCapturesAndCpuOps) { expect_detail_consistent(nullptr); }

TEST(ProbeCpu, DecodeDetailEqualsFullRecompute) { expect_decode_detail_matches_recompute(nullptr); }

TEST(ProbeCpu, TextWithTheProbeEqualsTextWithout) { expect_probe_keeps_the_text(nullptr); }

TEST(ProbeCpu, AsyncGenerationEqualsSync) { expect_async_matches_sync(nullptr); }

TEST(ProbeCpu, DetailLayersAndTopNAreClamped) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  model::KvCache cache = model.new_cache();
  const std::vector<uint32_t> ids = {1, 2, 3};
  const model::StepTrace trace =
      model::trace_step(model, ids, cache, {.detail_layers = 99, .top_n = 1000});
  EXPECT_EQ(trace.top.size(), model.config().vocab_size);
  EXPECT_NE(trace.find("blocks.1.hook_resid_post"), nullptr);
  EXPECT_EQ(trace.find("blocks.2.hook_resid_pre"), nullptr);
  // The whole distribution: ranked, and summing to 1.
  double total = 0;
  for (size_t i = 0; i < trace.top.size(); ++i) {
    total += trace.top[i].probability;
    if (i > 0) {
      EXPECT_GE(trace.top[i - 1].probability, trace.top[i].probability);
    }
  }
  EXPECT_NEAR(total, 1.0, 1e-5);
  for (size_t h = 0; h < model.config().n_head; ++h) {
    const auto row = trace.newest_attention(1, h);
    double sum = 0;
    for (float p : row) sum += p;
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  EXPECT_THROW(trace.at("blocks.0.attn.hook_nothing"), Error);
  EXPECT_THROW(trace.newest_attention(0, 99), Error);
}

TEST(ProbeCpu, TopTokensAreTheSoftmaxLeadersWithTiesByLowerId) {
  const std::vector<float> logits = {1.0f, 3.0f, 2.0f, 3.0f};
  const auto top = model::top_tokens(logits, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].id, 1u);
  EXPECT_EQ(top[1].id, 3u);
  EXPECT_EQ(top[2].id, 2u);
  const double total = std::exp(1.0) + 2 * std::exp(3.0) + std::exp(2.0);
  EXPECT_NEAR(top[0].probability, std::exp(3.0) / total, 1e-7);
  EXPECT_NEAR(top[2].probability, std::exp(2.0) / total, 1e-7);
  EXPECT_TRUE(model::top_tokens(logits, 0).empty());
}

TEST(ProbeCpu, BadInputIsAnErrorAndLeavesTheCacheAlone) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  model::KvCache cache = model.new_cache();
  const std::vector<uint32_t> bad = {1, 65};
  EXPECT_THROW(model::trace_step(model, bad, cache, {}), Error);
  std::optional<Result<model::StepTrace>> async;
  model::trace_step_async(model, bad, cache, {}, [&](Result<model::StepTrace> result) {
    async.emplace(std::move(result));
  });
  ASSERT_TRUE(async.has_value());
  EXPECT_FALSE(async->ok());
  EXPECT_EQ(cache.length(), 0u);
}

// Every name a full trace captures is in the one documented table, in the header and the docs.
TEST(ProbeCpu, EveryCaptureNameIsDocumented) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), nullptr);
  model::KvCache cache = model.new_cache();
  const std::vector<uint32_t> ids = {1, 2};
  const model::StepTrace trace = model::trace_step(model, ids, cache, {.detail_layers = 2});
  EXPECT_EQ(trace.captures.size(), 2u + 2u * 13u + 1u);  // patterns, 13 per block, ln_final
  for (const char* file : {"include/wgpt/probe.h", "docs/probe.md"}) {
    std::ifstream in(source_dir() / file);
    ASSERT_TRUE(in) << file;
    std::stringstream text;
    text << in.rdbuf();
    for (const model::Capture& capture : trace.captures) {
      std::string documented = capture.name;  // blocks.1.x → blocks.L.x
      if (documented.rfind("blocks.", 0) == 0) {
        documented = "blocks.L" + documented.substr(documented.find('.', 7));
      }
      EXPECT_NE(text.str().find("`" + documented + "`"), std::string::npos)
          << capture.name << " is not in " << file;
    }
  }
}

}  // namespace
}  // namespace wgpt::test::probe
