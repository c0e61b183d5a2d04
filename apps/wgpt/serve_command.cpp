// `wgpt serve`: an OpenAI-compatible HTTP server for one model (docs/serve.md).
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "commands.h"
#include "model_options.h"
#include "option_checks.h"
#include "wgpt/serve.h"

namespace wgpt::cli {
namespace {

struct ServeCommand {
  ModelOptions model;
  serve::ServerOptions server;
  double shutdown_grace_seconds = 10;
};

std::string default_model_name(const std::string& model_dir) {
  const std::filesystem::path path = std::filesystem::path(model_dir).lexically_normal();
  const std::string name = path.filename().string();
  return name.empty() ? path.parent_path().filename().string() : name;
}

// The first SIGINT or SIGTERM drains the server; a second one ends the process at once.
void watch_signals(serve::Server& server, sigset_t signals, double grace_seconds) {
  int signal = 0;
  sigwait(&signals, &signal);
  std::fprintf(stderr,
               "wgpt serve: %s: taking no new requests, letting running ones finish (up to %g s)\n",
               signal == SIGTERM ? "SIGTERM" : "SIGINT", grace_seconds);
  server.shutdown();
  sigwait(&signals, &signal);
  std::fprintf(stderr, "wgpt serve: a second signal: exiting now\n");
  std::_Exit(1);
}

void run(ServeCommand& command) {
  // The signal watcher takes SIGINT and SIGTERM with sigwait: they are blocked before any other
  // thread starts (the GPU context starts some), so that no other thread receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  LoadedModel loaded = load_model(command.model);
  serve::ServerOptions& options = command.server;
  if (options.model_name.empty()) options.model_name = default_model_name(command.model.model_dir);
  options.shutdown_grace =
      std::chrono::milliseconds(static_cast<int64_t>(command.shutdown_grace_seconds * 1000));
  serve::Server server(loaded.model, *loaded.tokenizer, options);
  const int port = server.bind();
  const model::Config& config = loaded.model.config();
  std::fprintf(stderr,
               "wgpt serve: model '%s' (%zu layers, context %zu) loaded in %.0f ms\n"
               "wgpt serve: listening on http://%s:%d with %zu slots (%s engine) and a queue of "
               "%zu\n",
               options.model_name.c_str(), config.n_layer, config.n_ctx, loaded.load_ms,
               options.host.c_str(), port, options.parallel, server.engine_name().c_str(),
               options.queue);
  if (options.api_key.empty() && options.host != "127.0.0.1" && options.host != "localhost" &&
      options.host != "::1") {
    std::fprintf(stderr, "wgpt serve: warning: reachable beyond this machine without --api-key\n");
  }
  std::thread(watch_signals, std::ref(server), signals, command.shutdown_grace_seconds).detach();
  server.run();
  std::fprintf(stderr, "wgpt serve: stopped\n");
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto command = std::make_shared<ServeCommand>();
  serve::ServerOptions& options = command->server;
  CLI::App* sub = app.add_subcommand(
      "serve",
      "Serve a model over HTTP with OpenAI's API: /v1/completions, /v1/chat/completions (a plain "
      "transcript template), /v1/models, /v1/score, /tokenize, /detokenize, /health, /metrics. "
      "Requests are decoded together, each joining and leaving between steps; SIGINT or SIGTERM "
      "lets running requests finish, then stops (docs/serve.md)");
  add_model_options(*sub, command->model);
  sub->add_option("--host", options.host,
                  "Address to listen on (0.0.0.0: every interface; then set --api-key)")
      ->capture_default_str();
  sub->add_option("--port", options.port, "Port to listen on (0: any free port, printed)")
      ->check(whole_number(0, 65535))
      ->capture_default_str();
  sub->add_option("--parallel", options.parallel,
                  "Sequences decoded together, each with its own KV cache (slots)")
      ->check(whole_number(1, 1024))
      ->capture_default_str();
  sub->add_option("--engine", options.engine,
                  "How the slots decode: batched (one GPU step for all of them, each row attending "
                  "to its own KV cache), sequential (one slot after another on the B = 1 decode "
                  "path), or auto (batched on a hardware GPU, else sequential)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, serve::EngineChoice>{
              {"auto", serve::EngineChoice::automatic},
              {"batched", serve::EngineChoice::batched},
              {"sequential", serve::EngineChoice::sequential}},
          CLI::ignore_case))
      ->default_str("auto");
  sub->add_option("--queue", options.queue,
                  "Sequences that may wait for a free slot; beyond them requests get 429")
      ->check(whole_number(0, 100000))
      ->capture_default_str();
  sub->add_option("--api-key", options.api_key,
                  "Require 'Authorization: Bearer KEY' on every endpoint but /health");
  sub->add_option("--model-name", options.model_name,
                  "The model's id in /v1/models and requests (default: the directory's name)");
  sub->add_option("--max-body", options.max_body_bytes,
                  "Largest request body in bytes; larger ones get 413")
      ->check(whole_number(1024, uint64_t{1} << 30))
      ->capture_default_str();
  sub->add_option("--shutdown-grace", command->shutdown_grace_seconds,
                  "Seconds running requests may go on after SIGINT/SIGTERM before they end "
                  "with an error event")
      ->check(real_number(0, 3600, "[]"))
      ->capture_default_str();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
