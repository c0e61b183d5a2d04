#pragma once
// Checks of the probe shared by the CPU and the GPU test binaries (a null context runs on the
// CPU): attention against the HF goldens and against full recomputes, the detail captures against
// Model::forward's captures and against the CPU ops applied to the captures before them, and
// generation with the probe against generation without it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "test_support.h"
#include "wgpt/generate.h"
#include "wgpt/ops.h"
#include "wgpt/probe.h"

namespace wgpt::test::probe {

inline std::filesystem::path hf_fixture(const char* name) {
  return source_dir() / "tests" / "fixtures" / "hf" / name;
}

inline std::vector<uint32_t> golden_ids(const io::TensorFile& golden) {
  std::vector<uint32_t> ids;
  for (int64_t id : golden.at("input_ids").ints()) ids.push_back(static_cast<uint32_t>(id));
  return ids;
}

// Max |actual − expected| ≤ tolerance, naming the worst element.
inline void expect_close(std::span<const float> actual, std::span<const float> expected,
                         float tolerance, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what << ": sizes differ";
  float worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    const float diff = std::fabs(actual[i] - expected[i]);
    if (!(diff <= worst)) {  // NaN included
      worst = std::isnan(diff) ? INFINITY : diff;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, tolerance) << what << ": max |diff| " << worst << " at element " << worst_at;
}

inline const model::Capture& capture(const model::StepTrace& trace, size_t layer,
                                     const char* hook) {
  return trace.at(model::hook_name(layer, hook));
}

// The prefill's patterns equal HF's attentions; masked entries are exactly 0; the logits equal
// the golden's last row.
inline void expect_prefill_matches_golden(std::shared_ptr<gpu::Context> context,
                                          const char* fixture) {
  const auto model = model::Model::load(hf_fixture(fixture), context);
  const io::TensorFile golden = io::load_safetensors(hf_fixture(fixture) / "golden.safetensors");
  const std::vector<uint32_t> ids = golden_ids(golden);
  const size_t t = ids.size(), n_head = model.config().n_head, vocab = model.config().vocab_size;
  model::KvCache cache = model.new_cache();
  const model::StepTrace trace = model::trace_step(model, ids, cache, {.top_n = 3});
  EXPECT_EQ(trace.q_len, t);
  EXPECT_EQ(trace.kv_len, t);
  for (size_t layer = 0; layer < model.config().n_layer; ++layer) {
    const model::Capture& pattern = capture(trace, layer, "attn.hook_pattern");
    EXPECT_EQ(pattern.shape, (Shape{n_head, t, t}));
    const std::string name = "attn." + std::to_string(layer);
    expect_close(pattern.values, golden.at(name).floats(), 1e-4f, name);
    for (size_t h = 0; h < n_head; ++h) {
      for (size_t q = 0; q < t; ++q) {
        for (size_t k = q + 1; k < t; ++k) {
          ASSERT_EQ(pattern.values[(h * t + q) * t + k], 0.0f) << name << " masked entry";
        }
      }
    }
  }
  const auto all_logits = golden.at("logits").floats();
  expect_close(trace.logits, all_logits.subspan((t - 1) * vocab, vocab), 1e-3f, "last logits");
}

// Each decode step's newest attention row equals the last row of a full recompute.
inline void expect_decode_matches_recompute(std::shared_ptr<gpu::Context> context) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), context);
  const size_t n_layer = model.config().n_layer, n_head = model.config().n_head;
  std::vector<uint32_t> sequence = {20, 53, 1, 47, 58};
  model::KvCache cache = model.new_cache();
  model::StepTrace trace = model::trace_step(model, sequence, cache, {});
  for (size_t step = 1; step <= 8; ++step) {
    const uint32_t next = static_cast<uint32_t>(
        std::max_element(trace.logits.begin(), trace.logits.end()) - trace.logits.begin());
    sequence.push_back(next);
    trace = model::trace_step(model, std::span(&next, 1), cache, {});
    const size_t kv = sequence.size();
    ASSERT_EQ(trace.q_len, 1u);
    ASSERT_EQ(trace.kv_len, kv);
    model::KvCache fresh = model.new_cache();
    const model::ForwardOutput full = model.forward(sequence, fresh, {.capture_attention = true});
    for (size_t layer = 0; layer < n_layer; ++layer) {
      EXPECT_EQ(capture(trace, layer, "attn.hook_pattern").shape, (Shape{n_head, 1, kv}));
      const std::vector<float> recomputed = full.attention[layer].to_floats();
      for (size_t h = 0; h < n_head; ++h) {
        const std::span<const float> last_row(recomputed.data() + ((h + 1) * kv - 1) * kv, kv);
        expect_close(trace.newest_attention(layer, h), last_row, 1e-5f,
                     "step " + std::to_string(step) + " layer " + std::to_string(layer) + " head " +
                         std::to_string(h));
      }
    }
  }
}

