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
// `threads` reads one word of 8 sectors of 32 bytes. Without weights to warm there are none; the
// op's own `input` (read) fills the weights' binding and a word of its own the sink's (a written
// binding may not alias another).
struct WarmPlan {
  Tensor weights, sink;
  uint32_t workgroups = 0;
};

WarmPlan plan_warm(const Warm& warm, size_t threads, const Tensor& input) {
  if (!warm.weights.is_gpu()) {
    return {input, Tensor::empty_gpu(input.context(), {1}, DType::u32), 0};
  }
  require(warm.weights.context() == input.context() && warm.sink.context() == input.context(),
          "the weights to warm and their sink must be on the op's GPU");
  require(warm.sink.dtype() == DType::u32 && warm.sink.numel() >= 256,
          "the warm sink must be u32 of at least 256 elements, got " + warm.sink.describe());
  constexpr size_t kSectorBytes = 32, kSectorsPerThread = 8;
  const size_t per_workgroup = kSectorBytes * kSectorsPerThread * threads;
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

Bound qkv(const Qkv& a, const Options& options) {
  require_step(a.step);
  const size_t width = a.x.numel();
  require(a.k_cache.rank() == 3 && a.k_cache.shape() == a.v_cache.shape() &&
              a.k_cache.dim(0) * a.k_cache.dim(2) == width,
          "the caches must be [n_head, n_ctx, head_dim] with n_head · head_dim = " +
              std::to_string(width) + ", got " + a.k_cache.describe());
  require_vector("x", a.x, width);
  require_vector("q", a.q, width);
  require_vector("ln", a.ln, 2 * width);
  require_vector("bias", a.bias, 3 * width);
  require_product_weight(a.weight, width, 3 * width);
  gpu::Context* context =
      context_of({&a.step, &a.x, &a.ln, &a.weight, &a.bias, &a.q, &a.k_cache, &a.v_cache});
  if (!context) return bind_cpu([a] { reference::qkv(a); });
  const size_t n8 = 3 * width / 8;
  const uint32_t tx = column_threads(n8, options);
  return prepared<kernels::decode_qkv>(
      *context, variant(a.weight, options),
      {.k = u32(width),
       .n8 = u32(n8),
       .tx = tx,
       .head_dim = u32(a.k_cache.dim(2)),
       .n_ctx = u32(a.k_cache.dim(1)),
       .eps = a.eps,
       .strips = in_strips(a.weight)},
      {a.step.range(), a.x.range(), a.ln.range(), product_weights(a.weight), a.bias.range(),
       a.q.range(), a.k_cache.range(), a.v_cache.range()},
      product_groups(n8, tx));
}

Bound attention_chunks(const AttentionChunks& a, const Options& options, const Warm& warm) {
  require_step(a.step);
  const size_t n_head = a.k_cache.dim(0), n_ctx = a.k_cache.dim(1), head_dim = a.k_cache.dim(2);
  const size_t chunks = (n_ctx + kChunk - 1) / kChunk;
  require(head_dim >= 4 && head_dim <= 256 && (head_dim & (head_dim - 1)) == 0,
          "head_dim must be a power of two from 4 to 256, got " + std::to_string(head_dim));
  require(a.v_cache.shape() == a.k_cache.shape(), "the caches differ in shape");
  require_vector("q", a.q, n_head * head_dim);
  require_vector("scores", a.scores, n_head * n_ctx);
  require_vector("partials", a.partials, n_head * chunks * (head_dim + 2));
  gpu::Context* context =
      context_of({&a.step, &a.q, &a.k_cache, &a.v_cache, &a.scores, &a.partials});
  if (!context) return bind_cpu([a] { reference::attention_chunks(a); });
  const WarmPlan w = plan_warm(warm, 64, a.q);
  return prepared<kernels::decode_attention_chunk>(
      *context, {.subgroups = options.subgroups},
      {.head_dim = u32(head_dim),
       .n_ctx = u32(n_ctx),
       .scale = 1.0f / std::sqrt(static_cast<float>(head_dim)),
       .chunks = u32(chunks)},
      {a.step.range(), a.q.range(), a.k_cache.range(), a.v_cache.range(), a.scores.range(),
       a.partials.range(), w.weights.range(), w.sink.range()},
      {u32(n_head), u32(chunks + (w.workgroups + n_head - 1) / n_head)});
}

Bound attention_output(const AttentionOutput& a, const Options& options) {
  require_step(a.step);
  require(a.partials.rank() == 3 && a.scores.rank() == 2 && a.patterns.rank() == 3,
          "partials must be [n_head, chunks, head_dim + 2], scores [n_head, n_ctx] and patterns "
          "[n_layer, n_head, n_ctx]");
  const size_t n_head = a.partials.dim(0), chunks = a.partials.dim(1);
  const size_t head_dim = a.partials.dim(2) - 2, width = n_head * head_dim;
  const size_t n_ctx = a.scores.dim(1);
  require(n_head <= 64 && a.scores.dim(0) == n_head && chunks == (n_ctx + kChunk - 1) / kChunk &&
              a.patterns.dim(1) == n_head && a.patterns.dim(2) == n_ctx &&
              a.layer < a.patterns.dim(0),
          "partials, scores and patterns disagree on n_head, n_ctx or the layer");
  require_vector("x", a.x, width);
  require_vector("bias", a.bias, width);
  require_product_weight(a.weight, width, width);
  gpu::Context* context =
      context_of({&a.step, &a.partials, &a.scores, &a.weight, &a.bias, &a.patterns, &a.x});
  if (!context) return bind_cpu([a] { reference::attention_output(a); });
  const size_t n8 = width / 8;
  const uint32_t tx = column_threads(n8, options);
  return prepared<kernels::decode_attention_output>(
      *context, variant(a.weight, options),
      {.k = u32(width),
       .n8 = u32(n8),
       .tx = tx,
       .head_dim = u32(head_dim),
       .n_ctx = u32(n_ctx),
       .chunks = u32(chunks),
       .layer = u32(a.layer),
       .n_head = u32(n_head),
       .strips = in_strips(a.weight)},
      {a.step.range(), a.partials.range(), a.scores.range(), product_weights(a.weight),
       a.bias.range(), a.patterns.range(), a.x.range()},
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
  const WarmPlan w = plan_warm(warm, 256, a.x);
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
  const WarmPlan w = plan_warm(warm, 256, a.h);
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
