// Pieces of the server that need no model: stop sequences over streamed text (the generate
// layer's, shared with wgpt generate --stop), the API key
// comparison, and the Prometheus rendering of the counters.
#include <gtest/gtest.h>

#include "serve/api_key.h"
#include "serve/metrics.h"
#include "wgpt/generate.h"

namespace wgpt::test {
namespace {

using generate::StopSequences;

TEST(StopSequences, ReleasesTextThatCannotStartAStop) {
  StopSequences stop({"END", "\n\n"});
  EXPECT_EQ(stop.push("Hello"), "Hello");
  EXPECT_EQ(stop.push(" E"), " ") << "'E' may start END: held back";
  EXPECT_EQ(stop.push("N"), "") << "'EN' still may";
  EXPECT_EQ(stop.push("ough"), "ENough") << "'ENo' cannot: released";
  EXPECT_FALSE(stop.matched());
  EXPECT_EQ(stop.push("\n"), "");
  EXPECT_EQ(stop.flush(), "\n") << "the generation ended without a stop: the tail comes out";
}

TEST(StopSequences, CutsAtTheEarliestStop) {
  StopSequences stop({"cd", "b"});
  EXPECT_EQ(stop.push("a"), "a");
  EXPECT_EQ(stop.push("bcd tail"), "") << "'b' comes before 'cd'";
  EXPECT_TRUE(stop.matched());
  EXPECT_EQ(stop.push("more"), "") << "nothing after a stop";
  EXPECT_EQ(stop.flush(), "");
}

TEST(StopSequences, AcrossPushesAndCharacters) {
  StopSequences stop({"\xe2\x9c\x93 done"});  // "✓ done"
  EXPECT_EQ(stop.push("ok \xe2\x9c\x93"), "ok ") << "held back whole, from the character on";
  EXPECT_EQ(stop.push(" do"), "");
  EXPECT_EQ(stop.push("ne!"), "");
  EXPECT_TRUE(stop.matched());
  StopSequences none({});
  EXPECT_EQ(none.push("anything"), "anything");
}

TEST(ServeApiKey, ComparesWholeKeys) {
  EXPECT_TRUE(serve::same_secret("sk-123", "sk-123"));
  EXPECT_FALSE(serve::same_secret("sk-124", "sk-123"));
  EXPECT_FALSE(serve::same_secret("sk-12", "sk-123"));
  EXPECT_FALSE(serve::same_secret("sk-1234", "sk-123"));
  EXPECT_FALSE(serve::same_secret("", "sk-123"));
  EXPECT_FALSE(serve::same_secret("sk-123sk-123", "sk-123")) << "a repeat is not the key";
  EXPECT_TRUE(serve::authorizes("Bearer sk-123", "sk-123"));
  EXPECT_FALSE(serve::authorizes("sk-123", "sk-123")) << "the scheme is needed";
  EXPECT_FALSE(serve::authorizes("Bearer sk-123 ", "sk-123"));
  EXPECT_FALSE(serve::authorizes("Basic sk-123", "sk-123"));
}

TEST(ServeMetrics, PrometheusText) {
  serve::Metrics metrics;
  const auto t0 = serve::Metrics::Clock::time_point(std::chrono::seconds(1000));
  metrics.request_done("/v1/completions", 200);
  metrics.request_done("/v1/completions", 200);
  metrics.request_done("/v1/completions", 429);
  metrics.prompt_started(7);
  metrics.tokens_generated(30, t0);
  metrics.tokens_generated(20, t0 + std::chrono::seconds(5));
  metrics.first_token(0.07);
  metrics.first_token(3);
  metrics.sequence_cancelled();
  const std::string text = metrics.prometheus({2, 3, 4}, t0 + std::chrono::seconds(5));
  for (const char* line : {
           "# TYPE wgpt_requests_total counter\n",
           "wgpt_requests_total{endpoint=\"/v1/completions\",status=\"200\"} 2\n",
           "wgpt_requests_total{endpoint=\"/v1/completions\",status=\"429\"} 1\n",
           "wgpt_prompt_tokens_total 7\n",
           "wgpt_generated_tokens_total 50\n",
           "wgpt_sequences_cancelled_total 1\n",
           "wgpt_queue_depth 2\n",
           "wgpt_slots_busy 3\n",
           "wgpt_slots 4\n",
           "wgpt_tokens_per_second 5\n",  // 50 tokens in the last 10 s
           "# TYPE wgpt_time_to_first_token_seconds histogram\n",
           "wgpt_time_to_first_token_seconds_bucket{le=\"0.05\"} 0\n",
           "wgpt_time_to_first_token_seconds_bucket{le=\"0.1\"} 1\n",
           "wgpt_time_to_first_token_seconds_bucket{le=\"2.5\"} 1\n",
           "wgpt_time_to_first_token_seconds_bucket{le=\"5\"} 2\n",
           "wgpt_time_to_first_token_seconds_bucket{le=\"+Inf\"} 2\n",
           "wgpt_time_to_first_token_seconds_sum 3.07\n",
           "wgpt_time_to_first_token_seconds_count 2\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "in:\n" << text;
  }
  // Ten seconds on, the first 30 tokens have left the window.
  const std::string later = metrics.prometheus({}, t0 + std::chrono::seconds(12));
  EXPECT_NE(later.find("wgpt_tokens_per_second 2\n"), std::string::npos) << later;
}

}  // namespace
}  // namespace wgpt::test
