// A step trace on the host: finding captures by name, and the top-n next tokens.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "wgpt/probe.h"

namespace wgpt::model {

std::string hook_name(size_t layer, std::string_view hook) {
  return "blocks." + std::to_string(layer) + "." + std::string(hook);
}

const Capture* StepTrace::find(std::string_view name) const {
  for (const Capture& capture : captures) {
    if (capture.name == name) return &capture;
  }
  return nullptr;
}

const Capture& StepTrace::at(std::string_view name) const {
  const Capture* capture = find(name);
  if (!capture) throw Error("the step trace has no capture '" + std::string(name) + "'");
  return *capture;
}

std::span<const float> StepTrace::newest_attention(size_t layer, size_t head) const {
  const Capture& pattern = at(hook_name(layer, "attn.hook_pattern"));
  if (head >= n_head) {
    throw Error("head " + std::to_string(head) + " of " + std::to_string(n_head) + " asked for");
  }
  // [H, q, kv]: the newest position is row q − 1 of each head.
  const size_t row = (head * q_len + q_len - 1) * kv_len;
  return std::span<const float>(pattern.values).subspan(row, kv_len);
}

std::vector<TopToken> top_tokens(std::span<const float> logits, size_t n) {
  n = std::min(n, logits.size());
  if (n == 0) return {};
  std::vector<uint32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0u);
  std::partial_sort(order.begin(), order.begin() + static_cast<ptrdiff_t>(n), order.end(),
                    [&](uint32_t a, uint32_t b) {
                      return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
                    });
  // Softmax over the whole vocabulary in double, shifted by the maximum.
  const double top = logits[order[0]];
  double total = 0;
  for (float logit : logits) total += std::exp(static_cast<double>(logit) - top);
  std::vector<TopToken> result;
  result.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const double p = std::exp(static_cast<double>(logits[order[i]]) - top) / total;
    result.push_back({order[i], static_cast<float>(p)});
  }
  return result;
}

}  // namespace wgpt::model
