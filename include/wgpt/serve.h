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
#include <vector>

#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::serve {

// Which step engine decodes: `batched` runs every continuing sequence in one GPU step
// (model::BatchDecoder), `sequential` one sequence after another through the B = 1 decode path;
// `automatic` takes the batched engine where the model supports it on a hardware GPU and the
// sequential one elsewhere (the CPU backend, a software adapter such as llvmpipe).
enum class EngineChoice { automatic, batched, sequential };

struct ServerOptions {
  std::string host = "127.0.0.1";  // localhost unless told otherwise
  int port = 8080;                 // 0: any free port (Server::bind() returns it)
  size_t parallel = 4;             // sequences decoded together, each with its own KV cache
  size_t queue = 64;               // sequences that may wait for a slot; beyond that, 429
  EngineChoice engine = EngineChoice::automatic;
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
  // The step engine the server runs: "batched" or "sequential" (ServerOptions::engine).
  std::string engine_name() const;
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

// A load generator for a running server (`wgpt serve-bench`): `clients` concurrent streaming
// completions of a fixed prompt, each exactly max_tokens long (ignore_eos), sampled with seed i.
struct LoadOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string api_key;
  std::string model_name;     // sent as `model` when set
  size_t vocab_size = 50257;  // the prompt's ids are below it
  size_t clients = 1;
  size_t prompt_tokens = 16;
  size_t max_tokens = 128;
  double temperature = 0.8;
};

struct LoadResult {
  size_t clients = 0;
  size_t completed = 0;                     // streams that got every token and ended with [DONE]
  size_t tokens = 0;                        // streamed by all clients
  double seconds = 0;                       // from the first request to the last stream's end
  std::vector<double> first_token_seconds;  // per stream that got a token, ascending
  std::string first_error;                  // of the first stream that failed, if any

  double tokens_per_second() const {
    return seconds > 0 ? static_cast<double>(tokens) / seconds : 0;
  }
  // The p-th percentile (0–100, nearest rank) of the time to first token.
  double first_token_percentile(double p) const;
};

// Runs one round of concurrent clients and waits for all of them. Throws wgpt::Error for options
// that ask for no work; failed streams are counted, not thrown.
LoadResult measure_load(const LoadOptions& options);

}  // namespace wgpt::serve
