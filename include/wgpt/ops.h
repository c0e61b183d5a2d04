#pragma once
// wgpt::ops — the forward ops of GPT-2 inference.
//
// Every op validates dtypes, shapes and devices (a mismatch throws wgpt::Error naming the op and
// the shapes), then runs on the device of its inputs: all CPU tensors run the CPU reference (plain
// loops: the definition of the op), all GPU tensors of one context run the op's WGSL kernel
// (src/kernels/). Outputs are new tensors on the same device, except kv_append, which writes into
// the cache it is given. GPU ops only record work; reading a result back is explicit.

#include <cstddef>
#include <optional>
#include <vector>

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
// table's end yields a NaN row (the CPU throws).
Tensor embedding(const Tensor& ids, const std::vector<Tensor>& wte_chunks, const Tensor& wpe,
                 size_t pos_offset);

struct MatmulOptions {
  bool transpose_a = false;    // a is stored [.., k, m]
  bool transpose_b = false;    // b is stored [.., n, k]
  std::optional<Tensor> bias;  // [n], added after scaling
  float scale = 1.0f;          // multiplies a·b
};

// scale · op(a) · op(b) + bias. a [m, k] or [batch, m, k]; b [k, n] or [batch, k, n] (transposed
// forms swap the last two dimensions). An unbatched operand is broadcast over the other's batch.
// Output [m, n], or [batch, m, n] when either operand is batched.
Tensor matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options = {});
// a [m, k] · Bᵀ · scale, where B [n, k] is given as consecutive row chunks (a token table split
// for the binding limit: the LM head x · wteᵀ). Output [m, n]; chunk i fills its own columns.
Tensor matmul_transposed_chunks(const Tensor& a, const std::vector<Tensor>& b_row_chunks,
                                float scale = 1.0f);

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
// probs · v per head over the first kv_len rows of a cache, kv_len = probs' last dimension.
// probs [n_head, t, kv_len], v_cache [n_head, n_ctx, hd] → [n_head, t, hd].
Tensor attention_values(const Tensor& probs, const Tensor& v_cache);

}  // namespace wgpt::ops
