// The decode ops bound to their tensors (include/wgpt/decode_ops.h): shapes checked once, then
// either the kernel's prepared dispatch with its parameter block and grid, or the CPU reference.
#include "wgpt/decode_ops.h"

#include <algorithm>
#include <cmath>

#include "kernel_table.h"
#include "ops/kernel_call.h"
#include "ops/op_support.h"

namespace wgpt::ops::decode {

Bound bind_gpu(gpu::Context& context, std::string kernel, gpu::PreparedDispatch dispatch) {
  Bound bound;
  bound.kernel_ = std::move(kernel);
  bound.context_ = &context;
  bound.dispatch_ = std::move(dispatch);
  return bound;
}

Bound bind_cpu(std::function<void()> reference) {
  Bound bound;
  bound.kernel_ = "reference";
  bound.reference_ = std::move(reference);
  return bound;
}

void Bound::run() const {
  if (context_) {
    context_->dispatch(dispatch_);
  } else {
    reference_();
  }
}

bool subgroups_usable(gpu::Context& context) { return context.subgroups_consecutive(); }

namespace {

constexpr std::string_view kOp = "decode";

uint32_t u32(size_t value) { return detail::word(kOp, value); }

// Threads across the column groups (8 columns each) of a decode product (lib/decode_gemv.wgsl).
// On a GPU the fewest that keep the product within options.product_workgroups workgroups (at
// most 32, a subgroup): narrow products then spread over as many workgroups as they have column
// groups, wide ones stop short of needing several waves of workgroups; on a software adapter 64,
// the fewest workgroups.
uint32_t column_threads(size_t n8, const Options& options) {
  if (options.software) return 64;
  uint32_t tx = 1;
  while (tx < 32 && (n8 + tx - 1) / tx > options.product_workgroups) tx *= 2;
  return tx;
}

// The product's workgroups (lib/decode_gemv.wgsl's gemv_groups), then `extra` more.
gpu::Workgroups product_groups(size_t n8, uint32_t tx, uint32_t extra = 0) {
  return {u32((n8 + tx - 1) / tx + extra)};
}

void require(bool condition, const std::string& message) {
  if (!condition) detail::fail(kOp, message);
}

void require_vector(std::string_view role, const Tensor& t, size_t n) {
  require(t.dtype() == DType::f32 && t.numel() == n, std::string(role) + " must be f32 of " +
                                                         std::to_string(n) + " elements, got " +
                                                         t.describe());
}

void require_weight(std::string_view role, const Tensor& t, size_t rows, size_t cols) {
  require((t.dtype() == DType::f32 || is_packed(t.dtype())) && t.rank() == 2 && t.dim(0) == rows &&
              t.dim(1) == cols && cols % 8 == 0,
          std::string(role) + " must be a [" + std::to_string(rows) + ", " + std::to_string(cols) +
              "] weight matrix (a multiple of 8 wide), got " + t.describe());
}

// A product's weight matrix (lib/decode_gemv.wgsl): q4's are read four rows at a time
// (lib/decode_rows_q4.wgsl).
void require_product_weight(const Tensor& t, size_t rows, size_t cols) {
  require_weight("weight", t, rows, cols);
  require(t.dtype() != DType::q4 || rows % 4 == 0,
          "a q4 weight matrix needs a multiple of 4 rows, got " + t.describe());
}

// A product's weights as its kernel binds them: the range reaches as far as the kernel reads.
gpu::BufferRange product_weights(const Tensor& weight) {
  gpu::BufferRange range = weight.range();
  range.size = gpu_read_bytes(weight.dtype(), range.size);
  return range;
}

// A weight matrix's layout as the products' parameter (lib/decode_gemv.wgsl).
uint32_t in_strips(const Tensor& weight) { return weight.layout() == Layout::column_strips; }

void require_step(const Tensor& step) {
  require(step.dtype() == DType::u32 && step.numel() == 2,
          "the step must be u32 [position, token], got " + step.describe());
}

// Whether every tensor is on the GPU (one context), else all on the CPU.
gpu::Context* context_of(const std::vector<const Tensor*>& tensors) {
  return detail::common_context(kOp, tensors).get();
}

// A decode kernel's warm bindings (lib/decode_warm.wgsl) and its extra workgroups, each of whose
// 256 threads reads one word of 8 sectors of 32 bytes. Without weights to warm there are none; the
// op's own `input` (read) fills the weights' binding and a word of its own the sink's (a written
// binding may not alias another).
struct WarmPlan {
  Tensor weights, sink;
  uint32_t workgroups = 0;
};

WarmPlan plan_warm(const Warm& warm, const Tensor& input) {
  if (!warm.weights.is_gpu()) {
    return {input, Tensor::empty_gpu(input.context(), {1}, DType::u32), 0};
  }
  require(warm.weights.context() == input.context() && warm.sink.context() == input.context(),
          "the weights to warm and their sink must be on the op's GPU");
  require(warm.sink.dtype() == DType::u32 && warm.sink.numel() >= 256,
          "the warm sink must be u32 of at least 256 elements, got " + warm.sink.describe());
  constexpr size_t kSectorBytes = 32, kSectorsPerThread = 8, kThreads = 256;
  const size_t per_workgroup = kSectorBytes * kSectorsPerThread * kThreads;
  return {warm.weights, warm.sink,
          u32((warm.weights.byte_size() + per_workgroup - 1) / per_workgroup)};
}

detail::Variant variant(const Tensor& weights, const Options& options) {
  return {.weights = weights.dtype(), .subgroups = options.subgroups};
}

template <class Kernel>
Bound prepared(gpu::Context& context, const detail::Variant& v,
               const typename Kernel::Params& params, const detail::KernelBuffers<Kernel>& buffers,
               gpu::Workgroups groups) {
  return bind_gpu(context, detail::kernel_name<Kernel>(v),
                  detail::prepare<Kernel>(context, v, params, buffers, groups));
}

// The caches' shape [n_head, n_ctx, head_dim] as the attention kernels take it, and the scratch
// that goes with it.
struct AttentionShape {
  size_t n_head, n_ctx, head_dim;
  ScratchLayout scratch;
};

AttentionShape attention_shape(const Tensor& k_cache, const Tensor& v_cache, const Tensor& scratch,
                               size_t width) {
  require(k_cache.rank() == 3 && v_cache.shape() == k_cache.shape() &&
              k_cache.dim(0) * k_cache.dim(2) == width,
          "the caches must be [n_head, n_ctx, head_dim] with n_head · head_dim = " +
              std::to_string(width) + ", got " + k_cache.describe() + " and " + v_cache.describe());
  const size_t n_head = k_cache.dim(0), n_ctx = k_cache.dim(1), head_dim = k_cache.dim(2);
  require(head_dim >= 4 && head_dim <= 256 && (head_dim & (head_dim - 1)) == 0,
          "head_dim must be a power of two from 4 to 256, got " + std::to_string(head_dim));
  require(n_head <= 64, "at most 64 heads, got " + std::to_string(n_head));
  const AttentionShape shape{n_head, n_ctx, head_dim, scratch_layout(n_head, n_ctx, head_dim)};
  require_vector("scratch", scratch, shape.scratch.size);
  return shape;
}

}  // namespace

Bound embed(const Tensor& step, const Tensor& wte, const Tensor& wpe, const Tensor& x) {
  require_step(step);
  const size_t width = x.numel();
  require_weight("wte", wte, wte.dim(0), width);
  require(wpe.dtype() == DType::f32 && wpe.rank() == 2 && wpe.dim(1) == width,
          "wpe must be f32 [positions, " + std::to_string(width) + "], got " + wpe.describe());
  require_vector("x", x, width);
  gpu::Context* context = context_of({&step, &wte, &wpe, &x});
  if (!context) return bind_cpu([=] { reference::embed(step, wte, wpe, x); });
  return prepared<kernels::decode_embed>(*context, {.weights = wte.dtype()}, {.width = u32(width)},
                                         {step.range(), wte.range(), wpe.range(), x.range()},
                                         {u32((width + 255) / 256)});
}

ScratchLayout scratch_layout(size_t n_head, size_t n_ctx, size_t head_dim) {
  ScratchLayout layout;
  layout.chunks = (n_ctx + kChunk - 1) / kChunk;
  layout.scores = n_head * head_dim;
  layout.partials = layout.scores + n_head * n_ctx;
  layout.size = layout.partials + n_head * layout.chunks * (head_dim + 2);
  return layout;
}

Bound qkv_attention(const QkvAttention& a, const Options& options) {
  require_step(a.step);
  const size_t width = a.x.numel();
  require_vector("x", a.x, width);
  const AttentionShape s = attention_shape(a.k_cache, a.v_cache, a.scratch, width);
  require_vector("ln", a.ln, 2 * width);
  require_vector("bias", a.bias, 3 * width);
  require_product_weight(a.weight, width, 3 * width);
  gpu::Context* context =
      context_of({&a.step, &a.x, &a.ln, &a.weight, &a.bias, &a.k_cache, &a.v_cache, &a.scratch});
  if (!context) return bind_cpu([a] { reference::qkv_attention(a); });
  const size_t kv8 = 2 * width / 8;  // the projection workgroups' column groups: k's and v's
  const uint32_t tx = column_threads(kv8, options);
  const size_t kv_groups = (kv8 + tx - 1) / tx;
  const size_t groups = kv_groups + s.n_head * s.scratch.chunks;
  const size_t max_x = context->limits().max_workgroups_per_dimension;
  return prepared<kernels::decode_qkv_attention>(
      *context, variant(a.weight, options),
      {.k = u32(width),
       .n8 = u32(3 * width / 8),
       .tx = tx,
       .kv_groups = u32(kv_groups),
       .head_dim = u32(s.head_dim),
       .n_head = u32(s.n_head),
       .n_ctx = u32(s.n_ctx),
       .chunks = u32(s.scratch.chunks),
       .eps = a.eps,
       .scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim)),
       .strips = in_strips(a.weight),
       .scores_at = u32(s.scratch.scores),
       .partials_at = u32(s.scratch.partials)},
      {a.step.range(), a.x.range(), a.ln.range(), product_weights(a.weight), a.bias.range(),
       a.k_cache.range(), a.v_cache.range(), a.scratch.range()},
      {u32(std::min(groups, max_x)), u32((groups + max_x - 1) / max_x)});
}

