// The GPT-2 forward pass over the ops layer: the same code runs on the CPU and on a GPU context.
#include <optional>

#include "model/fused_block.h"
#include "wgpt/model.h"
#include "wgpt/ops.h"

namespace wgpt::model {
namespace {

// A prompt's pass is submitted in parts, so that the GPU starts while the host records the rest; a
// step of one token at once.
gpu::Submits submits_for(size_t tokens) {
  return tokens > 1 ? gpu::Submits::in_parts : gpu::Submits::once;
}

}  // namespace

KvCache Model::new_cache() const {
  KvCache cache;
  const Shape shape = {config_.n_head, config_.n_ctx, config_.head_dim()};
  for (size_t layer = 0; layer < config_.n_layer; ++layer) {
    // On the GPU only rows [0, length) are ever read, so the pooled buffers need no clearing.
    cache.keys.push_back(context_ ? Tensor::empty_gpu(context_, shape) : Tensor::zeros(shape));
    cache.values.push_back(context_ ? Tensor::empty_gpu(context_, shape) : Tensor::zeros(shape));
  }
  return cache;
}

Tensor Model::run_body(std::span<const uint32_t> ids, KvCache& cache, ForwardOutput* capture,
                       const ForwardOptions& options) const {
  const size_t t = ids.size(), position = cache.length();
  if (t == 0) throw Error("the model needs at least one token");
  if (cache.keys.size() != config_.n_layer) throw Error("the KV cache belongs to another model");
  if (position + t > config_.n_ctx) {
    throw Error(std::to_string(position + t) + " tokens exceed the model's context of " +
                std::to_string(config_.n_ctx));
  }
  check_ids(ids);
  std::optional<gpu::Scope> scope;
  if (context_) scope.emplace(*context_, submits_for(t));

  Tensor x = ops::embedding(upload_u32(ids), weights_.token_embedding, weights_.position_embedding,
                            position);
  if (options.capture_hidden) capture->hidden.push_back(x);

  // Only the last position's logits wanted and nothing captured: the last block needs every row's
  // keys and values, but its attention, projections and MLP only the last row.
  const bool last_row_only = !options.all_logits && !options.capture_attention &&
                             !options.capture_hidden && options.detail_layers == 0;
  for (size_t layer = 0; layer < config_.n_layer; ++layer) {
    const bool detailed = options.capture_attention || layer < options.detail_layers ||
                          !ops::causal_attention_supported(cache.keys[layer]);
    const size_t kept = last_row_only && layer + 1 == config_.n_layer ? 1 : t;
    x = detailed ? run_block(layer, x, cache, position, capture, options)
                 : run_fused_block(layer, x, cache, position, kept);
    // HF reports the last block's output after the final LayerNorm instead (below).
    if (options.capture_hidden && layer + 1 < config_.n_layer) capture->hidden.push_back(x);
  }
  Tensor out =
      ops::layernorm(x, weights_.final_gamma, weights_.final_beta, config_.layer_norm_epsilon);
  if (options.capture_hidden) capture->hidden.push_back(out);
  if (options.detail_layers > 0) capture->detail.push_back({"ln_final.hook_normalized", out});
  cache.length_ += t;
  return out;
}

Tensor Model::packed_body(std::span<const uint32_t> ids, size_t sequences) const {
  if (sequences == 0 || ids.empty() || ids.size() % sequences != 0) {
    throw Error(std::to_string(ids.size()) + " tokens do not split into " +
                std::to_string(sequences) + " sequences of equal length");
  }
  const size_t t = ids.size() / sequences;
  if (t > config_.n_ctx) {
    throw Error("sequences of " + std::to_string(t) + " tokens exceed the model's context of " +
                std::to_string(config_.n_ctx));
  }
  if (!ops::packed_causal_attention_supported(context_.get(), config_.head_dim())) {
    // Heads the kernel does not take: one sequence at a time through the cached path.
    std::vector<Tensor> hidden;
    for (size_t s = 0; s < sequences; ++s) {
      KvCache cache = new_cache();
      hidden.push_back(body(ids.subspan(s * t, t), cache));
    }
    return ops::concat_rows(hidden);
  }
  check_ids(ids);
  std::optional<gpu::Scope> scope;
  if (context_) scope.emplace(*context_, gpu::Submits::in_parts);
  std::vector<uint32_t> positions(ids.size());
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<uint32_t>(i % t);
  Tensor x = ops::embedding(upload_u32(ids), weights_.token_embedding, weights_.position_embedding,
                            upload_u32(positions));
  const float attention_scale = config_.attention_scale();
  for (const LayerWeights& layer : weights_.layers) {
    x = fused_block(layer, config_, precision_, false, x, [&](const Tensor& qkv) {
      return ops::packed_causal_attention(qkv, sequences, config_.n_head, attention_scale);
    });
  }
  return ops::layernorm(x, weights_.final_gamma, weights_.final_beta, config_.layer_norm_epsilon);
}

void Model::check_ids(std::span<const uint32_t> ids) const {
  for (uint32_t id : ids) {
    if (id >= config_.vocab_size) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(config_.vocab_size));
    }
  }
}

