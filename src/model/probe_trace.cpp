// A step trace on the host: finding captures by name, and the top-n next tokens.
#include <algorithm>
#include <cmath>

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

namespace {

// The ids of the n largest logits, largest first, ties by lower id: one pass that keeps the n
// best seen so far (a later equal logit has a higher id, so only a strictly larger one enters).
std::vector<uint32_t> largest_ids(std::span<const float> logits, size_t n) {
  std::vector<uint32_t> best;
  best.reserve(n + 1);
  for (uint32_t id = 0; id < logits.size(); ++id) {
    if (best.size() == n && !(logits[id] > logits[best.back()])) continue;
    auto at = std::upper_bound(best.begin(), best.end(), id, [&](uint32_t a, uint32_t b) {
      return logits[a] > logits[b];  // a before b: strictly larger; equal ones keep id order
    });
    best.insert(at, id);
    if (best.size() > n) best.pop_back();
  }
  return best;
}

}  // namespace

std::vector<TopToken> top_tokens(std::span<const float> logits, size_t n, float largest,
                                 double normaliser) {
  n = std::min(n, logits.size());
  std::vector<TopToken> result;
  for (uint32_t id : largest_ids(logits, n)) {
    const double p = std::exp(static_cast<double>(logits[id]) - largest) / normaliser;
    result.push_back({id, static_cast<float>(p)});
  }
  return result;
}

std::vector<TopToken> top_tokens(std::span<const float> logits, size_t n) {
  if (std::min(n, logits.size()) == 0) return {};
  // Softmax over the whole vocabulary in double, shifted by the maximum.
  const float largest = *std::max_element(logits.begin(), logits.end());
  double normaliser = 0;
  for (float logit : logits) normaliser += std::exp(static_cast<double>(logit) - largest);
  return top_tokens(logits, n, largest, normaliser);
}

}  // namespace wgpt::model
