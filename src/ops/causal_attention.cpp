// causal_attention and packed_causal_attention: a prompt's attention in one pass, its keys and
// values read from a KV cache or from the projection itself. The CPU reference is the definition
// (the softmax of each row in double); the kernel (flash_attention.wgsl, or a form for adapters
// with subgroups: causal_attention_kernel) keeps it online. Both ops describe where the keys sit
// by the same strides, so one reference and one kernel serve them.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr size_t kKernelHeadDim = 64;  // flash_attention.wgsl's
constexpr size_t kKernelRows = 64;     // query rows per workgroup
constexpr size_t kVec4 = 4;

// Where the keys of the attention sit, in floats: key j of head h of sequence s at key_first +
// s · sequence + h · head + j · row of its buffer, its value at value_first + the same.
struct KeyLayout {
  size_t row, head, sequence, key_first, value_first;
};

// Query rows [s·t, s·t + t) of qkv [sequences·t, 3C] against keys [0, offset + i] of sequence s.
struct Attention {
  size_t sequences, t, n_head, head_dim, offset;
  float scale;
  KeyLayout keys;
};

void attention_cpu(const Attention& a, std::span<const float> qkv, std::span<const float> keys,
                   std::span<const float> values, std::span<float> out) {
  const size_t c = a.n_head * a.head_dim;
  std::vector<double> weights(a.offset + a.t);
  for (size_t s = 0; s < a.sequences; ++s) {
    for (size_t head = 0; head < a.n_head; ++head) {
      const size_t first = s * a.keys.sequence + head * a.keys.head;
      const float* k = keys.data() + a.keys.key_first + first;
      const float* v = values.data() + a.keys.value_first + first;
      for (size_t i = 0; i < a.t; ++i) {
        const size_t row = s * a.t + i;
        const float* q = qkv.data() + row * 3 * c + head * a.head_dim;
        const size_t visible = a.offset + i + 1;
        double largest = -INFINITY;
        for (size_t j = 0; j < visible; ++j) {
          double score = 0;
          for (size_t e = 0; e < a.head_dim; ++e) score += double(q[e]) * k[j * a.keys.row + e];
          weights[j] = score * a.scale;
          largest = std::max(largest, weights[j]);
        }
        double sum = 0;
        for (size_t j = 0; j < visible; ++j) sum += weights[j] = std::exp(weights[j] - largest);
        for (size_t e = 0; e < a.head_dim; ++e) {
          double acc = 0;
          for (size_t j = 0; j < visible; ++j) acc += weights[j] * v[j * a.keys.row + e];
          out[row * c + head * a.head_dim + e] = static_cast<float>(acc / sum);
        }
      }
    }
  }
}

uint32_t vec4s(std::string_view op, size_t floats) { return detail::word(op, floats / kVec4); }

void attention_gpu(std::string_view op, gpu::Context& context, const Attention& a,
                   const Tensor& qkv, const Tensor& keys, const Tensor& values, const Tensor& out) {
  if (a.head_dim != kKernelHeadDim) {
    detail::fail(op, "the GPU kernel takes heads of " + std::to_string(kKernelHeadDim) +
                         " values, got " + std::to_string(a.head_dim));
  }
  std::array<uint32_t, 9> params = {
      detail::word(op, a.t),      detail::word(op, a.n_head),  detail::word(op, a.offset),
      io::f32_bits(a.scale),      vec4s(op, a.keys.row),       vec4s(op, a.keys.head),
      vec4s(op, a.keys.sequence), vec4s(op, a.keys.key_first), vec4s(op, a.keys.value_first)};
  gpu::Workgroups grid{detail::word(op, a.n_head),
                       detail::word(op, (a.t + kKernelRows - 1) / kKernelRows),
                       detail::word(op, a.sequences)};
  context.dispatch(causal_attention_kernel(context), params,
                   detail::Bindings(op, {qkv, keys, values}, {out}).ranges(), grid);
}

}  // namespace

std::string_view causal_attention_kernel(gpu::Context& context) {
  using gpu::PromptAttention;
  const PromptAttention form = context.prompt_attention();
  if (form == PromptAttention::plain) return "flash_attention";
  // The pairs form reads workgroup memory half as often as the plain one.
  if (form == PromptAttention::automatic) {
    return context.subgroups_consecutive() ? "flash_attention_pairs" : "flash_attention";
  }
  if (!context.subgroups_consecutive()) {
    throw Error("the prompt attention's " + std::string(gpu::to_string(form)) +
                " form needs subgroups of 32 consecutive lanes, which " +
                context.adapter_info().device +
                " lacks (WGPT_PROMPT_ATTENTION=auto or plain runs here)");
  }
  return form == PromptAttention::pairs ? "flash_attention_pairs" : "flash_attention_quarters";
}

bool causal_attention_supported(const Tensor& k_cache) {
  return !k_cache.context() || (k_cache.rank() == 3 && k_cache.dim(2) == kKernelHeadDim);
}

Tensor causal_attention(const Tensor& qkv, const Tensor& k_cache, const Tensor& v_cache,
                        size_t offset, float scale) {
  constexpr std::string_view kOp = "causal_attention";
  const detail::QkvCaches d = detail::check_qkv_caches(kOp, qkv, k_cache, v_cache, offset);
  const auto& context = detail::common_context(kOp, {&qkv, &k_cache, &v_cache});
  const Attention a{
      1, d.t, d.n_head, d.head_dim, offset, scale, {d.head_dim, d.n_ctx * d.head_dim, 0, 0, 0}};
  Tensor out = detail::new_output(qkv, {d.t, d.c});
  if (!context) {
    attention_cpu(a, qkv.floats(), k_cache.floats(), v_cache.floats(), out.floats());
  } else {
    attention_gpu(kOp, *context, a, qkv, k_cache, v_cache, out);
  }
  return out;
}

bool packed_causal_attention_supported(const gpu::Context* context, size_t head_dim) {
  return !context || head_dim == kKernelHeadDim;
}

Tensor packed_causal_attention(const Tensor& qkv, size_t sequences, size_t n_head, float scale) {
  constexpr std::string_view kOp = "packed_causal_attention";
  detail::require_dtype(kOp, "qkv", qkv, DType::f32);
  detail::require_rank(kOp, "qkv", qkv, 2);
  const size_t rows = qkv.dim(0), c = qkv.dim(1) / 3;
  if (sequences == 0 || rows == 0 || rows % sequences != 0 || n_head == 0 || qkv.dim(1) % 3 != 0 ||
      c % n_head != 0) {
    detail::fail(kOp, "qkv " + qkv.describe() + " does not split into " +
                          std::to_string(sequences) + " sequences of " + std::to_string(n_head) +
                          " heads");
  }
  const auto& context = detail::common_context(kOp, {&qkv});
  const size_t t = rows / sequences, head_dim = c / n_head;
  // Keys and values are the projection's second and third blocks of C, row by row.
  const Attention a{
      sequences, t, n_head, head_dim, 0, scale, {3 * c, head_dim, t * 3 * c, c, 2 * c}};
  Tensor out = detail::new_output(qkv, {rows, c});
  if (!context) {
    attention_cpu(a, qkv.floats(), qkv.floats(), qkv.floats(), out.floats());
  } else {
    attention_gpu(kOp, *context, a, qkv, qkv, qkv, out);
  }
  return out;
}

}  // namespace wgpt::ops
