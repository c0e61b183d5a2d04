#pragma once
// wgpt::ops — the forward ops of GPT-2 inference.
//
// Every op validates dtypes, shapes and devices (a mismatch throws wgpt::Error naming the op and
// the shapes), then runs on the device of its inputs: all CPU tensors run the CPU reference (plain
// loops: the definition of the op), all GPU tensors of one context run the op's WGSL kernel
// (src/kernels/). Outputs are new tensors on the same device, except kv_append, which writes into
// the cache it is given. GPU ops only record work; reading a result back is explicit.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/gpu.h"
#include "wgpt/io.h"
#include "wgpt/tensor.h"

namespace wgpt::ops {

// a + b, elementwise; same shape, f32.
Tensor add(const Tensor& a, const Tensor& b);

// GPT-2's tanh GELU ("gelu_new"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), elementwise.
Tensor gelu(const Tensor& x);

// LayerNorm over the last dimension: (x − mean) / √(var + eps) · gamma + beta, with the biased
// variance (as PyTorch). x [..., C], gamma and beta [C].
Tensor layernorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps = 1e-5f);

// Softmax over the last dimension, no mask.
Tensor softmax(const Tensor& x);
// Softmax over the last dimension of scores [..., q_len, kv_len] with the causal mask of a KV
// cache holding `offset` earlier positions: query i (absolute position offset + i) sees key j iff
// j ≤ offset + i. Masked probabilities are exactly 0.
Tensor causal_softmax(const Tensor& scores, size_t offset);

// Token + position embedding: out[i] = wte[ids[i]] + wpe[pos_offset + i]. ids u32 [t], wte
// [vocab, C], wpe [n_positions, C] → [t, C].
Tensor embedding(const Tensor& ids, const Tensor& wte, const Tensor& wpe, size_t pos_offset);
// The same over a token table split into row chunks (each [rows_i, C], consecutive blocks of the
// table), for tables larger than a device's storage binding limit. On the GPU an id past the
// table's end yields a NaN row (the CPU throws). The table may be f32, f16, bf16 or q4.
Tensor embedding(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
                 size_t pos_offset);
// The same with a position per row, out[i] = wte[ids[i]] + wpe[positions[i]] (positions u32, ids'
// shape): a batched decode step, whose rows belong to sequences at different positions. On the
// GPU a position past wpe yields a NaN row (the CPU throws).
Tensor embedding(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
                 const Tensor& positions);

// How a GPU matrix product multiplies. f32: f32 operands and sums (every device). mixed: operands
// rounded to f16 and f32 sums on the tensor cores, where the device has them (Dawn's subgroup
// matrices; elsewhere the f32 kernels run). docs/precision.md states what mixed changes and how
// it is tested. The CPU reference computes the definition either way.
enum class Precision { f32, mixed };

// A product with a causal attention's structure in each batch (square, so that row i and column or
// k index i meet on the diagonal): the kernels skip its blocks of zeros, about half the work, and
// the result is as if the zeros had been multiplied. op(a) means a as the product reads it
// (transposed when asked).
enum class Triangle {
  none,
  lower_output,  // the output's entries above the diagonal (column > row) are 0; needs m = n
  lower_a,       // op(a)'s entries above the diagonal (k > row) are taken as 0, not read; m = k
  upper_a,       // op(a)'s entries below the diagonal (k < row) are taken as 0, not read; m = k
};

struct MatmulOptions {
  bool transpose_a = false;    // a is stored [.., k, m]
  bool transpose_b = false;    // b is stored [.., n, k]
  std::optional<Tensor> bias;  // [n], added after scaling
  float scale = 1.0f;          // multiplies a·b
  bool gelu = false;           // GPT-2's GELU of the biased product
  // Added last, elementwise (the output's shape): a residual connection in the same pass.
  std::optional<Tensor> residual;
  Precision precision = Precision::f32;
  // Each output row's sums in an order that does not depend on how many rows the product has (on
  // the GPU the kernel and the split of k are chosen as for 64 rows whatever m is), so that a row
  // gets the same bits alone as among others: a batched decode step, whose rows are sequences
  // that must not depend on what else is in the batch. Otherwise the kernel suits m.
  bool row_invariant = false;
  // On the GPU, k cut into about this many slices (each a multiple of the kernel's k tile, none
  // empty) whose partial sums a second pass adds, instead of the split chosen for the shape (0):
  // for tuning that choice (wgpt bench --product-splits). The CPU ignores it.
  size_t k_splits = 0;
  // Which entries are zero by the product's structure (Triangle); none takes no bias, GELU or
  // residual. Always the f32 kernels, whatever the precision.
  Triangle triangle = Triangle::none;
};

