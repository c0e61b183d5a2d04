// POST /v1/completions and /v1/chat/completions: validate, queue the request's n sequences, then
// relay the scheduler's events — as server-sent events while they come (stream: true), or as one
// object at the end. A client that disconnects cancels its sequences, which frees their slots at
// the scheduler's next tick.
#include "serve/connection_watch.h"
#include "serve/handlers.h"
#include "serve/http_answer.h"

namespace wgpt::serve {
namespace {

// How often a handler waiting for tokens looks whether its client is still there.
constexpr std::chrono::milliseconds kPoll{50};

// One generation request in flight, shared by the handler and its stream's provider.
struct Exchange {
  Exchange(ServerState& state, GenerationRequest parsed, const httplib::Request& http,
           std::optional<model::Surprisal> prompt_scores)
      : request(std::move(parsed)),
        response(request, state.served, state.model.config(), std::move(prompt_scores)),
        watch(http.remote_addr, http.remote_port, http.local_port) {}

  GenerationRequest request;
  GenerationResponse response;
  std::shared_ptr<EventChannel> channel = std::make_shared<EventChannel>();
  ConnectionWatch watch;

  // The next events; none when the client has gone, which cancels the request.
  std::optional<std::vector<SequenceEvent>> next_events() {
    std::vector<SequenceEvent> events = channel->take(kPoll);
    if (watch.closed()) {
      channel->cancel();
      return std::nullopt;
    }
    return events;
  }
};

ApiError failure_error(const SequenceFailure& failure) {
  return ApiError(failure.status, failure.message, {},
                  failure.status == 503 ? "shutting_down" : "");
}

// Writes the whole stream; false when the client has gone.
bool write_stream(Exchange& exchange, httplib::DataSink& sink) {
  auto send = [&](const std::string& data) {
    const std::string event = "data: " + data + "\n\n";
    return sink.write(event.data(), event.size());
  };
  for (const Json& chunk : exchange.response.opening_chunks()) {
    if (!send(json_text(chunk))) return false;
  }
  while (!exchange.response.finished()) {
    std::optional<std::vector<SequenceEvent>> events = exchange.next_events();
    if (!events) return false;
    for (const SequenceEvent& event : *events) {
      if (event.error) {
        // The stream ends with the error object and without [DONE]: the text is incomplete.
        exchange.channel->cancel();
        return send(json_text(failure_error(*event.error).body()));
      }
      const std::optional<Json> chunk = exchange.response.chunk(event);
      if (chunk && !send(json_text(*chunk))) return false;
    }
  }
  if (exchange.request.include_usage && !send(json_text(exchange.response.usage_chunk()))) {
    return false;
  }
  return send("[DONE]");
}

void stream(httplib::Response& response, std::shared_ptr<Exchange> exchange) {
  response.set_header("Cache-Control", "no-cache");
  response.set_header("X-Accel-Buffering", "no");  // nginx: pass each event on as it comes
  response.set_chunked_content_provider(
      "text/event-stream",
      [exchange](size_t, httplib::DataSink& sink) {
        if (!write_stream(*exchange, sink)) {
          exchange->channel->cancel();
          return false;
        }
        sink.done();
        return true;
      },
      // Runs however the response ends, also when the stream never started: a request whose
      // answer is not being written any more has nobody waiting for its tokens.
      [exchange](bool) { exchange->channel->cancel(); });
}

void collect(httplib::Response& response, Exchange& exchange) {
  while (!exchange.response.finished()) {
    std::optional<std::vector<SequenceEvent>> events = exchange.next_events();
    if (!events) return;  // nobody to answer
    for (SequenceEvent& event : *events) {
      if (event.error) {
        exchange.channel->cancel();
        throw failure_error(*event.error);
      }
      exchange.response.add(std::move(event));
    }
  }
  answer_json(response, 200, exchange.response.object());
}

}  // namespace

model::Surprisal score_on_model_thread(ServerState& state, const std::vector<uint32_t>& ids,
                                       size_t top) {
  if (ids.size() < 2) return {.tokens = {{ids.at(0), std::nullopt, {}}}};
  QueuedJob<model::Surprisal> job =
      state.scheduler.run_on_model_thread([&model = state.model, ids, top] {
        return model::surprisal(model, ids, {top, 0, {}});
      });
  check_admission(job.admission, state.options.queue);
  return job.result.get();
}

void handle_generation(ServerState& state, const httplib::Request& request,
                       httplib::Response& response, bool chat) {
  const nlohmann::json body = parse_body(request.body);
  GenerationRequest parsed =
      chat ? parse_chat_request(body, state.served) : parse_completion_request(body, state.served);
  std::optional<model::Surprisal> prompt_scores;
  if (parsed.echo && parsed.logprobs) {
    prompt_scores = score_on_model_thread(state, parsed.prompt.ids, parsed.top_logprobs);
  }
  auto exchange =
      std::make_shared<Exchange>(state, std::move(parsed), request, std::move(prompt_scores));
  check_admission(state.scheduler.submit(exchange->request.sequences(), exchange->channel),
                  state.options.queue);
  if (exchange->request.stream) return stream(response, exchange);
  collect(response, *exchange);
}

}  // namespace wgpt::serve
