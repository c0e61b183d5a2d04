// wgpt::serve::Server: cpp-httplib's server with the endpoints, the API key check, OpenAI-style
// errors for whatever httplib itself refuses, the request log and counters — and the scheduler
// running on the caller's thread.
#include <sys/socket.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <thread>

#include "serve/api_key.h"
#include "serve/engine_choice.h"
#include "serve/handlers.h"
#include "serve/http_answer.h"
#include "wgpt/serve.h"

namespace wgpt::serve {
namespace {

using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

const char* const kEndpoints[] = {
    "/v1/completions", "/v1/chat/completions", "/v1/models", "/v1/score",
    "/tokenize",       "/detokenize",          "/health",    "/metrics"};

int64_t unix_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The endpoint a request is counted under: unknown paths share one label, so a scan of random
// paths cannot grow the metrics without bound.
std::string endpoint_label(const std::string& path) {
  for (const char* endpoint : kEndpoints) {
    if (path == endpoint) return path;
  }
  return "other";
}

// A path as the log shows it: control characters from a client become '?'.
std::string printable(std::string text) {
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return text;
}

// Checks the API key where one is wanted, runs the handler, and answers what it throws.
Handler guarded(ServerState& state, bool wants_key, Handler handler) {
  return [&state, wants_key, handler = std::move(handler)](const httplib::Request& request,
                                                           httplib::Response& response) {
    try {
      const std::string& key = state.options.api_key;
      if (wants_key && !key.empty()) {
        if (!request.has_header("Authorization")) {
          throw ApiError(401, "no API key given: send it as the header 'Authorization: Bearer KEY'",
                         {}, "invalid_api_key");
        }
        if (!authorizes(request.get_header_value("Authorization"), key)) {
          throw ApiError(401, "the API key given is not this server's", {}, "invalid_api_key");
        }
      }
      handler(request, response);
    } catch (const ApiError& error) {
      answer_error(response, error);
    } catch (const std::exception& error) {
      answer_error(response, ApiError(500, std::string("internal error: ") + error.what()));
    }
  };
}

// An error object for what httplib answers by itself: an unknown path or method, a body over
// the limit, a malformed request.
httplib::Server::HandlerResponse answer_refusal(const ServerState& state,
                                                const httplib::Request& request,
                                                httplib::Response& response) {
  if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // ours
  std::string message;
  if (response.status == 404) {
    message = "there is no endpoint " + request.method + " " + printable(request.path) +
              " (docs/serve.md lists them)";
  } else if (response.status == 413) {
    message = "the request body is larger than this server's limit of " +
              std::to_string(state.options.max_body_bytes) + " bytes";
  } else {
    message = "the request could not be read (HTTP status " + std::to_string(response.status) + ")";
  }
  answer_error(response, ApiError(response.status, message));
  return httplib::Server::HandlerResponse::Handled;
}

}  // namespace

ServerState::ServerState(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
                         ServerOptions opts)
    : model(model),
      served{opts.model_name, tokenizer, model.config().n_ctx, tokenizer.vocab_size()},
      options(std::move(opts)),
      started_unix_seconds(unix_seconds()),
      engine(make_step_engine(model, options.parallel, options.engine)),
      scheduler(*engine, tokenizer, model.config().eos_token_id, metrics, options.queue) {}

struct Server::Impl {
  Impl(const model::Model& model, const tokenizer::Tokenizer& tokenizer, ServerOptions options)
      : state(model, tokenizer, std::move(options)) {}

  void add_routes();