// residual + gelu(scale · op(a) · op(b) + bias), each part when asked for. a [m, k] or [batch, m,
// k]; b [k, n] or [batch, k, n] (transposed forms swap the last two dimensions). An unbatched
// operand is broadcast over the other's batch. Output [m, n], or [batch, m, n] when either operand
// is batched. b may hold weights in f16, bf16 or q4 (read widened to f32, always by the f32
// kernels; a batched q4 b needs batches that start on a block).
Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options = {});
// The GPU kernel a matmul of operands shaped `a` and `b` (stored as `b_dtype`) takes on a device
// with `limits`, and how it splits k, e.g. "matmul_tensor_64_vec4 (3 splits)" or "gemv.q4": for
// reports (wgpt bench).
std::string matmul_kernel(const gpu::Limits& limits, const Shape& a, const Shape& b,
                          const MatmulOptions& options = {}, DType b_dtype = DType::f32);
// What the model behind the 128×128 f32 kernels' split of k (docs/benchmarks.md, "A model of the
// products' time") says such a product takes on an H200, in µs; nothing for the other kernels.
// For reports that set the model beside a measurement (wgpt bench --products).
std::optional<double> matmul_modelled_micros(const gpu::Limits& limits, const Shape& a,
                                             const Shape& b, const MatmulOptions& options = {},
                                             DType b_dtype = DType::f32);
// a [m, k] · Bᵀ · scale, where B [n, k] is given as consecutive row chunks (a token table split
// for the binding limit: the LM head x · wteᵀ), f32 or packed as matmul's b. Output [m, n]; chunk i
// fills its own columns. row_invariant as in MatmulOptions.
Tensor matmul_transposed_chunks(const Tensor& a, const std::vector<Tensor>& b_row_chunks,
                                float scale = 1.0f, bool row_invariant = false);

// Fused QKV [t, 3C] → q, k, v, each [n_head, t, C / n_head].
struct Heads {
  Tensor q, k, v;
};
Heads split_heads(const Tensor& qkv, size_t n_head);
// [n_head, t, head_dim] → [t, n_head · head_dim].
Tensor merge_heads(const Tensor& x);

// Writes x [n_head, t, head_dim] into cache [n_head, n_ctx, head_dim] at rows
// [position, position + t) of every head, in place (the cache's storage is shared by its copies).
void kv_append(Tensor& cache, const Tensor& x, size_t position);
// Attention scores against the first kv_len rows of a cache: scale · q · kᵀ per head.
// q [n_head, t, hd], k_cache [n_head, n_ctx, hd] → [n_head, t, kv_len].
Tensor attention_scores(const Tensor& q, const Tensor& k_cache, size_t kv_len, float scale);
// Stores a prompt's keys and values from the fused projection qkv [t, 3C] (q, k, v blocks) into
// the caches [n_head, n_ctx, head_dim] at rows [position, position + t) of every head, in place
// (kv_append of split_heads' k and v in one pass).
void kv_store(const Tensor& qkv, Tensor& k_cache, Tensor& v_cache, size_t position);
// A prompt's causal self-attention in one pass, heads merged: for query i (absolute position
// offset + i) and head h, out[i, h·hd ..] = Σ_{j ≤ offset + i} softmax_j(scale · q·k_j) · v_j, with
// q from qkv [t, 3C] and k, v the first offset + t rows of the caches (which must hold this
// prompt's keys and values: kv_store). → [t, C]. The same numbers as attention_scores,
// causal_softmax, attention_values and merge_heads, without the [n_head, t, kv_len] scores (on
// the GPU: flash_attention.wgsl, an online softmax).
Tensor causal_attention(const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                        size_t offset, float scale);
// Whether causal_attention runs for caches like this one (the GPU kernel takes heads of 64).
bool causal_attention_supported(const Tensor& k_cache);
// The causal self-attention of `sequences` sequences of t rows each, packed one after another in
// qkv [sequences·t, 3C], each starting at position 0 and attending only within itself, its keys
// and values taken from qkv's k and v blocks (no cache): out[s·t + i, h·hd ..] = Σ_{j ≤ i}
// softmax_j(scale · q_{s·t+i}·k_{s·t+j}) · v_{s·t+j} → [sequences·t, C]. The windows of a scored
// text in one pass; the same kernel as causal_attention.
Tensor packed_causal_attention(const Tensor& qkv, size_t sequences, size_t n_head, float scale);
// Whether packed_causal_attention runs on `context` (nullptr: the CPU) for heads of head_dim.
bool packed_causal_attention_supported(const gpu::Context* context, size_t head_dim);
// The kernel both run on `context`, as its gpu::PromptAttention chooses: flash_attention,
// flash_attention_pairs or flash_attention_quarters. Throws wgpt::Error where the form asked for
// needs subgroups the adapter lacks.
std::string_view causal_attention_kernel(gpu::Context& context);

