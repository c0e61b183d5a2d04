#pragma once
// The kernels of the fused decode step (src/kernels/decode_*.wgsl) as ops. Each binds its tensors
// once and then runs every step: the kernel's prepared dispatch when the tensors are on a GPU, the
// op's CPU reference (plain loops: the definition) when they are on the CPU. The model's Decoder
// strings them together; tests/gpu/decode_ops_test.cpp holds every one to its reference over odd
// shapes through one parity harness.
//
// Conventions: `step` is u32 [position, token], the state every kernel reads (kv_len = position + 1
// for the attention ops); vectors are f32; weight matrices are in HF's Conv1D layout [in, out] and
// the token table [vocab, width], stored as f32, f16, bf16 or q4 and read widened to f32; `ln` is
// a LayerNorm's [2, width] (gamma, then beta). Outputs are written in place.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "wgpt/gpu.h"
#include "wgpt/tensor.h"

namespace wgpt::ops::decode {

// Elements of the attention ops' key chunks (flash-decoding) and rows per LM-head candidate.
inline constexpr size_t kChunk = 64;
inline constexpr size_t kHeadRows = 128;

struct Options {
  bool software = false;   // few wide workgroups, as a software adapter (llvmpipe) wants
  bool subgroups = false;  // subgroup reductions: needs subgroups_usable
  // The GPU layout's most workgroups for a matrix-vector product: its column groups of 8 are
  // spread over as few threads across (tx) as keep within it.
  size_t product_workgroups = 256;
};

// Whether the adapter's subgroups have 32 lanes laid out as the subgroup variants assume
// (gpu::Context::subgroups_consecutive).
bool subgroups_usable(gpu::Context& context);

// Weights that an op's extra workgroups read into the GPU's L2 cache while it runs, so that a
// later kernel of the step finds them there (src/kernels/lib/decode_warm.wgsl); no output
// changes. `sink` (u32, at least 256 words) takes one store of each extra thread, which keeps a
// compiler from dropping their loads; what it holds is never read. Default: nothing warmed. The
// CPU reference has no cache: it ignores them.
struct Warm {
  Tensor weights, sink;
};

// An op bound to its tensors.
class Bound {
 public:
  Bound() = default;
  // Records the dispatch (GPU; submitted at once outside a gpu::Scope) or runs the reference.
  void run() const;
  // The kernel variant ("decode_qkv.f16.subgroup"), or "reference" on the CPU.
  const std::string& kernel() const { return kernel_; }

 private:
  friend Bound bind_gpu(gpu::Context& context, std::string kernel, gpu::PreparedDispatch dispatch);
  friend Bound bind_cpu(std::function<void()> reference);
  std::string kernel_;
  gpu::Context* context_ = nullptr;
  gpu::PreparedDispatch dispatch_;
  std::function<void()> reference_;
};

// x = wte[token] + wpe[position].
Bound embed(const Tensor& step, const Tensor& wte, const Tensor& wpe, const Tensor& x);

// LayerNorm 1, the fused QKV projection and the head split: y = LN(x) · weight + bias [3·width];
// q = y[0, width); k_cache[h, position] and v_cache[h, position] = head h of the next two thirds.
struct Qkv {
  Tensor step, x, ln, weight, bias, q, k_cache, v_cache;  // caches [n_head, n_ctx, head_dim]
  float eps = 1e-5f;
};
Bound qkv(const Qkv& args, const Options& options);

// Attention split over chunks of kChunk keys: for head h and chunk c (first key 64c < kv_len),
// scores[h, j] = scale · q_h · k_cache[h, j] for the chunk's keys, and
// partials[h, c] = [m, l, o] with m = the chunk's largest score, l = Σ exp(s_j − m) and
// o = Σ exp(s_j − m) · v_cache[h, j] (head_dim values). scores [n_head, n_ctx], partials
// [n_head, ceil(n_ctx / 64), head_dim + 2]; chunks past kv_len are left as they are.
struct AttentionChunks {
  Tensor step, q, k_cache, v_cache, scores, partials;
};
Bound attention_chunks(const AttentionChunks& args, const Options& options, const Warm& warm = {});

// The chunks merged per head (M = max m_c, L = Σ l_c·exp(m_c − M), z_h = Σ o_c·exp(m_c − M) / L),
// then x += z · weight + bias; and patterns[layer, h, j] = exp(scores[h, j] − M) / L for
// j < kv_len, packed [n_layer, n_head, kv_len] for this step's kv_len.
struct AttentionOutput {
  Tensor step, partials, scores, weight, bias, patterns, x;
  size_t layer = 0;
};
Bound attention_output(const AttentionOutput& args, const Options& options);

// LayerNorm 2, the MLP's first layer and GELU (tanh form): h = gelu(LN(x) · weight + bias).
struct MlpUp {
  Tensor x, ln, weight, bias, h;
  float eps = 1e-5f;
};
Bound mlp_up(const MlpUp& args, const Options& options, const Warm& warm = {});

// The MLP's second layer into the residual stream: x += h · weight + bias.
struct MlpDown {
  Tensor h, weight, bias, x;
};
Bound mlp_down(const MlpDown& args, const Options& options, const Warm& warm = {});

// The final LayerNorm and the tied LM head, logits[v] = LN(x) · wte[v], and per group of kHeadRows
// tokens a candidate [value bits, index, Σ exp(logit − value)] in candidates u32 [groups, 3]: the
// group's largest logit, its lowest index on ties.
struct LmHead {
  Tensor x, ln, wte, logits, candidates;
  float eps = 1e-5f;
};
Bound lm_head(const LmHead& args, const Options& options);

// The greedy token among the candidates (largest value, lowest index on ties): step becomes
// [position + 1, token], and x = wte[token] + wpe[position + 1] — the next step's embedding —
// when position + 1 < wpe's rows.
struct Argmax {
  Tensor candidates, wte, wpe, step, x;
};
Bound argmax(const Argmax& args, const Options& options);

// The definitions: each op's CPU reference over CPU tensors, in place (what Bound::run runs on the
// CPU). Packed weights are read widened; sums are taken in double.
namespace reference {
void embed(const Tensor& step, const Tensor& wte, const Tensor& wpe, const Tensor& x);
void qkv(const Qkv& args);
void attention_chunks(const AttentionChunks& args);
void attention_output(const AttentionOutput& args);
void mlp_up(const MlpUp& args);
void mlp_down(const MlpDown& args);
void lm_head(const LmHead& args);
void argmax(const Argmax& args);
}  // namespace reference

}  // namespace wgpt::ops::decode