Tensor Model::upload_u32(std::span<const uint32_t> values) const {
  Tensor host =
      Tensor::from_u32(std::vector<uint32_t>(values.begin(), values.end()), {values.size()});
  if (!context_) return host;
  Tensor pooled = Tensor::empty_gpu(context_, {values.size()}, DType::u32);
  context_->write(pooled.buffer(), pooled.offset() * sizeof(uint32_t), std::as_bytes(host.u32s()));
  return pooled;
}

Tensor Model::run_fused_block(size_t layer, const Tensor& x, KvCache& cache, size_t position,
                              size_t kept_rows) const {
  const float attention_scale = config_.attention_scale();
  Tensor& keys = cache.keys[layer];
  Tensor& values = cache.values[layer];
  return fused_block(weights_.layers[layer], config_, precision_, false, x, [&](const Tensor& qkv) {
    ops::kv_store(qkv, keys, values, position);
    const size_t first = qkv.dim(0) - kept_rows;
    const Tensor queries = first == 0 ? qkv : qkv.rows(first, kept_rows);
    return ops::causal_attention(queries, keys, values, position + first, attention_scale);
  });
}

Tensor Model::run_block(size_t layer, const Tensor& block_input, KvCache& cache, size_t position,
                        ForwardOutput* capture, const ForwardOptions& options) const {
  // The probe's detail hooks: references to tensors the pass computes anyway, so probing never
  // changes the arithmetic. Names follow TransformerLens (the table in include/wgpt/probe.h).
  auto detail = [&](const char* hook, const Tensor& tensor) {
    if (layer < options.detail_layers) {
      capture->detail.push_back({"blocks." + std::to_string(layer) + "." + hook, tensor});
    }
  };
  const LayerWeights& w = weights_.layers[layer];
  const float eps = config_.layer_norm_epsilon;
  const float attention_scale = config_.attention_scale();
  const size_t t = block_input.dim(0);
  const ops::Precision precision = precision_;
  Tensor x = block_input;
  detail("hook_resid_pre", x);
  Tensor h = ops::layernorm(x, w.ln1_gamma, w.ln1_beta, eps);
  detail("ln1.hook_normalized", h);
  ops::Heads heads = ops::split_heads(
      ops::matmul(h, w.qkv_weight, {.bias = w.qkv_bias, .precision = precision}), config_.n_head);
  detail("attn.hook_q", heads.q);
  detail("attn.hook_k", heads.k);
  detail("attn.hook_v", heads.v);
  ops::kv_append(cache.keys[layer], heads.k, position);
  ops::kv_append(cache.values[layer], heads.v, position);
  Tensor scores = ops::attention_scores(heads.q, cache.keys[layer], position + t, attention_scale);
  detail("attn.hook_attn_scores", scores);
  Tensor probs = ops::causal_softmax(scores, position);
  if (options.capture_attention) capture->attention.push_back(probs);
  Tensor z = ops::attention_values(probs, cache.values[layer]);
  detail("attn.hook_z", z);
  Tensor attention_out = ops::matmul(ops::merge_heads(z), w.attn_proj_weight,
                                     {.bias = w.attn_proj_bias, .precision = precision});
  detail("hook_attn_out", attention_out);
  x = ops::add(x, attention_out);
  detail("hook_resid_mid", x);
  Tensor h2 = ops::layernorm(x, w.ln2_gamma, w.ln2_beta, eps);
  detail("ln2.hook_normalized", h2);
  Tensor hidden =
      ops::gelu(ops::matmul(h2, w.fc_weight, {.bias = w.fc_bias, .precision = precision}));
  detail("mlp.hook_post", hidden);
  Tensor mlp_out =
      ops::matmul(hidden, w.mlp_proj_weight, {.bias = w.mlp_proj_bias, .precision = precision});
  detail("hook_mlp_out", mlp_out);
  x = ops::add(x, mlp_out);
  detail("hook_resid_post", x);
  return x;
}

Tensor Model::body(std::span<const uint32_t> ids, KvCache& cache) const {
  return run_body(ids, cache, nullptr, {});
}

Tensor Model::head(const Tensor& hidden) const {
  return ops::matmul_transposed_chunks(hidden, weights_.token_embedding);
}

ForwardOutput Model::forward(std::span<const uint32_t> ids, KvCache& cache,
                             const ForwardOptions& options) const {
  ForwardOutput output;
  std::optional<gpu::Scope> scope;  // body and head in one recording
  if (context_) scope.emplace(*context_, submits_for(ids.size()));
  Tensor hidden = run_body(ids, cache, &output, options);
  output.logits = head(options.all_logits ? hidden : hidden.rows(hidden.dim(0) - 1, 1));
  return output;
}

}  // namespace wgpt::model