// A batched decode step: B rows, each the newest token of its own sequence, whose caches share one
// pool per layer, k_pool and v_pool [slots, n_head, n_ctx, head_dim] (slot s's cache is the
// [n_head, n_ctx, head_dim] block s). Row r belongs to slot slots[r] and sits at position
// positions[r] (slots and positions u32 [B]; the slots of one step distinct).
// Stores each row's key and value from qkv [B, 3C] at its slot's row positions[r], in place.
void kv_store_rows(const Tensor& qkv, Tensor& k_pool, Tensor& v_pool, const Tensor& slots,
                   const Tensor& positions);
// Each row's attention over its own slot's keys j ≤ positions[r] (which must hold them:
// kv_store_rows), heads merged: out[r, h·hd ..] = Σ_j softmax_j(scale · q_r·k_j) · v_j with q_r
// from qkv [B, 3C] → [B, C]. A row's numbers do not depend on the other rows. On the GPU
// (decode_attention_rows.wgsl) head_dim is at most 256 and a position past n_ctx yields NaN.
Tensor decode_attention_rows(const Tensor& qkv, const Tensor& k_pool, const Tensor& v_pool,
                             const Tensor& slots, const Tensor& positions, float scale);
// probs · v per head over the first kv_len rows of a cache, kv_len = probs' last dimension.
// probs [n_head, t, kv_len], v_cache [n_head, n_ctx, hd] → [n_head, t, hd].
Tensor attention_values(const Tensor& probs, const Tensor& v_cache);

// ==== Routing: several models' hidden states merged into one (the council) ====================

// The rows of every tensor, in order: [r_0, C], [r_1, C], … → [Σ r_i, C]; f32, one device. On the
// GPU the rows are buffer copies recorded in order with the dispatches (no kernel).
Tensor concat_rows(const std::vector<Tensor>& parts);

// The entropy of softmax(x[r]) per row, in nats: H[r] = −Σ_j p_j · log p_j. x [rows, cols] →
// [rows].
Tensor softmax_entropy(const Tensor& x);

// A router over n candidates: weights = softmax(−beta · scores), and the mixture of the rows of x
// under them, mixed = Σ_i weights[i] · x[i]. x [n, C], scores [n] → weights [n], mixed [1, C].
// beta ≥ 0: 0 weighs every row alike; the larger, the more the lowest score takes.
struct Mixture {
  Tensor weights;
  Tensor mixed;
};
Mixture router_mix(const Tensor& x, const Tensor& scores, float beta);

// ==== Training: gradients, loss and optimizer ================================================
// The backward ops of the forward ops above, the loss and the optimizer update, under the same
// rules: validated, then the CPU reference or the WGSL kernel by the inputs' device. Every one is
// deterministic (no atomics: sums run in a fixed order), so a run repeats bit for bit.

// Gradients of y = scale · op(a) · op(b) + bias given dy (y's shape), as `matmul` takes them: da
// and db have a's and b's stored shapes; dbias ([n], the column sums of dy) only when options.bias
// is set. a and b must both be unbatched or both batched (no broadcast). A triangular product's
// gradients are triangular products too, where the triangle falls on their first operand: for
// lower_output an untransposed a and a transposed b (attention's q · kᵀ), for lower_a both
// untransposed (its probabilities · v); other combinations are refused.
struct MatmulGrads {
  Tensor da, db;
  std::optional<Tensor> dbias;
};
MatmulGrads matmul_backward(const Tensor& a, const Tensor& b, const Tensor& dy,
                            const MatmulOptions& options = {});

// Column sums of x [rows, cols] → [cols] (a bias's gradient), reduced in a fixed tree of row
// blocks.
Tensor sum_rows(const Tensor& x);

// gelu's gradient: dx = gelu′(x) · dy, elementwise.
Tensor gelu_backward(const Tensor& x, const Tensor& dy);

// layernorm's gradients given dy (x's shape), the statistics recomputed from x:
// dx = inv_std · (g − mean(g) − x̂ · mean(g · x̂)) with g = dy · gamma; dgamma = Σ_rows dy · x̂;
// dbeta = Σ_rows dy.
struct LayerNormGrads {
  Tensor dx, dgamma, dbeta;
};
LayerNormGrads layernorm_backward(const Tensor& x, const Tensor& gamma, const Tensor& dy,
                                  float eps = 1e-5f);

// The gradient of a softmax over the last dimension from its output y: dx = y · (dy − Σ y · dy)
// per row. Masked probabilities are exactly 0, so the causal softmax needs no mask here.
Tensor softmax_backward(const Tensor& y, const Tensor& dy);

