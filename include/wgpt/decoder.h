#pragma once
// The decode fast path: one token per step on the GPU in 2 + 5·n_layer fused dispatches whose
// bind groups are built once (include/wgpt/decode_ops.h), with the next token chosen on the GPU
// (greedily, with its embedding computed there too, or by the sampling kernels of
// include/wgpt/sampling.h, after which the next step embeds it), so a step costs one submit and a
// 4-byte readback. The weights may be stored in any weight dtype (f32, f16, bf16, q4). It
// continues a KvCache that Model::forward filled (the prefill), in the same layout, so the two
// paths can alternate.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wgpt/gpu.h"
#include "wgpt/model.h"
#include "wgpt/probe.h"
#include "wgpt/sampling.h"

namespace wgpt::ops::decode {
struct Options;
}

namespace wgpt::model {

class Decoder {
 public:
  // Whether `model` can take this path: on the GPU, the token table in one binding, widths that
  // are multiples of 8 up to 2048, a head size that is a power of two from 4 to 256, at most 64
  // heads, 8 storage buffers per stage. Otherwise use Model::forward, which computes the same
  // numbers with general ops.
  static bool supported(const Model& model);

  // How the kernels spread a step's work: over many workgroups, as a GPU wants, or over few, as a
  // software adapter (llvmpipe, SwiftShader) wants, which runs workgroups a few at a time on CPU
  // threads and pays for every barrier in each. `automatic` asks the adapter; tests force either.
  enum class Layout { automatic, gpu, software };
  // How workgroups reduce: with subgroup operations where the adapter has 32-lane subgroups
  // (`automatic`), or with barriers (everywhere; llvmpipe and the browser have no subgroups).
  enum class Reductions { automatic, barrier, subgroup };
  // Whether extra workgroups of the attention and MLP kernels read the weights of the step's next
  // products into the GPU's L2 cache ahead of them (ops::decode::Warm). `automatic` warms q4
  // weights in the GPU layout, the one case where it measured faster (H200: q4 1,409 → 1,504
  // tok/s; f16 unchanged, f32 and gpt2-medium f16 5–7% slower: docs/benchmarks.md).
  enum class Warming { automatic, off, on };
  struct Tuning {
    Layout layout = Layout::automatic;
    Reductions reductions = Reductions::automatic;
    // At most this many workgroups per matrix-vector product in the GPU layout (narrow products
    // take fewer); 0 takes ops::decode::Options' default. `wgpt bench --product-workgroups`
    // measures several.
    size_t product_workgroups = 0;
    // Whether to warm the next products' weights (Warming); `wgpt bench --warm-weights off,on`
    // compares.
    Warming warm_weights = Warming::automatic;
    // How many steps generate() keeps submitted ahead of the host: the host records step i + n
    // when step i's token arrives, so the GPU idles unless the host's wait, recording and submit
    // take less than n - 1 steps of GPU time. At least 1 (one step at a time); `wgpt bench
    // --steps-in-flight 2,3` compares.
    size_t steps_in_flight = 2;
    // How many steps one submit carries (at least 1): each submit's command buffer has a cost on
    // the GPU besides its dispatches, which k steps a submit share. Steps in flight are then
    // counted in submits (steps_in_flight · steps_per_submit steps), and the host sees a submit's
    // tokens together. On an H100, GPT-2 124M f16: 0.589 ms a token at 1, 0.580 at 2, 0.577 at 4
    // and at 8; every dtype and sampling mode, and gpt2-medium, gained 1–3% at 4 and nothing more
    // at 8. `wgpt bench --steps-per-submit 1,2,4` compares.
    size_t steps_per_submit = 4;
  };