Bound attention_output(const AttentionOutput& a, const Options& options) {
  require_step(a.step);
  const size_t width = a.x.numel();
  require_vector("x", a.x, width);
  const AttentionShape s = attention_shape(a.k_cache, a.v_cache, a.scratch, width);
  require(a.patterns.rank() == 3 && a.patterns.dim(1) == s.n_head && a.patterns.dim(2) == s.n_ctx &&
              a.layer < a.patterns.dim(0),
          "patterns must be [n_layer, n_head, n_ctx] with a row for layer " +
              std::to_string(a.layer) + ", got " + a.patterns.describe());
  require_vector("bias", a.bias, width);
  require_product_weight(a.weight, width, width);
  gpu::Context* context = context_of(
      {&a.step, &a.scratch, &a.k_cache, &a.v_cache, &a.weight, &a.bias, &a.patterns, &a.x});
  if (!context) return bind_cpu([a] { reference::attention_output(a); });
  const size_t n8 = width / 8;
  const uint32_t tx = column_threads(n8, options);
  return prepared<kernels::decode_attention_output>(
      *context, variant(a.weight, options),
      {.k = u32(width),
       .n8 = u32(n8),
       .tx = tx,
       .head_dim = u32(s.head_dim),
       .n_ctx = u32(s.n_ctx),
       .chunks = u32(s.scratch.chunks),
       .layer = u32(a.layer),
       .n_head = u32(s.n_head),
       .strips = in_strips(a.weight),
       .scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim)),
       .scores_at = u32(s.scratch.scores),
       .partials_at = u32(s.scratch.partials)},
      {a.step.range(), a.scratch.range(), a.k_cache.range(), a.v_cache.range(),
       product_weights(a.weight), a.bias.range(), a.patterns.range(), a.x.range()},
      product_groups(n8, tx));
}