// Recomputes every detail capture of a prefill from the captures before it with the CPU ops, and
// compares the captures Model::forward also reports (attention, hidden states) with those.
inline void expect_detail_consistent(std::shared_ptr<gpu::Context> context) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), context);
  const model::Config& config = model.config();
  const std::vector<uint32_t> ids = {20, 53, 1, 47, 58, 1, 46};
  model::KvCache cache = model.new_cache();
  const model::StepTrace trace =
      model::trace_step(model, ids, cache, {.detail_layers = config.n_layer});
  model::KvCache fresh = model.new_cache();
  const model::ForwardOutput forward =
      model.forward(ids, fresh, {.capture_attention = true, .capture_hidden = true});

  auto host = [](const model::Capture& c) { return Tensor::from_floats(c.values, c.shape); };
  auto get = [&](size_t layer, const char* hook) { return host(capture(trace, layer, hook)); };
  auto check = [&](const Tensor& expected, size_t layer, const char* hook) {
    expect_close(capture(trace, layer, hook).values, expected.to_floats(), 1e-4f,
                 model::hook_name(layer, hook));
  };
  // The probe and Model::forward run the same arithmetic: equal to the bit.
  EXPECT_EQ(capture(trace, 0, "hook_resid_pre").values, forward.hidden[0].to_floats());
  const float eps = config.layer_norm_epsilon;
  const size_t t = ids.size();
  for (size_t layer = 0; layer < config.n_layer; ++layer) {
    const model::LayerWeights& weights = model.weights().layers[layer];
    auto w = [](const Tensor& weight) { return weight.to_cpu(); };  // the CPU ops' inputs
    EXPECT_EQ(capture(trace, layer, "attn.hook_pattern").values,
              forward.attention[layer].to_floats());
    if (layer + 1 < config.n_layer) {
      EXPECT_EQ(capture(trace, layer, "hook_resid_post").values,
                forward.hidden[layer + 1].to_floats());
      EXPECT_EQ(capture(trace, layer + 1, "hook_resid_pre").values,
                capture(trace, layer, "hook_resid_post").values);
    }
    const Tensor resid_pre = get(layer, "hook_resid_pre");
    check(ops::layernorm(resid_pre, w(weights.ln1_gamma), w(weights.ln1_beta), eps), layer,
          "ln1.hook_normalized");
    const ops::Heads heads =
        ops::split_heads(ops::matmul(get(layer, "ln1.hook_normalized"), w(weights.qkv_weight),
                                     {.bias = w(weights.qkv_bias)}),
                         config.n_head);
    check(heads.q, layer, "attn.hook_q");
    check(heads.k, layer, "attn.hook_k");
    check(heads.v, layer, "attn.hook_v");
    // In a prefill the captured keys and values are the whole cache.
    const float scale = 1.0f / std::sqrt(static_cast<float>(config.head_dim()));
    check(ops::attention_scores(get(layer, "attn.hook_q"), get(layer, "attn.hook_k"), t, scale),
          layer, "attn.hook_attn_scores");
    check(ops::causal_softmax(get(layer, "attn.hook_attn_scores"), 0), layer, "attn.hook_pattern");
    check(ops::attention_values(get(layer, "attn.hook_pattern"), get(layer, "attn.hook_v")), layer,
          "attn.hook_z");
    check(ops::matmul(ops::merge_heads(get(layer, "attn.hook_z")), w(weights.attn_proj_weight),
                      {.bias = w(weights.attn_proj_bias)}),
          layer, "hook_attn_out");
    check(ops::add(resid_pre, get(layer, "hook_attn_out")), layer, "hook_resid_mid");
    check(ops::layernorm(get(layer, "hook_resid_mid"), w(weights.ln2_gamma), w(weights.ln2_beta),
                         eps),
          layer, "ln2.hook_normalized");
    check(ops::gelu(ops::matmul(get(layer, "ln2.hook_normalized"), w(weights.fc_weight),
                                {.bias = w(weights.fc_bias)})),
          layer, "mlp.hook_post");
    check(ops::matmul(get(layer, "mlp.hook_post"), w(weights.mlp_proj_weight),
                      {.bias = w(weights.mlp_proj_bias)}),
          layer, "hook_mlp_out");
    check(ops::add(get(layer, "hook_resid_mid"), get(layer, "hook_mlp_out")), layer,
          "hook_resid_post");
  }
  const model::Capture& final_hidden = trace.at("ln_final.hook_normalized");
  EXPECT_EQ(final_hidden.values, forward.hidden.back().to_floats());
  const Tensor last = get(config.n_layer - 1, "hook_resid_post");
  expect_close(final_hidden.values,
               ops::layernorm(last, model.weights().final_gamma.to_cpu(),
                              model.weights().final_beta.to_cpu(), eps)
                   .to_floats(),
               1e-4f, "ln_final.hook_normalized");
}