// split_heads' gradient: dq, dk, dv [n_head, t, head_dim] → dqkv [t, 3 · n_head · head_dim].
Tensor split_heads_backward(const Heads& grads);
// merge_heads' gradient: dy [t, n_head · head_dim] → [n_head, t, head_dim].
Tensor merge_heads_backward(const Tensor& dy, size_t n_head);

// The gradients of the token and position tables for `ids` holding batch sequences of seq_len
// tokens, each starting at position 0, given dy [ids.size(), C]: dwte[v] = Σ_{i : ids[i] = v} dy[i]
// (a scatter-add, summed in token order) and dwpe[p] = Σ_b dy[b · seq_len + p] for p < seq_len,
// 0 past it. The ids come from the host (they index the scatter); dy decides the device.
struct EmbeddingGrads {
  Tensor dwte;  // [vocab_size, C]
  Tensor dwpe;  // [n_positions, C]
};
EmbeddingGrads embedding_backward(std::span<const uint32_t> ids, const Tensor& dy,
                                  size_t vocab_size, size_t n_positions, size_t seq_len);

// Inverted dropout at one site of one training step: y[i] = x[i] / (1 − p) where element i is
// kept, else 0. Element i is kept iff u ≥ p, u = the top 24 bits of a counter-based hash of
// (seed, step, site, i) over 2²⁴ — uniform in [0, 1), the same on the CPU and in the kernel, so
// the mask needs no stored state and a run that resumes at a step redraws that step's masks. The
// gradient is the same op on dy (the mask and scale are dy's factors too): dx = dropout(dy, same
// options). p = 0 keeps everything (y = x).
struct DropoutOptions {
  float p = 0.0f;  // the probability of dropping an element, 0 ≤ p < 1
  uint64_t seed = 0;
  uint64_t step = 0;
  uint32_t site = 0;  // which dropout of the step (the embedding, a layer's attention, ...)
};
Tensor dropout(const Tensor& x, const DropoutOptions& options);

// Cross-entropy per row of logits [n, vocab] against targets u32 [n]:
// loss[r] = logsumexp(logits[r]) − logits[r, targets[r]] → [n].
Tensor cross_entropy(const Tensor& logits, const Tensor& targets);
// Its gradient: dlogits[r] = (softmax(logits[r]) − onehot(targets[r])) · dloss[r]; dloss [n].
Tensor cross_entropy_backward(const Tensor& logits, const Tensor& targets, const Tensor& dloss);

// The order-preserving u32 of a float, by which score_rows and sampling rank logits (their kernels
// alike: src/kernels/lib/sample_common.wgsl): a larger float has a larger key, −0 below +0, so
// ordering keys orders values, and equal values go to the lower id.
inline uint32_t rank_key(float value) {
  const uint32_t bits = io::f32_bits(value);
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

// Scoring: per row of logits [n, vocab] against targets u32 [n], the softmax statistics and the
// target's surprisal, stats f32 [n, 3] = (−log2 softmax(logits[r])[targets[r]], max, Σ exp(logit −
// max)), and the k largest logits as (id, logit bits) pairs, top u32 [n, k, 2] — ranked by value,
// ties by lower id (−0 below +0), in no particular order on the GPU (sorted on the CPU). 0 ≤ k ≤
// vocab. Reading back O(n · k) numbers instead of the logits is what makes it worth a kernel.
struct RowScores {
  Tensor stats;
  Tensor top;
};
RowScores score_rows(const Tensor& logits, const Tensor& targets, size_t k);

// Σ x² over every element of every tensor → [1]: the squared global norm of a set of gradients.
Tensor sum_of_squares(const std::vector<Tensor>& tensors);

struct AdamWOptions {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
  size_t step = 1;    // 1 for the first update: the bias corrections use it
  float clip = 0.0f;  // > 0: scale gradients by min(1, clip / (global norm + 1e-6)), as PyTorch
  // The gradients (and their sum of squares) arrive multiplied by this (loss scaling in mixed
  // precision); the update divides it out before anything else.
  float grad_scale = 1.0f;
};
// One AdamW update of param in place, in PyTorch's order, with g = grad / grad_scale: param ·= 1 −
// lr · wd; m ← β1 · m + (1 − β1) · g; v ← β2 · v + (1 − β2) · g²; param −= lr / (1 − β1^step) · m /
// (√v / √(1 − β2^step) + eps). g is grad, scaled for clipping by the global norm
// √grad_sum_of_squares[0] (read only when clip > 0). param, m and v are written in place (their
// storage is shared by their copies); all f32 of one shape.
void adamw_update(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v,
                  const Tensor& grad_sum_of_squares, const AdamWOptions& options);

}  // namespace wgpt::ops
