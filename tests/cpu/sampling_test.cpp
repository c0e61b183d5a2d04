// The sampling reference (model::choose_token): each mode's draws follow the distribution its
// definition gives (chi-square over many draws on a small vocabulary, the expected probabilities
// computed here independently, in double precision); margins; and the options' checks.
#include "wgpt/sampling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace wgpt::model {
namespace {

const std::vector<float> kLogits = {2.0f, 1.6f, 1.1f, 0.7f, 0.2f, -0.4f, -1.0f, -2.5f};

// The definition's distribution, written out plainly: bias, penalties over the window,
// temperature, then top-k, top-p over the top-k and min-p, renormalised.
std::vector<double> expected_distribution(const std::vector<float>& logits,
                                          const std::vector<uint32_t>& window,
                                          const SamplingOptions& o) {
  const size_t n = logits.size();
  std::vector<double> a(logits.begin(), logits.end());
  for (const auto& [id, bias] : o.logit_bias) a[id] += bias;
  if (o.penalizes()) {
    std::vector<int> count(n, 0);
    for (uint32_t t : window) ++count[t];
    for (size_t t = 0; t < n; ++t) {
      if (count[t] == 0) continue;
      a[t] = a[t] > 0 ? a[t] / o.repeat_penalty : a[t] * o.repeat_penalty;
      a[t] -= count[t] * o.frequency_penalty + o.presence_penalty;
    }
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return a[x] > a[y]; });
  const double largest = a[order[0]];
  std::vector<double> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = std::exp((a[i] - largest) / o.temperature);
  size_t keep = o.top_k == 0 ? n : std::min(o.top_k, n);
  double kept_total = 0;
  for (size_t r = 0; r < keep; ++r) kept_total += w[order[r]];
  double running = 0;
  for (size_t r = 0; r < keep; ++r) {
    running += w[order[r]];
    if (running >= o.top_p * kept_total) {
      keep = r + 1;
      break;
    }
  }
  std::vector<double> p(n, 0.0);
  double total = 0;
  for (size_t r = 0; r < keep; ++r) {
    if (w[order[r]] >= o.min_p) total += p[order[r]] = w[order[r]];
  }
  for (double& x : p) x /= total;
  return p;
}

// The χ² statistic's upper 1e-4 quantile for `df` degrees of freedom (Wilson–Hilferty).
double chi_square_limit(size_t df) {
  const double z = 3.719;  // the standard normal's upper 1e-4 quantile
  const double k = static_cast<double>(df);
  return k * std::pow(1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k)), 3);
}

// Draws `draws` tokens, one per draw index (each context ends with `window`, after filler that
// grows by one token per draw), and checks their frequencies against the definition's.
void expect_distribution(const SamplingOptions& options, const std::vector<uint32_t>& window,
                         size_t draws = 20000) {
  const std::vector<double> p = expected_distribution(kLogits, window, options);
  std::vector<size_t> seen(kLogits.size(), 0);
  std::vector<uint32_t> context(window);
  for (size_t n = 0; n < draws; ++n) {
    ++seen.at(choose_token(kLogits, context, options).token);
    context.insert(context.begin(), 7);  // outside the window: only the draw index changes
  }
  double chi_square = 0;
  size_t categories = 0;
  for (size_t t = 0; t < p.size(); ++t) {
    if (p[t] == 0) {
      EXPECT_EQ(seen[t], 0u) << "token " << t << " is outside the kept set";
      continue;
    }
    const double expected = p[t] * static_cast<double>(draws);
    chi_square += (seen[t] - expected) * (seen[t] - expected) / expected;
    ++categories;
  }
  ASSERT_GE(categories, 2u) << "a mode with one possible token tests nothing";
  EXPECT_LT(chi_square, chi_square_limit(categories - 1)) << categories << " kept tokens";
}

TEST(Sampling, TemperatureFollowsTheSoftmax) {
  expect_distribution({.temperature = 0.7f, .seed = 1}, {});
  expect_distribution({.temperature = 1.8f, .seed = 2}, {});
}

TEST(Sampling, TopKKeepsTheKBest) { expect_distribution({.top_k = 3, .seed = 3}, {}); }

TEST(Sampling, TopPKeepsTheShortestPrefixReachingP) {
  expect_distribution({.top_p = 0.8f, .seed = 4}, {});
  expect_distribution({.temperature = 1.3f, .top_k = 5, .top_p = 0.9f, .seed = 5}, {});
}

TEST(Sampling, MinPKeepsTokensNearTheBest) {
  expect_distribution({.temperature = 1.5f, .min_p = 0.2f, .seed = 6}, {});
}

TEST(Sampling, PenaltiesAndBiasChangeTheLogitsOfTheWindowsTokens) {
  const SamplingOptions options{.repeat_penalty = 1.5f,
                                .presence_penalty = 0.3f,
                                .frequency_penalty = 0.4f,
                                .penalty_last_n = 4,
                                .logit_bias = {{1, 1.0f}, {3, -INFINITY}},
                                .seed = 7};
  // Token 0 (positive logit) twice, 2 once, 5 (negative logit) once.
  expect_distribution(options, {0, 2, 0, 5});
}

