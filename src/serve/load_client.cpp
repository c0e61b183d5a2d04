// serve::measure_load: concurrent streaming clients against a running server, over HTTP as any
// client sees it (cpp-httplib's client, one connection per stream).
#include <httplib.h>

#include <algorithm>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "wgpt/error.h"
#include "wgpt/serve.h"

namespace wgpt::serve {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A fixed prompt of `count` token ids spread over the vocabulary (as `wgpt bench`'s), so every
// run asks for the same work.
std::vector<uint32_t> prompt_ids(size_t count, size_t vocab_size) {
  std::vector<uint32_t> ids(count);
  for (size_t i = 0; i < count; ++i) {
    ids[i] = static_cast<uint32_t>((i * 2654435761u + 17) % vocab_size);
  }
  return ids;
}

struct StreamOutcome {
  size_t tokens = 0;
  double first_token_seconds = -1;  // negative: no token arrived
  std::string error;                // empty when the stream ended with [DONE]
};

// One streaming completion. A chunk may carry several tokens (the server holds back the bytes of an
// unfinished UTF-8 character or a possible stop string), so the tokens are counted from the usage
// chunk that stream_options.include_usage asks for; the first chunk with text marks the first
// token. The stream must end with `data: [DONE]`.
StreamOutcome stream_once(const LoadOptions& options, const std::string& body) {
  httplib::Client client(options.host, options.port);
  client.set_read_timeout(std::chrono::seconds(600));
  httplib::Request request;
  request.method = "POST";
  request.path = "/v1/completions";
  request.body = body;
  request.set_header("Content-Type", "application/json");
  if (!options.api_key.empty()) request.set_header("Authorization", "Bearer " + options.api_key);
  StreamOutcome outcome;
  std::string pending;  // bytes after the last complete line
  bool done = false;
  const Clock::time_point start = Clock::now();
  const auto read_chunk = [&](std::string_view json) {
    const nlohmann::json chunk = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    if (!chunk.is_object() || chunk.contains("error")) {
      outcome.error = std::string(json);
    } else if (chunk.value("usage", nlohmann::json()).is_object()) {
      outcome.tokens = chunk["usage"].value("completion_tokens", size_t{0});
    } else if (outcome.first_token_seconds < 0) {
      outcome.first_token_seconds = seconds_between(start, Clock::now());
    }
  };
  request.content_receiver = [&](const char* data, size_t size, uint64_t, uint64_t) {
    pending.append(data, size);
    size_t line_end = 0;
    while ((line_end = pending.find('\n')) != std::string::npos) {
      const std::string_view line(pending.data(), line_end);
      if (line.starts_with("data: {")) {
        read_chunk(line.substr(6));
      } else if (line == "data: [DONE]") {
        done = true;
      }
      pending.erase(0, line_end + 1);
    }
    return true;
  };
  const httplib::Result result = client.send(request);
  if (!result) {
    outcome.error = "HTTP: " + httplib::to_string(result.error());
  } else if (result->status != 200) {
    outcome.error = "status " + std::to_string(result->status) + ": " + result->body;
  } else if (!done && outcome.error.empty()) {
    outcome.error = "the stream ended without [DONE]";
  }
  return outcome;
}

}  // namespace

LoadResult measure_load(const LoadOptions& options) {
  if (options.clients == 0) throw Error("the load needs at least one client");
  if (options.max_tokens == 0 || options.prompt_tokens == 0) {
    throw Error("the load needs at least one prompt token and one generated token per client");
  }
  std::vector<StreamOutcome> outcomes(options.clients);
  std::vector<std::thread> clients;
  const Clock::time_point start = Clock::now();
  for (size_t i = 0; i < options.clients; ++i) {
    nlohmann::json body = {{"prompt", prompt_ids(options.prompt_tokens, options.vocab_size)},
                           {"max_tokens", options.max_tokens},
                           {"temperature", options.temperature},
                           {"seed", i},
                           {"stream", true},
                           {"stream_options", {{"include_usage", true}}},
                           {"ignore_eos", true}};
    if (!options.model_name.empty()) body["model"] = options.model_name;
    clients.emplace_back([&options, &outcome = outcomes[i], text = body.dump()] {
      outcome = stream_once(options, text);
    });
  }
  for (std::thread& client : clients) client.join();
  LoadResult result;
  result.clients = options.clients;
  result.seconds = seconds_between(start, Clock::now());
  for (const StreamOutcome& outcome : outcomes) {
    result.tokens += outcome.tokens;
    if (outcome.first_token_seconds >= 0) {
      result.first_token_seconds.push_back(outcome.first_token_seconds);
    }
    if (outcome.error.empty() && outcome.tokens == options.max_tokens) {
      ++result.completed;
    } else if (result.first_error.empty()) {
      result.first_error = outcome.error.empty()
                               ? std::to_string(outcome.tokens) + " tokens instead of " +
                                     std::to_string(options.max_tokens)
                               : outcome.error;
    }
  }
  std::sort(result.first_token_seconds.begin(), result.first_token_seconds.end());
  return result;
}

double LoadResult::first_token_percentile(double p) const {
  if (first_token_seconds.empty()) return 0;
  const size_t rank =
      static_cast<size_t>(p / 100 * static_cast<double>(first_token_seconds.size() - 1) + 0.5);
  return first_token_seconds[std::min(rank, first_token_seconds.size() - 1)];
}

}  // namespace wgpt::serve
