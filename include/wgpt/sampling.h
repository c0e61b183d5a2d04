#pragma once
// Choosing the next token from a row of logits: greedy, temperature, top-k, top-p, min-p, the
// repetition / presence / frequency penalties over the last N tokens, and a logit-bias map. The
// definition is choose_token (plain loops on the host, the CPU reference); TokenSampler runs the
// same definition as kernels next to the LM head, so only the chosen token leaves the GPU.
//
// The definition, in order (llama.cpp's and HF's semantics where they agree):
//  1. a = logits + logit_bias (a bias of -inf bans a token).
//  2. Penalties over the window: the last penalty_last_n tokens of the context (the prompt and
//     what was generated). For each distinct token t of the window, seen c times in it:
//     a_t = a_t > 0 ? a_t · (1/repeat) : a_t · repeat, then a_t −= c · frequency + presence.
//  3. z = a · (1/temperature), the reciprocals rounded to f32 once (as the kernels take them).
//  4. Rank: descending z, ties by lower id (z compared as the order-preserving u32 of its bits,
//     so −0 ranks below +0).
//  5. Weights w = exp(z − max z) and their fixed-point form q = ⌊w · 2³¹⌋ (u32): every sum of
//     weights below is an exact integer sum, the same in any order (a token with w < 2⁻³¹ weighs
//     nothing, at most vocab · 2⁻³¹ of the largest weight in all).
//  6. top_k: the k best ranks (0, or k ≥ vocab, keeps all).
//  7. top_p: of those, the shortest prefix in rank order whose Σq reaches ⌈p ⊗ f32(Σq of the
//     top-k)⌉, with f32(x) = f32(x_hi) · 2³² ⊕ f32(x_lo) (HF: the token that crosses p is kept).
//  8. min_p: of those, the tokens with w ≥ min_p (w relative to the best token).
//  9. The draw: Q = Σq over the kept tokens, r = random_word(seed, n) with n the context's length
//     (the prompt and every token before this one), target = ⌊r · Q / 2³²⌋; the token is the first
//     kept id, in ascending id order, whose running Σq exceeds the target.
// Greedy decoding (greedy, or temperature 0) takes rank 0 of step 2's a: the argmax, first on ties.
//
// The random stream is counter-based: random_word(seed, n) = mix32(mix32(n ⊕ key_lo) ⊕ key_hi),
// mix32 = lowbias32, (key_hi, key_lo) = splitmix64's finalizer of seed + 0x9e3779b97f4a7c15. A
// draw depends only on the seed and the position it fills, so a run repeats on any backend, in
// any batch, natively and in the browser. Its u32 arithmetic is the same in C++ and WGSL.
//
// The CPU reference and the kernels compute the same integers from the same weights, so they
// choose the same token unless the weights they start from differ across a decision's edge:
// Choice::margin says how far the choice is from its nearest edge, as the relative change of
// the weights that would move a token across it. Logits that agree within δ give weights that
// agree within a relative e^{2δ} − 1 (≈ 2e-4 for the decode path's 1e-4), so the two backends
// choose the same token whenever margin > kSamplingTolerance.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "wgpt/model.h"

namespace wgpt::model {

struct SamplingOptions {
  bool greedy = false;          // argmax (after bias and penalties), first maximum on ties (as HF)
  float temperature = 1.0f;     // ≥ 0; 0 is greedy
  size_t top_k = 0;             // keep the k most likely tokens; 0 keeps all
  float top_p = 1.0f;           // (0, 1]: keep the smallest set whose probability reaches p
  float min_p = 0.0f;           // [0, 1]: keep tokens at least min_p times as likely as the best
  float repeat_penalty = 1.0f;  // > 0; 1 is off
  float presence_penalty = 0.0f;   // subtracted once from each token in the window
  float frequency_penalty = 0.0f;  // subtracted per occurrence in the window
  size_t penalty_last_n = 64;      // the window: the context's last n tokens (0: no penalties)
  std::map<uint32_t, float> logit_bias;  // added to a token's logit; -inf bans it
  uint64_t seed = 0;

  bool penalizes() const;
  // Whether anything changes the logits before the ranking: a bias or an active penalty.
  bool adjusts_logits() const;
  // Greedy decoding (greedy, or temperature 0).
  bool is_greedy() const { return greedy || temperature == 0.0f; }
};

// Throws wgpt::Error naming the option and its value when `options` cannot be used with a model
// of `config`: a temperature below 0 or not finite, top-p outside (0, 1], min-p outside [0, 1], a
// repeat penalty ≤ 0, penalties that are not finite, a penalty window larger than the context (when
// a penalty is on), a logit-bias id outside the vocabulary, a bias that is NaN or +inf, or biases
// that ban every token.
void validate(const SamplingOptions& options, const Config& config);

// The counter-based random stream: the u32 of draw n under `seed`.
uint32_t random_word(uint64_t seed, uint64_t n);

// The decisions' tolerance: the GPU and the CPU reference choose the same token whenever the
// reference's Choice::margin exceeds it (see the header comment).
inline constexpr double kSamplingTolerance = 1e-3;

struct Choice {
  uint32_t token = 0;
  // How far the choice is from changing: the smallest relative change of the kept weights (or of
  // a ranking gap, a p or min-p threshold) that would move a token across one of its edges. Large
  // for a clear choice; 0 for an exact tie.
  double margin = 0;
};

// The CPU reference: the token the definition above chooses from `logits` [vocab], given the
// `context` (the prompt and every token generated so far: its last penalty_last_n tokens are the
// penalty window, and its length is the draw's index). Throws on an empty row.
Choice choose_token(std::span<const float> logits, std::span<const uint32_t> context,
                    const SamplingOptions& options);

// The same definition on the GPU: kernels after the LM head that read a logits buffer and the
// decode step's state (u32 [position, token]: the token at `position` has just run) and write the
// chosen token and the next position into it, so the next step needs nothing from the host. The
// context's tokens live on the GPU (the window of the penalties): set once, then extended by every
// choice. Its kernels are prepared once (bind groups built at construction).
class TokenSampler {
 public:
  // `logits` [vocab] f32 and `step` u32 [2] on the model's context; `options` must be valid.
  TokenSampler(const Model& model, const SamplingOptions& options, const Tensor& logits,
               const Tensor& step);
  ~TokenSampler();
  TokenSampler(const TokenSampler&) = delete;
  TokenSampler& operator=(const TokenSampler&) = delete;

  // Writes the context (the prompt and what was generated, the last token the one at `position`
  // of the step state) and the step state [context.size() − 1, context.back()].
  void start(std::span<const uint32_t> context);
  // Records the kernels that choose the next token from the logits (in the caller's scope).
  void record();
  // Dispatches per choice (for tests and counters).
  size_t dispatches() const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace wgpt::model
