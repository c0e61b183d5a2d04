// `wgpt serve-bench`: aggregate tokens/s and time to first token of a running `wgpt serve` under
// 1, 8, 32, 64 … concurrent streaming clients (one round per count), as vLLM's serving benchmark
// measures a server: over HTTP, from the client's side.
#include <cstdio>

#include "commands.h"
#include "option_checks.h"
#include "standard_output.h"
#include "wgpt/error.h"
#include "wgpt/serve.h"

namespace wgpt::cli {
namespace {

struct ServeBenchCommand {
  serve::LoadOptions load;
  std::vector<size_t> client_counts{1, 8, 32, 64};
  size_t warmup_tokens = 16;
};

// One round: `clients` concurrent streams of `tokens` tokens each, announced on stderr.
serve::LoadResult measure_round(const ServeBenchCommand& command, size_t clients, size_t tokens,
                                const char* what) {
  serve::LoadOptions load = command.load;
  load.clients = clients;
  load.max_tokens = tokens;
  std::fprintf(stderr, "serve-bench: %s %zu concurrent streams of %zu tokens...\n", what, clients,
               tokens);
  return serve::measure_load(load);
}

// An untimed round per client count first, of a few tokens a stream: a fresh server compiles its
// pipelines, and the batched engine captures each row bucket's plan, the first time they are used
// (about a second in all on the H200), which would otherwise land in the first rounds' figures.
void warm_up(const ServeBenchCommand& command) {
  if (command.warmup_tokens == 0) return;
  for (size_t clients : command.client_counts) {
    const serve::LoadResult result =
        measure_round(command, clients, command.warmup_tokens, "warming up with");
    if (result.completed != clients) {
      throw Error("warming up: " + std::to_string(clients - result.completed) + " of " +
                  std::to_string(clients) + " streams failed; the first: " + result.first_error);
    }
  }
}

void run(const ServeBenchCommand& command) {
  warm_up(command);
  std::printf(
      "| clients | completed | tokens | seconds | aggregate tok/s | per stream tok/s | TTFT p50 ms "
      "| TTFT p90 ms | TTFT p99 ms |\n"
      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  size_t failed = 0;
  for (size_t clients : command.client_counts) {
    const serve::LoadResult result =
        measure_round(command, clients, command.load.max_tokens, "measuring");
    std::printf("| %zu | %zu | %zu | %.2f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", clients,
                result.completed, result.tokens, result.seconds, result.tokens_per_second(),
                result.tokens_per_second() / static_cast<double>(clients),
                result.first_token_percentile(50) * 1e3, result.first_token_percentile(90) * 1e3,
                result.first_token_percentile(99) * 1e3);
    finish_stdout();  // each row as it is measured
    if (result.completed != clients) {
      std::fprintf(stderr, "serve-bench: %zu of %zu streams failed; the first: %s\n",
                   clients - result.completed, clients, result.first_error.c_str());
      failed += clients - result.completed;
    }
  }
  if (failed > 0) throw Error(std::to_string(failed) + " streams failed (see above)");
}

}  // namespace

void add_serve_bench_command(CLI::App& app) {
  auto command = std::make_shared<ServeBenchCommand>();
  serve::LoadOptions& load = command->load;
  CLI::App* sub = app.add_subcommand(
      "serve-bench",
      "Measure a running `wgpt serve`: for each client count, that many concurrent streaming "
      "completions (a fixed prompt of token ids, exactly -n tokens each with ignore_eos, seed = "
      "the client's index), then a table row: aggregate tokens/s over the round's wall time, per "
      "stream, and time-to-first-token percentiles. Fails when any stream does.");
  sub->add_option("--host", load.host, "The server's host")->capture_default_str();
  sub->add_option("--port", load.port, "The server's port")
      ->check(whole_number(1, 65535))
      ->capture_default_str();
  sub->add_option("--api-key", load.api_key, "Sent as a bearer token when the server wants one");
  sub->add_option("--model-name", load.model_name, "Sent as the requests' `model` when given");
  sub->add_option("--clients", command->client_counts,
                  "Concurrent streams per round, comma-separated")
      ->delimiter(',')
      ->check(whole_number(1, 4096))
      ->capture_default_str();
  sub->add_option("-n,--max-tokens", load.max_tokens, "Tokens generated per stream")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--prompt-tokens", load.prompt_tokens, "Prompt length in tokens")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--vocab", load.vocab_size,
                  "The prompt's ids are below this (the model's vocabulary)")
      ->check(whole_number(1, uint64_t{1} << 31))
      ->capture_default_str();
  sub->add_option("--warmup-tokens", command->warmup_tokens,
                  "Tokens per stream of an untimed round per client count before the table (0: "
                  "none), so that the table measures a warm server: a fresh one compiles its "
                  "pipelines and captures its plans the first time they are used")
      ->check(whole_number(0, 1 << 20))
      ->capture_default_str();
  sub->add_option("--temperature", load.temperature, "Sampling temperature (0: greedy)")
      ->check(real_number(0, 2, "[]"))
      ->capture_default_str();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