  ServerState state;
  httplib::Server http;
  socket_t listening_socket = INVALID_SOCKET;
  bool bound = false;
};

void Server::Impl::add_routes() {
  ServerState& s = state;
  http.Post("/v1/completions", guarded(s, true, [&s](const auto& rq, auto& rs) {
              handle_generation(s, rq, rs, false);
            }));
  http.Post("/v1/chat/completions", guarded(s, true, [&s](const auto& rq, auto& rs) {
              handle_generation(s, rq, rs, true);
            }));
  http.Post("/v1/score",
            guarded(s, true, [&s](const auto& rq, auto& rs) { handle_score(s, rq, rs); }));
  http.Post("/tokenize",
            guarded(s, true, [&s](const auto& rq, auto& rs) { handle_tokenize(s, rq, rs); }));
  http.Post("/detokenize",
            guarded(s, true, [&s](const auto& rq, auto& rs) { handle_detokenize(s, rq, rs); }));
  http.Get("/v1/models", guarded(s, true, [&s](const auto&, auto& rs) { handle_models(s, rs); }));
  http.Get("/metrics", guarded(s, true, [&s](const auto&, auto& rs) { handle_metrics(s, rs); }));
  // Load balancers ask without a key.
  http.Get("/health", guarded(s, false, [&s](const auto&, auto& rs) { handle_health(s, rs); }));
  http.set_error_handler(httplib::Server::HandlerWithResponse(
      [&s](const httplib::Request& request, httplib::Response& response) {
        return answer_refusal(s, request, response);
      }));
  http.set_logger([&s](const httplib::Request& request, const httplib::Response& response) {
    s.metrics.request_done(endpoint_label(request.path), response.status);
    std::fprintf(stderr, "%s %s %s %d\n", request.remote_addr.c_str(), request.method.c_str(),
                 printable(request.path).c_str(), response.status);
  });
  http.set_payload_max_length(s.options.max_body_bytes);
  // A token is an event of a few dozen bytes: sent at once, not held back (Nagle) until the
  // client acknowledges the one before. Accepted sockets inherit the option from the listener.
  http.set_tcp_nodelay(true);
  http.set_socket_options([this](socket_t socket) {
    httplib::default_socket_options(socket);
    listening_socket = socket;
  });
  // Every streaming client holds a thread for as long as its stream lasts: enough threads for
  // every slot and queue place, and some for quick requests (health checks, metrics) beside them.
  const size_t threads = s.options.parallel + s.options.queue + 8;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
}

Server::Server(const model::Model& model, const tokenizer::Tokenizer& tokenizer,
               ServerOptions options)
    : impl_(std::make_unique<Impl>(model, tokenizer, std::move(options))) {
  impl_->add_routes();
}

Server::~Server() = default;

int Server::bind() {
  const ServerOptions& options = impl_->state.options;
  errno = 0;
  const int port = options.port == 0
                       ? impl_->http.bind_to_any_port(options.host)
                       : (impl_->http.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    throw Error("cannot listen on " + options.host + ":" + std::to_string(options.port) + ": " +
                (errno ? std::strerror(errno) : "the address is not usable"));
  }
  // cpp-httplib listens with a backlog of 5, fixed when its library was built: of a burst of
  // clients connecting at once, all but the first few had their handshakes dropped and retried by
  // the kernel a second later (a TTFT p90 of a second at 64 streams). Listening again on the bound
  // socket raises the backlog to the system's limit.
  if (::listen(impl_->listening_socket, SOMAXCONN) != 0) {
    throw Error("cannot listen on " + options.host + ":" + std::to_string(port) + ": " +
                std::strerror(errno));
  }
  impl_->bound = true;
  return port;
}

std::string Server::engine_name() const { return std::string(impl_->state.engine->name()); }

void Server::run() {
  // A client that has gone makes a write raise SIGPIPE, which would end the process.
  std::signal(SIGPIPE, SIG_IGN);
  if (!impl_->bound) bind();
  std::thread listener([this] { impl_->http.listen_after_bind(); });
  impl_->state.scheduler.run();
  impl_->http.stop();
  listener.join();
}

void Server::shutdown() {
  impl_->state.shutting_down = true;
  impl_->state.scheduler.drain(std::chrono::steady_clock::now() +
                               impl_->state.options.shutdown_grace);
}

}  // namespace wgpt::serve