  // Binds `cache` (which must belong to `model` and outlive this decoder). Each step's next token
  // is chosen on the GPU by `sampling` (validated here): greedy decoding takes the argmax of the
  // LM head's candidates, any other mode runs model::TokenSampler's kernels after the LM head.
  Decoder(const Model& model, KvCache& cache, const SamplingOptions& sampling, Tuning tuning);
  Decoder(const Model& model, KvCache& cache, const SamplingOptions& sampling)
      : Decoder(model, cache, sampling, Tuning{}) {}
  // A greedy decoder.
  Decoder(const Model& model, KvCache& cache, Tuning tuning);
  Decoder(const Model& model, KvCache& cache) : Decoder(model, cache, Tuning{}) {}
  ~Decoder();
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Runs `token` at position cache.length() and returns the most likely next token (first
  // maximum on ties). For a greedy decoder without bias or penalties.
  uint32_t step_greedy(uint32_t token);
  // Runs `token` at position cache.length() and returns the next position's logits [vocab].
  std::vector<float> step_logits(uint32_t token);
  // Decoding after `context` — the prompt and every token generated so far, whose last token runs
  // first, at position cache.length() (so context.size() == cache.length() + 1) — up to `count`
  // tokens, each chosen on the GPU by the decoder's sampling and passed to `on_token` as it
  // arrives (return false to stop). Several steps are kept in flight (Tuning::steps_in_flight) —
  // the GPU feeds each chosen token to the next step itself, so step i+1 is submitted before step
  // i's token reaches the host — which hides the host's encoding and the readback latency.
  std::vector<uint32_t> generate(std::span<const uint32_t> context, size_t count,
                                 const std::function<bool(uint32_t)>& on_token = {});
  // generate() with each step's trace read back in the step's readback (as step_traced reads
  // it): as many steps in flight, the same tokens. `on_step` receives each token with its trace.
  std::vector<uint32_t> generate_traced(
      std::span<const uint32_t> context, size_t count, size_t top_n,
      const std::function<bool(uint32_t, const StepTrace&)>& on_step);
  // One step of generate_traced without blocking: the chosen token and the step's trace arrive
  // from a later gpu::Context::poll() natively or from the browser's event loop. The cache's
  // length advances when this returns.
  struct ChosenStep {
    uint32_t token = 0;
    StepTrace trace;
  };
  void step_chosen_async(std::span<const uint32_t> context, size_t top_n,
                         std::function<void(Result<ChosenStep>)> done);
  // generate() after the single `token`, for a greedy decoder without bias or penalties (whose
  // choices need no context). The same tokens as step_greedy.
  std::vector<uint32_t> greedy(uint32_t token, size_t count,
                               const std::function<bool(uint32_t)>& on_token = {});

  // The probe on this path: a step as step_logits that also reads back every block's attention
  // for the new position (`blocks.L.attn.hook_pattern` [n_head, 1, kv_len]) and the `top_n` most
  // likely next tokens — the logits and all patterns in the step's one readback (one submit, one
  // fence wait). The kernels are the ones every step runs, so probing changes no arithmetic.
  StepTrace step_traced(uint32_t token, size_t top_n);
  // The same, delivering the trace (or the error) from a later gpu::Context::poll() natively or
  // from the browser's event loop. The cache's length advances when this returns; the next step
  // may be recorded before the trace arrives.
  void step_traced_async(uint32_t token, size_t top_n, std::function<void(Result<StepTrace>)> done);
  // generate_traced() after the single `token`, for a greedy decoder as greedy().
  std::vector<uint32_t> greedy_traced(
      uint32_t token, size_t count, size_t top_n,
      const std::function<bool(uint32_t, const StepTrace&)>& on_step);

  // Whether this decoder's kernels warm the next products' weights (Tuning::warm_weights resolved).
  bool warms_weights() const;

  // Diagnostics (`wgpt bench --profile`; native only): each kind of kernel of a greedy step — the
  // embedding, layer 0's five block kernels, the LM head and the argmax — dispatched `length`
  // times back to back in one compute pass, as many such passes as fit `seconds` (at least one,
  // two in flight, so the host's recording hides behind the GPU's work as in decoding), after as
  // many again of the same work (the GPU raises its clocks under load); the wall time per
  // dispatch. A chain of one kernel shows what a dispatch costs among dependent ones, its own
  // chain of latencies plus the device's gap between dispatches, which timestamp queries (a pass
  // per dispatch) inflate. Its weights stay in cache, so the rows add up to less than a step. The
  // step's position is reset before every pass; the cache keeps its length (the next step
  // rewrites what the chains wrote past it).
  struct KernelChain {
    std::string kernel;
    double microseconds = 0;  // per dispatch
  };
  std::vector<KernelChain> time_kernel_chains(size_t length, double seconds);

 private:
  struct Plan;
  // A step's readback: its GPU-chosen token (4 bytes) if `token`, then for a traced step the
  // logits and every layer's pattern for kv_len keys.
  std::vector<gpu::BufferRange> step_regions(bool token, bool traced, size_t kv_len) const;
  StepTrace assemble_trace(std::span<const std::vector<std::byte>> regions, size_t kv_len,
                           size_t top_n) const;
  using Regions = std::vector<std::vector<std::byte>>;
  // Records a traced step (its token chosen on the GPU if `choose_on_gpu`) and its readback,
  // whose regions arrive in `then` with the step's kv_len; advances the cache's length.
  void read_step_async(bool choose_on_gpu,
                       std::function<void(Result<Regions>, size_t kv_len)> then);
  std::vector<uint32_t> run(std::span<const uint32_t> context, size_t count,
                            std::optional<size_t> top_n,
                            const std::function<bool(uint32_t, const StepTrace*)>& on_step);
  void bind_kernels(const ops::decode::Options& options, bool warm_weights);
  // A step's dispatches: the embedding when the host chose the token (or the sampler the one
  // before), the blocks and the LM head, and the GPU's choice when `choose_on_gpu` (a greedy one
  // with the next step's embedding).
  void record_step(bool embed, bool choose_on_gpu);
  void start(uint32_t token);
  // start() for a step whose token the GPU chooses: the sampler's context too.
  void begin(std::span<const uint32_t> context);
  // Throws unless the decoder chooses greedily without a context (for `what`).
  void require_plain_greedy(const char* what) const;
  std::unique_ptr<Plan> plan_;
  const Model& model_;
  KvCache& cache_;
};

}  // namespace wgpt::model