// A decode step's detail covers only the new position: q/k/v and the scores equal the last rows
// of a full recompute's.
inline void expect_decode_detail_matches_recompute(std::shared_ptr<gpu::Context> context) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), context);
  const model::Config& config = model.config();
  const std::vector<uint32_t> sequence = {20, 53, 1, 47, 58, 1};
  const size_t kv = sequence.size(), hd = config.head_dim(), n_head = config.n_head;
  model::KvCache cache = model.new_cache();
  model::trace_step(model, std::span(sequence).first(kv - 1), cache, {});
  const model::StepTrace step =
      model::trace_step(model, std::span(sequence).last(1), cache, {.detail_layers = 1});
  model::KvCache fresh = model.new_cache();
  const model::StepTrace full = model::trace_step(model, sequence, fresh, {.detail_layers = 1});
  EXPECT_EQ(step.find(model::hook_name(1, "attn.hook_q")), nullptr) << "only block 0 has detail";
  for (const char* hook : {"attn.hook_q", "attn.hook_k", "attn.hook_v", "attn.hook_z"}) {
    const model::Capture& one = capture(step, 0, hook);
    ASSERT_EQ(one.shape, (Shape{n_head, 1, hd})) << hook;
    const std::vector<float>& all = capture(full, 0, hook).values;
    for (size_t h = 0; h < n_head; ++h) {
      expect_close(std::span(one.values).subspan(h * hd, hd),
                   std::span(all).subspan((h * kv + kv - 1) * hd, hd), 1e-5f, hook);
    }
  }
  const model::Capture& scores = capture(step, 0, "attn.hook_attn_scores");
  ASSERT_EQ(scores.shape, (Shape{n_head, 1, kv}));
  const std::vector<float>& all_scores = capture(full, 0, "attn.hook_attn_scores").values;
  for (size_t h = 0; h < n_head; ++h) {
    expect_close(std::span(scores.values).subspan(h * kv, kv),
                 std::span(all_scores).subspan((h * kv + kv - 1) * kv, kv), 1e-4f, "scores");
  }
  EXPECT_EQ(capture(step, 0, "mlp.hook_post").shape, (Shape{1, 4 * config.n_embd}));
  EXPECT_EQ(step.at("ln_final.hook_normalized").shape, (Shape{1, config.n_embd}));
}

// generate_traced gives exactly generate()'s tokens and text, one trace per step, each reporting
// the token the run went on with.
inline void expect_probe_keeps_the_text(std::shared_ptr<gpu::Context> context) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), context);
  const auto tokenizer = tokenizer::load_tokenizer(hf_fixture("char-tiny"));
  const std::vector<uint32_t> prompt = tokenizer->encode("ROMEO:");
  // Sampled and greedy (each chosen on the GPU, two steps in flight), without detail (the
  // fused decode path on the GPU) and with it (the general pass).
  const generate::SamplingOptions sampled{.temperature = 0.9f, .top_k = 20, .seed = 11};
  const generate::SamplingOptions greedy{.greedy = true};
  for (const auto& [sampling, detail] :
       {std::pair{sampled, size_t{0}}, std::pair{greedy, size_t{0}},
        std::pair{sampled, size_t{1}}}) {
    SCOPED_TRACE(std::string(sampling.greedy ? "greedy" : "sampled") + ", detail_layers " +
                 std::to_string(detail));
    generate::GenerateOptions options;
    options.max_new_tokens = 20;
    options.sampling = sampling;
    const generate::GenerateResult plain = generate::generate(model, *tokenizer, prompt, options);

    std::vector<uint32_t> reported;
    std::vector<size_t> kv_lens;
    const generate::GenerateResult traced = generate::generate_traced(
        model, *tokenizer, prompt, options, {.detail_layers = detail, .top_n = 5},
        [&](size_t step, const model::StepTrace& trace, uint32_t token) {
          EXPECT_EQ(step, reported.size());
          EXPECT_EQ(trace.top.size(), 5u);
          EXPECT_GE(trace.captures.size(), model.config().n_layer);
          reported.push_back(token);
          kv_lens.push_back(trace.kv_len);
          return true;
        });
    EXPECT_EQ(traced.ids, plain.ids);
    EXPECT_EQ(traced.text, plain.text);
    EXPECT_EQ(plain.ids.size(), 20u);
    EXPECT_EQ(reported, plain.ids);
    ASSERT_EQ(kv_lens.size(), 20u);
    for (size_t step = 0; step < kv_lens.size(); ++step)
      EXPECT_EQ(kv_lens[step], prompt.size() + step);
  }
}

