#pragma once
// wgpt::serve — an OpenAI-compatible HTTP server for one model (`wgpt serve`, docs/serve.md).
//
// As llama.cpp's llama-server: one scheduler owns the model, the GPU and the batch, on the thread
// that calls Server::run(); the HTTP handlers run on their own threads and only validate requests,
// queue them and stream what the scheduler produces — they never touch the GPU. The scheduler runs
// in ticks: each tick advances every active sequence by one token, and requests join and leave
// between ticks, each with its own KV cache, position, sampling options and seed, so a request's
// tokens do not depend on what else is running.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";  // localhost unless told otherwise
  int port = 8080;                 // 0: any free port (Server::bind() returns it)
  size_t parallel = 4;             // sequences decoded together, each with its own KV cache
  size_t queue = 64;               // sequences that may wait for a slot; beyond that, 429
  std::string api_key;     // when set, every endpoint but /health wants it as a bearer token
  std::string model_name;  // the id /v1/models reports and requests may name
  size_t max_body_bytes = 1 << 20;  // larger request bodies get 413
  // How long in-flight requests may run on after shutdown() before they end with an error event.
  std::chrono::milliseconds shutdown_grace{10000};
};

class Server {
 public:
  // `model` and `tokenizer` must outlive the server; run() must be called on the thread that may
  // use the model's GPU context (the one that loaded it).
  Server(const model::Model& model, const tokenizer::Tokenizer& tokenizer, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listening socket and returns its port. Throws wgpt::Error naming host and port when
  // it cannot.
  int bind();
  // Serves until shutdown() has drained the scheduler: HTTP on a pool of threads, the model on
  // this one. Then stops listening and returns once every handler has finished.
  void run();
  // Any thread (a signal watcher): new requests get 503, /health turns 503, queued requests end
  // with an error, running ones go on for the grace period and then end with an error event.
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace wgpt::serve