Bound mlp_up(const MlpUp& a, const Options& options, const Warm& warm) {
  const size_t width = a.x.numel(), hidden = a.h.numel();
  require_vector("ln", a.ln, 2 * width);
  require_vector("bias", a.bias, hidden);
  require_vector("h", a.h, hidden);
  require_product_weight(a.weight, width, hidden);
  require(width <= 2048, "widths past 2048 are not supported");
  gpu::Context* context = context_of({&a.x, &a.ln, &a.weight, &a.bias, &a.h});
  if (!context) return bind_cpu([a] { reference::mlp_up(a); });
  const size_t n8 = hidden / 8;
  const uint32_t tx = column_threads(n8, options);
  const WarmPlan w = plan_warm(warm, a.x);
  return prepared<kernels::decode_mlp_up>(
      *context, variant(a.weight, options),
      {.k = u32(width), .n8 = u32(n8), .tx = tx, .eps = a.eps, .strips = in_strips(a.weight)},
      {a.x.range(), a.ln.range(), product_weights(a.weight), a.bias.range(), a.h.range(),
       w.weights.range(), w.sink.range()},
      product_groups(n8, tx, w.workgroups));
}

Bound mlp_down(const MlpDown& a, const Options& options, const Warm& warm) {
  const size_t width = a.x.numel(), hidden = a.h.numel();
  require_vector("bias", a.bias, width);
  require_product_weight(a.weight, hidden, width);
  gpu::Context* context = context_of({&a.h, &a.weight, &a.bias, &a.x});
  if (!context) return bind_cpu([a] { reference::mlp_down(a); });
  const size_t n8 = width / 8;
  const uint32_t tx = column_threads(n8, options);
  const WarmPlan w = plan_warm(warm, a.h);
  return prepared<kernels::decode_mlp_down>(
      *context, variant(a.weight, options),
      {.k = u32(hidden), .n8 = u32(n8), .tx = tx, .strips = in_strips(a.weight)},
      {a.h.range(), product_weights(a.weight), a.bias.range(), a.x.range(), w.weights.range(),
       w.sink.range()},
      product_groups(n8, tx, w.workgroups));
}

