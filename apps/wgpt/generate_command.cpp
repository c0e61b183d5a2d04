// `wgpt generate`: stream text from a model, then report timings.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "model_options.h"
#include "sampling_options.h"
#include "wgpt/generate.h"

namespace wgpt::cli {
namespace {

struct GenerateCommand {
  ModelOptions model;
  std::string prompt;
  size_t tokens = 64;
  generate::SamplingOptions sampling;
  bool json = false;
  bool ignore_end_of_text = false;
};

void print_timings(const LoadedModel& loaded, const generate::GenerateResult& result) {
  const auto& t = result.timings;
  auto per_token = [](double ms, size_t n) { return n ? ms / static_cast<double>(n) : 0.0; };
  auto per_second = [](double ms, size_t n) {
    return ms > 0 ? 1000.0 * static_cast<double>(n) / ms : 0.0;
  };
  std::fprintf(stderr, "\nload:       %.1f ms\n", loaded.load_ms);
  std::fprintf(stderr, "prompt:     %zu tokens, %.2f ms/token, %.1f tok/s\n", t.prompt_tokens,
               per_token(t.prompt_ms, t.prompt_tokens), per_second(t.prompt_ms, t.prompt_tokens));
  std::fprintf(stderr, "generation: %zu tokens, %.2f ms/token, %.1f tok/s (stop: %s)\n",
               t.generated_tokens, per_token(t.generate_ms, t.generated_tokens),
               per_second(t.generate_ms, t.generated_tokens), generate::to_string(result.stop));
}

void run(const GenerateCommand& command) {
  if (command.prompt.empty()) throw Error("the prompt is empty: give some text with -p");
  LoadedModel loaded = load_model(command.model);
  model::validate(command.sampling, loaded.model.config());
  const std::vector<uint32_t> prompt_ids = loaded.tokenizer->encode(command.prompt);
  if (prompt_ids.size() > loaded.model.config().n_ctx) {
    throw Error("the prompt has " + std::to_string(prompt_ids.size()) +
                " tokens, more than the model's context of " +
                std::to_string(loaded.model.config().n_ctx));
  }
  generate::GenerateOptions options;
  options.max_new_tokens = command.tokens;
  options.sampling = command.sampling;
  options.stop_at_end_of_text = !command.ignore_end_of_text;
  generate::TextCallback stream;
  if (!command.json) {
    std::fputs(command.prompt.c_str(), stdout);
    stream = [](std::string_view text) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
      return true;
    };
  }
  const generate::GenerateResult result =
      generate::generate(loaded.model, *loaded.tokenizer, prompt_ids, options, stream);
  if (command.json) {
    const auto& t = result.timings;
    nlohmann::json out = {
        {"prompt_ids", result.prompt_ids},
        {"ids", result.ids},
        {"text", result.text},
        {"stop", generate::to_string(result.stop)},
        {"timings",
         {{"load_ms", loaded.load_ms},
          {"prompt_ms", t.prompt_ms},
          {"prompt_tokens", t.prompt_tokens},
          {"generate_ms", t.generate_ms},
          {"generated_tokens", t.generated_tokens}}},
    };
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("\n");
  }
  if (result.stop == generate::StopReason::context_full) {
    std::fprintf(stderr, "stopped: the model's context of %zu tokens is full\n",
                 loaded.model.config().n_ctx);
  }
  print_timings(loaded, result);
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto command = std::make_shared<GenerateCommand>();
  CLI::App* sub =
      app.add_subcommand("generate", "Generate text from a prompt, streamed as it comes");
  add_model_options(*sub, command->model);
  sub->add_option("-p,--prompt", command->prompt, "The prompt text")->required();
  sub->add_option("-n,--tokens", command->tokens, "How many tokens to generate")
      ->capture_default_str();
  add_sampling_options(*sub, command->sampling, command->ignore_end_of_text);
  sub->add_flag("--json", command->json,
                "Print one JSON object: prompt_ids, ids (generated), text, timings");
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