// The asynchronous form gives the synchronous form's result and traces.
inline void expect_async_matches_sync(std::shared_ptr<gpu::Context> context) {
  const auto model = model::Model::load(hf_fixture("char-tiny"), context);
  const auto tokenizer = tokenizer::load_tokenizer(hf_fixture("char-tiny"));
  const std::vector<uint32_t> prompt = tokenizer->encode("JULIET:");
  generate::GenerateOptions options;
  options.max_new_tokens = 6;
  options.sampling = {.seed = 3};
  std::vector<std::vector<float>> sync_rows, async_rows;
  auto recorder = [](std::vector<std::vector<float>>& rows) {
    return [&rows](size_t, const model::StepTrace& trace, uint32_t) {
      rows.push_back(trace.at("blocks.1.attn.hook_pattern").values);
      return true;
    };
  };
  const generate::GenerateResult sync =
      generate::generate_traced(model, *tokenizer, prompt, options, {}, recorder(sync_rows));
  std::optional<Result<generate::GenerateResult>> async;
  std::string streamed;
  generate::generate_traced_async(
      model, *tokenizer, prompt, options, {}, recorder(async_rows),
      [&](std::string_view text) {
        streamed += text;
        return true;
      },
      [&](Result<generate::GenerateResult> result) { async.emplace(std::move(result)); });
  while (!async) {
    ASSERT_TRUE(context) << "on the CPU the run finishes before generate_traced_async returns";
    context->poll();
  }
  ASSERT_TRUE(async->ok()) << async->error().what();
  EXPECT_EQ(async->value().ids, sync.ids);
  EXPECT_EQ(async->value().text, sync.text);
  EXPECT_EQ(streamed, sync.text);
  EXPECT_EQ(async_rows, sync_rows);
}

// Surprisal equals −log2 softmax of the golden logits at every position, and its mean the golden
// loss in bits. The model's logits are within 1e-3 of the goldens (model_golden_checks.h), which
// moves a log-softmax by at most 2e-3 nats: 2.9e-3 bits.
inline void expect_surprisal_matches_golden(std::shared_ptr<gpu::Context> context,
                                            const char* fixture) {
  const auto model = model::Model::load(hf_fixture(fixture), context);
  const io::TensorFile golden = io::load_safetensors(hf_fixture(fixture) / "golden.safetensors");
  const std::vector<uint32_t> ids = golden_ids(golden);
  const size_t vocab = model.config().vocab_size;
  const model::Surprisal scored = model::surprisal(model, ids, {.top_k = 3});
  ASSERT_EQ(scored.tokens.size(), ids.size());
  EXPECT_EQ(scored.windows, 1u);
  EXPECT_FALSE(scored.tokens[0].bits.has_value());
  const auto logits = golden.at("logits").floats();
  for (size_t i = 1; i < ids.size(); ++i) {
    const auto row = logits.subspan((i - 1) * vocab, vocab);
    const double top = *std::max_element(row.begin(), row.end());
    double total = 0;
    for (float logit : row) total += std::exp(static_cast<double>(logit) - top);
    const double expected = -(row[ids[i]] - top - std::log(total)) / std::log(2.0);
    ASSERT_TRUE(scored.tokens[i].bits.has_value());
    EXPECT_NEAR(*scored.tokens[i].bits, expected, 2.9e-3) << "token " << i;
    ASSERT_EQ(scored.tokens[i].alternatives.size(), 3u);
    EXPECT_EQ(scored.tokens[i].alternatives[0].id,
              static_cast<uint32_t>(std::max_element(row.begin(), row.end()) - row.begin()));
  }
  // The golden loss is the mean cross-entropy in nats, within 1e-4 of the model's.
  EXPECT_NEAR(scored.mean_bits, golden.at("loss").floats()[0] / std::log(2.0),
              1e-4 / std::log(2.0));
  EXPECT_NEAR(scored.perplexity, std::exp2(scored.mean_bits), 1e-9);
}

}  // namespace wgpt::test::probe