Bound lm_head(const LmHead& a, const Options& options) {
  const size_t width = a.x.numel(), vocab = a.logits.numel();
  const size_t groups = (vocab + kHeadRows - 1) / kHeadRows;
  require(width <= 2048, "widths past 2048 are not supported");
  require_vector("ln", a.ln, 2 * width);
  require_vector("logits", a.logits, vocab);
  require_weight("wte", a.wte, vocab, width);
  require(
      a.candidates.dtype() == DType::u32 && a.candidates.numel() == 3 * groups,
      "candidates must be u32 [" + std::to_string(groups) + ", 3], got " + a.candidates.describe());
  gpu::Context* context = context_of({&a.x, &a.ln, &a.wte, &a.logits, &a.candidates});
  if (!context) return bind_cpu([a] { reference::lm_head(a); });
  const size_t max_x = context->limits().max_workgroups_per_dimension;
  return prepared<kernels::decode_lm_head>(
      *context, variant(a.wte, options),
      {.width8 = u32(width / 8), .vocab = u32(vocab), .eps = a.eps},
      {a.x.range(), a.ln.range(), a.wte.range(), a.logits.range(), a.candidates.range()},
      {u32(std::min(groups, max_x)), u32((groups + max_x - 1) / max_x)});
}

Bound argmax(const Argmax& a, const Options& options) {
  require_step(a.step);
  const size_t width = a.x.numel();
  require(a.candidates.dtype() == DType::u32 && a.candidates.numel() % 3 == 0,
          "candidates must be u32 [groups, 3], got " + a.candidates.describe());
  require_weight("wte", a.wte, a.wte.dim(0), width);
  require(a.wpe.dtype() == DType::f32 && a.wpe.rank() == 2 && a.wpe.dim(1) == width,
          "wpe must be f32 [positions, " + std::to_string(width) + "], got " + a.wpe.describe());
  require_vector("x", a.x, width);
  gpu::Context* context = context_of({&a.candidates, &a.wte, &a.wpe, &a.step, &a.x});
  if (!context) return bind_cpu([a] { reference::argmax(a); });
  return prepared<kernels::decode_argmax>(
      *context, variant(a.wte, options),
      {.candidates = u32(a.candidates.numel() / 3),
       .width = u32(width),
       .n_ctx = u32(a.wpe.dim(0))},
      {a.candidates.range(), a.wte.range(), a.wpe.range(), a.step.range(), a.x.range()}, {1});
}

}  // namespace wgpt::ops::decode
