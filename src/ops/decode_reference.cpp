// The CPU references of the decode ops (include/wgpt/decode_ops.h): plain loops, the definitions
// the decode_*.wgsl kernels are held to.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/op_support.h"
#include "wgpt/decode_ops.h"
#include "wgpt/io.h"

namespace wgpt::ops::decode::reference {
namespace {

// A vector's values, widened from a packed dtype when needed.
std::vector<float> values_of(const Tensor& t) { return t.to_floats(); }

std::vector<float> layernorm(std::span<const float> x, std::span<const float> ln, float eps) {
  const size_t width = x.size();
  double sum = 0;
  for (float v : x) sum += v;
  const double mean = sum / static_cast<double>(width);
  double squares = 0;
  for (float v : x) squares += (v - mean) * (v - mean);
  const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(width) + eps);
  std::vector<float> out(width);
  for (size_t i = 0; i < width; ++i) {
    out[i] = static_cast<float>((x[i] - mean) * rstd * ln[i] + ln[width + i]);
  }
  return out;
}

// input · weight + bias, weight [input.size(), bias.size()].
std::vector<float> product(std::span<const float> input, const Tensor& weight,
                           std::span<const float> bias) {
  const std::vector<float> w = values_of(weight);
  const size_t n = bias.size();
  std::vector<float> out(n);
  for (size_t j = 0; j < n; ++j) {
    double sum = 0;
    for (size_t i = 0; i < input.size(); ++i) sum += static_cast<double>(input[i]) * w[i * n + j];
    out[j] = static_cast<float>(sum) + bias[j];
  }
  return out;
}

float gelu(float v) {
  return 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

// Whether (value, index) beats (best_value, best_index): larger value, lower index on ties.
bool better(float value, uint32_t index, float best_value, uint32_t best_index) {
  return best_index == std::numeric_limits<uint32_t>::max() || value > best_value ||
         (value == best_value && index < best_index);
}

}  // namespace

void embed(const Tensor& step, const Tensor& wte, const Tensor& wpe, const Tensor& x) {
  const auto state = step.u32s();
  const size_t width = x.numel();
  const std::vector<float> table = values_of(wte);
  const auto positions = wpe.floats();
  const auto out = x.floats();
  for (size_t i = 0; i < width; ++i) {
    out[i] = table[state[1] * width + i] + positions[state[0] * width + i];
  }
}

void qkv(const Qkv& a) {
  const size_t width = a.x.numel(), n_head = a.k_cache.dim(0), n_ctx = a.k_cache.dim(1);
  const size_t head_dim = a.k_cache.dim(2), position = a.step.u32s()[0];
  const std::vector<float> y =
      product(layernorm(a.x.floats(), a.ln.floats(), a.eps), a.weight, a.bias.floats());
  const auto q = a.q.floats(), keys = a.k_cache.floats(), values = a.v_cache.floats();
  std::copy(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(width), q.begin());
  for (size_t h = 0; h < n_head; ++h) {
    for (size_t d = 0; d < head_dim; ++d) {
      const size_t cached = (h * n_ctx + position) * head_dim + d;
      keys[cached] = y[width + h * head_dim + d];
      values[cached] = y[2 * width + h * head_dim + d];
    }
  }
}

void attention_chunks(const AttentionChunks& a) {
  const size_t n_head = a.k_cache.dim(0), n_ctx = a.k_cache.dim(1), head_dim = a.k_cache.dim(2);
  const size_t kv_len = a.step.u32s()[0] + 1, chunks = a.partials.dim(1);
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const auto q = a.q.floats(), keys = a.k_cache.floats(), values = a.v_cache.floats();
  const auto scores = a.scores.floats(), partials = a.partials.floats();
  for (size_t h = 0; h < n_head; ++h) {
    for (size_t c = 0; c * kChunk < kv_len; ++c) {
      const size_t first = c * kChunk, last = std::min(kv_len, first + kChunk);
      float largest = -std::numeric_limits<float>::max();
      for (size_t j = first; j < last; ++j) {
        double dot = 0;
        for (size_t d = 0; d < head_dim; ++d) {
          dot += static_cast<double>(q[h * head_dim + d]) * keys[(h * n_ctx + j) * head_dim + d];
        }
        scores[h * n_ctx + j] = static_cast<float>(dot) * scale;
        largest = std::max(largest, scores[h * n_ctx + j]);
      }
      float* out = &partials[(h * chunks + c) * (head_dim + 2)];
      double total = 0;
      std::vector<double> sum(head_dim, 0.0);
      for (size_t j = first; j < last; ++j) {
        const double e = std::exp(static_cast<double>(scores[h * n_ctx + j]) - largest);
        total += e;
        for (size_t d = 0; d < head_dim; ++d) sum[d] += e * values[(h * n_ctx + j) * head_dim + d];
      }
      out[0] = largest;
      out[1] = static_cast<float>(total);
      for (size_t d = 0; d < head_dim; ++d) out[2 + d] = static_cast<float>(sum[d]);
    }
  }
}

void attention_output(const AttentionOutput& a) {
  const size_t n_head = a.partials.dim(0), chunks = a.partials.dim(1);
  const size_t head_dim = a.partials.dim(2) - 2, n_ctx = a.scores.dim(1);
  const size_t kv_len = a.step.u32s()[0] + 1, used = (kv_len + kChunk - 1) / kChunk;
  const auto partials = a.partials.floats(), scores = a.scores.floats();
  const auto patterns = a.patterns.floats();
  std::vector<float> z(n_head * head_dim);
  for (size_t h = 0; h < n_head; ++h) {
    const float* first = &partials[h * chunks * (head_dim + 2)];
    float largest = -std::numeric_limits<float>::max();
    for (size_t c = 0; c < used; ++c) largest = std::max(largest, first[c * (head_dim + 2)]);
    double total = 0;
    std::vector<double> sum(head_dim, 0.0);
    for (size_t c = 0; c < used; ++c) {
      const float* chunk = first + c * (head_dim + 2);
      const double factor = std::exp(static_cast<double>(chunk[0]) - largest);
      total += chunk[1] * factor;
      for (size_t d = 0; d < head_dim; ++d) sum[d] += chunk[2 + d] * factor;
    }
    for (size_t d = 0; d < head_dim; ++d) z[h * head_dim + d] = static_cast<float>(sum[d] / total);
    for (size_t j = 0; j < kv_len; ++j) {
      patterns[(a.layer * n_head + h) * kv_len + j] = static_cast<float>(
          std::exp(static_cast<double>(scores[h * n_ctx + j]) - largest) / total);
    }
  }
  const std::vector<float> y = product(z, a.weight, a.bias.floats());
  const auto x = a.x.floats();
  for (size_t j = 0; j < x.size(); ++j) x[j] += y[j];
}

void mlp_up(const MlpUp& a) {
  const std::vector<float> y =
      product(layernorm(a.x.floats(), a.ln.floats(), a.eps), a.weight, a.bias.floats());
  const auto h = a.h.floats();
  for (size_t j = 0; j < h.size(); ++j) h[j] = gelu(y[j]);
}

void mlp_down(const MlpDown& a) {
  const std::vector<float> y = product(a.h.floats(), a.weight, a.bias.floats());
  const auto x = a.x.floats();
  for (size_t j = 0; j < x.size(); ++j) x[j] += y[j];
}

void lm_head(const LmHead& a) {
  const size_t width = a.x.numel(), vocab = a.logits.numel();
  const std::vector<float> normalized = layernorm(a.x.floats(), a.ln.floats(), a.eps);
  const std::vector<float> table = values_of(a.wte);
  const auto logits = a.logits.floats();
  const auto candidates = a.candidates.u32s();
  for (size_t v = 0; v < vocab; ++v) {
    double dot = 0;
    for (size_t i = 0; i < width; ++i) {
      dot += static_cast<double>(normalized[i]) * table[v * width + i];
    }
    logits[v] = static_cast<float>(dot);
  }
  for (size_t g = 0; g * kHeadRows < vocab; ++g) {
    const size_t first = g * kHeadRows, last = std::min(vocab, first + kHeadRows);
    float best = 0;
    uint32_t index = std::numeric_limits<uint32_t>::max();
    for (size_t v = first; v < last; ++v) {
      if (better(logits[v], static_cast<uint32_t>(v), best, index)) {
        best = logits[v];
        index = static_cast<uint32_t>(v);
      }
    }
    double total = 0;
    for (size_t v = first; v < last; ++v) total += std::exp(static_cast<double>(logits[v]) - best);
    candidates[3 * g] = io::f32_bits(best);
    candidates[3 * g + 1] = index;
    candidates[3 * g + 2] = io::f32_bits(static_cast<float>(total));
  }
}

void argmax(const Argmax& a) {
  const auto candidates = a.candidates.u32s();
  float best = 0;
  uint32_t token = std::numeric_limits<uint32_t>::max();
  for (size_t g = 0; g < candidates.size() / 3; ++g) {
    const float value = io::f32_from_bits(candidates[3 * g]);
    if (better(value, candidates[3 * g + 1], best, token)) {
      best = value;
      token = candidates[3 * g + 1];
    }
  }
  const auto state = a.step.u32s();
  state[0] += 1;
  state[1] = token;
  if (state[0] < a.wpe.dim(0)) embed(a.step, a.wte, a.wpe, a.x);
}

}  // namespace wgpt::ops::decode::reference
