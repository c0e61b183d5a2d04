#pragma once
// The probe: what the model computed at one step — the attention it actually used in every layer,
// on request the per-block detail, and the most likely next tokens — read back in ONE batched
// readback per step (one submit and one fence wait on the GPU). Every capture is a reference to a
// tensor the step computes anyway, so the arithmetic, and the text generated, are the same with
// the probe on or off. Also here: teacher-forced surprisal (`wgpt score`).
//
// Capture names follow TransformerLens where they map. L is the block, D = detail_layers, q the
// positions the step runs (the prompt's length at the prefill, then 1), kv the cache's length after
// the step, H heads of hd values, C = n_embd. No batch dimension.
//
// clang-format off
// | name                             | shape      | when  | what                                 |
// | -------------------------------- | ---------- | ----- | ------------------------------------ |
// | `blocks.L.attn.hook_pattern`     | [H, q, kv] | all   | probabilities used; masked = 0       |
// | `blocks.L.hook_resid_pre`        | [q, C]     | L < D | block input (L = 0: embedding¹)      |
// | `blocks.L.ln1.hook_normalized`   | [q, C]     | L < D | first LayerNorm's output             |
// | `blocks.L.attn.hook_q`           | [H, q, hd] | L < D | queries of the new positions²        |
// | `blocks.L.attn.hook_k`           | [H, q, hd] | L < D | keys of the new positions²           |
// | `blocks.L.attn.hook_v`           | [H, q, hd] | L < D | values of the new positions²         |
// | `blocks.L.attn.hook_attn_scores` | [H, q, kv] | L < D | q·kᵀ/√hd before the mask³            |
// | `blocks.L.attn.hook_z`           | [H, q, hd] | L < D | each head's pattern · v²             |
// | `blocks.L.hook_attn_out`         | [q, C]     | L < D | attention after its projection       |
// | `blocks.L.hook_resid_mid`        | [q, C]     | L < D | residual after the attention half    |
// | `blocks.L.ln2.hook_normalized`   | [q, C]     | L < D | second LayerNorm's output            |
// | `blocks.L.mlp.hook_post`         | [q, 4C]    | L < D | MLP hidden after GELU                |
// | `blocks.L.hook_mlp_out`          | [q, C]     | L < D | MLP output after its projection      |
// | `blocks.L.hook_resid_post`       | [q, C]     | L < D | block output: residual after the MLP |
// | `ln_final.hook_normalized`       | [q, C]     | D > 0 | final hidden state, after ln_f       |
// | `logits`                         | [vocab]    | all   | the newest position's logits         |
// clang-format on
// ¹ token + position: TransformerLens's `hook_embed` + `hook_pos_embed`.
// ² head-major: TransformerLens has [q, H, hd]; k and v of older positions are in the cache.
// ³ masked entries hold the real products (TransformerLens: −inf).
//
// docs/probe.md holds the same table with examples.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/model.h"

namespace wgpt::model {

struct ProbeOptions {
  size_t detail_layers = 0;  // per-block detail for blocks [0, detail_layers); clamped to n_layer
  size_t top_n = 0;          // most likely next tokens to report; clamped to the vocabulary
};

// One captured tensor, on the host.
struct Capture {
  std::string name;
  Shape shape;
  std::vector<float> values;
};

struct TopToken {
  uint32_t id = 0;
  float probability = 0;
};

// Everything one step captured.
struct StepTrace {
  size_t q_len = 0;   // positions the step ran
  size_t kv_len = 0;  // the cache's length after the step
  size_t n_head = 0;
  // Every block's pattern, then the detail in the order the pass computes it.
  std::vector<Capture> captures;
  std::vector<float> logits;  // the newest position's logits
  // The top_n most likely next tokens under softmax(logits) over the whole vocabulary (no
  // temperature or truncation), most likely first, ties by lower id.
  std::vector<TopToken> top;

  const Capture* find(std::string_view name) const;
  // Throws wgpt::Error naming a capture this trace lacks.
  const Capture& at(std::string_view name) const;
  // The newest position's attention row of one block and head: kv_len probabilities.
  std::span<const float> newest_attention(size_t layer, size_t head) const;
};

// "blocks.L.<hook>", e.g. hook_name(3, "attn.hook_pattern").
std::string hook_name(size_t layer, std::string_view hook);

// Runs `ids` at the cache's next positions (as Model::forward) and returns what the step captured.
// Throws as Model::forward does on bad input.
StepTrace trace_step(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                     const ProbeOptions& options);
// The same, delivering the trace (or the error) to `done`: on the GPU from a later
// gpu::Context::poll() natively or from the browser's event loop; on the CPU before returning.
void trace_step_async(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                      const ProbeOptions& options, std::function<void(Result<StepTrace>)> done);

// The n most likely tokens under softmax(logits), most likely first, ties by lower id.
std::vector<TopToken> top_tokens(std::span<const float> logits, size_t n);
// The same when the softmax's normaliser is known: Σ exp(logit − largest) over all logits, with
// `largest` the largest logit (the GPU decode path computes both), so the host takes only n
// exponentials.
std::vector<TopToken> top_tokens(std::span<const float> logits, size_t n, float largest,
                                 double normaliser);

// ---- teacher-forced surprisal -----------------------------------------------------------------

struct SurprisalOptions {
  size_t top_k = 5;   // alternatives per position; clamped to the vocabulary
  size_t stride = 0;  // window advance for texts longer than n_ctx; 0 takes n_ctx / 2
  // Called after each window's pass with (windows done, windows in all), for progress.
  std::function<void(size_t, size_t)> on_window;
};

struct TokenSurprisal {
  uint32_t id = 0;
  // −log2 p(id | the tokens before it); none for the first token, which has no prediction.
  std::optional<double> bits;
  std::vector<TopToken> alternatives;  // the model's top_k for this position
};

struct Surprisal {
  std::vector<TokenSurprisal> tokens;
  double mean_bits = 0;   // over the scored tokens (all but the first)
  double perplexity = 0;  // 2^mean_bits
  size_t windows = 0;     // forward passes run
  size_t stride = 0;      // the stride used (clamped to [1, n_ctx − 1])
};

// Scores every token of `ids` given the ones before it, one forward pass per window. A text that
// fits n_ctx is one window; a longer one is scored as HF's perplexity guide does: windows of n_ctx
// tokens starting every `stride` tokens, each scoring only the tokens no earlier window scored, so
// each token is scored once with at least n_ctx − stride tokens of context (fewer at the start).
// The LM head runs only on the rows a window scores, and ops::score_rows reduces them where the
// logits are: on the GPU a window reads back O(tokens · top_k) numbers, windows of equal length
// run packed, several to a pass (Model::packed_body), and the passes are recorded back to back,
// each one's readback completing while later ones run. Throws on fewer
// than two tokens or an id outside the vocabulary. Native only on the GPU (the browser uses
// surprisal_async).
Surprisal surprisal(const Model& model, std::span<const uint32_t> ids,
                    const SurprisalOptions& options = {});
// The same without blocking: `done` runs once, with the result or the error — from
// gpu::Context::poll() (native) or the browser's event loop on the GPU (as does on_window), before
// this returns on the CPU. `model` must outlive the call.
void surprisal_async(const Model& model, std::vector<uint32_t> ids, SurprisalOptions options,
                     std::function<void(Result<Surprisal>)> done);

}  // namespace wgpt::model