TEST(Sampling, GreedyTakesTheBestAdjustedLogit) {
  std::vector<uint32_t> context;
  EXPECT_EQ(choose_token(kLogits, context, {.greedy = true}).token, 0u);
  EXPECT_EQ(choose_token(kLogits, context, {.temperature = 0.0f}).token, 0u) << "temperature 0";
  EXPECT_EQ(choose_token(kLogits, context, {.greedy = true, .logit_bias = {{4, 2.0f}}}).token, 4u);
  context = {0, 0};
  EXPECT_EQ(choose_token(kLogits, context, {.greedy = true, .repeat_penalty = 2.0f}).token, 1u)
      << "2.0 / 2 = 1.0 < 1.6";
  const std::vector<float> tied = {0.5f, 3.0f, 3.0f};
  EXPECT_EQ(choose_token(tied, {}, {.greedy = true}).token, 1u) << "first maximum on ties";
}

TEST(Sampling, TheSameSeedAndPositionGiveTheSameToken) {
  const std::vector<uint32_t> context = {1, 2, 3};
  const SamplingOptions options{.seed = 42};
  const uint32_t first = choose_token(kLogits, context, options).token;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(choose_token(kLogits, context, options).token, first);
  // Counter-based: a draw depends on (seed, position) only.
  EXPECT_EQ(random_word(42, 3), random_word(42, 3));
  EXPECT_NE(random_word(42, 3), random_word(42, 4));
  EXPECT_NE(random_word(42, 3), random_word(43, 3));
}

TEST(Sampling, MarginsShowHowCloseAChoiceIsToChanging) {
  // Top-k 1 between two logits 1e-5 apart: a near tie.
  const std::vector<float> near = {1.0f, 1.00001f, -2.0f};
  EXPECT_LT(choose_token(near, {}, {.top_k = 1}).margin, 1e-4);
  // An exact tie at the cut: margin 0, and the lower id wins.
  const std::vector<float> tied = {0.0f, 1.0f, 1.0f};
  const Choice tie = choose_token(tied, {}, {.top_k = 1});
  EXPECT_EQ(tie.token, 1u);
  EXPECT_EQ(tie.margin, 0.0);
  // One token with nearly all the mass: far from every edge.
  const std::vector<float> clear = {30.0f, 0.0f, 0.0f};
  const Choice sure = choose_token(clear, {}, {.seed = 1});
  EXPECT_EQ(sure.token, 0u);
  EXPECT_GT(sure.margin, 0.01);
}

std::string error_of(const SamplingOptions& options) {
  Config config;
  config.n_ctx = 64;
  config.vocab_size = 100;
  try {
    validate(options, config);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

TEST(Sampling, BadOptionsAreClearErrors) {
  EXPECT_EQ(error_of({}), "");
  EXPECT_NE(error_of({.temperature = -1.0f}).find("temperature -1"), std::string::npos);
  EXPECT_NE(error_of({.temperature = NAN}).find("temperature"), std::string::npos);
  EXPECT_NE(error_of({.top_p = 0.0f}).find("top-p 0 is not in (0, 1]"), std::string::npos);
  EXPECT_NE(error_of({.top_p = 1.5f}).find("top-p 1.5"), std::string::npos);
  EXPECT_NE(error_of({.min_p = -0.1f}).find("min-p -0.1"), std::string::npos);
  EXPECT_NE(error_of({.repeat_penalty = 0.0f}).find("repeat penalty 0"), std::string::npos);
  EXPECT_NE(error_of({.presence_penalty = INFINITY}).find("presence penalty"), std::string::npos);
  EXPECT_NE(error_of({.repeat_penalty = 1.1f, .penalty_last_n = 65})
                .find("penalty window of 65 tokens is larger than the model's context of 64"),
            std::string::npos);
  EXPECT_EQ(error_of({.penalty_last_n = 65}), "") << "no penalty on: the window is unused";
  EXPECT_NE(error_of({.logit_bias = {{100, 1.0f}}})
                .find("token id 100, which is outside the vocabulary of 100"),
            std::string::npos);
  EXPECT_NE(error_of({.logit_bias = {{5, NAN}}}).find("logit bias nan for token id 5"),
            std::string::npos);
  std::map<uint32_t, float> everything;
  for (uint32_t id = 0; id < 100; ++id) everything[id] = -INFINITY;
  EXPECT_NE(error_of({.logit_bias = everything}).find("ban every token"), std::string::npos);
}

TEST(Sampling, AWindowTokenOutsideTheVocabularyIsAnError) {
  const std::vector<uint32_t> context = {1, 99};
  EXPECT_THROW(choose_token(kLogits, context, {.repeat_penalty = 1.2f}), Error);
  EXPECT_THROW(choose_token({}, context, {}), Error);
}

}  // namespace
}  // namespace wgpt::model
