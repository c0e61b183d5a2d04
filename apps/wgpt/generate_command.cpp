// `wgpt generate`: stream text from a model, then report timings.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "context_notes.h"
#include "interactive.h"
#include "model_options.h"
#include "option_checks.h"
#include "prompt_options.h"
#include "sampling_options.h"
#include "standard_output.h"
#include "wgpt/generate.h"

namespace wgpt::cli {
namespace {

struct GenerateCommand {
  ModelOptions model;
  PromptOptions prompt;
  size_t tokens = 64;
  generate::SamplingOptions sampling;
  std::vector<std::string> stop_strings;
  bool context_shift = true;
  bool interactive = false;
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
  if (command.interactive && (command.json || command.prompt.text == "-")) {
    throw Error(
        "-i reads the lines it continues from standard input: it takes neither --json nor "
        "-p - (give the first text with -p TEXT or -f FILE)");
  }
  const std::string prompt = read_prompt(command.prompt);
  if (prompt.empty() && !command.interactive) {
    throw Error(
        "the prompt is empty: give some text with -p TEXT, -p - (standard input) or -f FILE");
  }
  for (const std::string& stop : command.stop_strings) {
    if (stop.empty()) throw Error("--stop needs a non-empty string");
  }
  LoadedModel loaded = load_model(command.model);
  model::validate(command.sampling, loaded.model.config());
  generate::GenerateOptions options;
  options.max_new_tokens = command.tokens;
  options.sampling = command.sampling;
  options.stop_at_end_of_text = !command.ignore_end_of_text;
  options.stop_strings = command.stop_strings;
  options.context_shift = command.context_shift;
  if (command.interactive) return run_interactive(loaded, prompt, options);
  const std::vector<uint32_t> prompt_ids = loaded.tokenizer->encode(prompt);
  if (prompt_ids.size() > loaded.model.config().n_ctx) {
    throw Error("the prompt has " + std::to_string(prompt_ids.size()) +
                " tokens, more than the model's context of " +
                std::to_string(loaded.model.config().n_ctx));
  }
  generate::TextCallback stream;
  if (!command.json) {
    write_stdout(prompt);
    stream = [](std::string_view text) {
      write_stdout(text);
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
        {"context_shifts", result.context_shifts},
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
  finish_stdout();  // the text ends before the notes on standard error begin
  report_context(loaded.model.config().n_ctx, result);
  print_timings(loaded, result);
}

}  // namespace

void add_generate_command(CLI::App& app) {
  auto command = std::make_shared<GenerateCommand>();
  CLI::App* sub =
      app.add_subcommand("generate", "Generate text from a prompt, streamed as it comes");
  add_model_options(*sub, command->model);
  add_prompt_options(*sub, command->prompt);
  sub->add_option("-n,--tokens", command->tokens, "How many tokens to generate")
      ->check(whole_number(0, kMaxGeneratedTokens))
      ->capture_default_str();
  add_sampling_options(*sub, command->sampling, command->ignore_end_of_text);
  sub->add_option("--stop", command->stop_strings,
                  "Stop where the text first contains STRING (repeatable); the text ends before it")
      ->allow_extra_args(false);
  sub->add_flag("--context-shift,!--no-context-shift", command->context_shift,
                "When the context is full, drop its oldest half and read the newest half again "
                "(as llama.cpp), so -n may exceed the context; --no-context-shift stops there")
      ->capture_default_str();
  sub->add_flag("-i,--interactive", command->interactive,
                "Type a line, the model continues the text from it (-n tokens), type the next; an "
                "empty line or the end of input ends. -p or -f gives the first text. One KV cache "
                "throughout: a turn reads only its new text. Each line is encoded on its own, so "
                "with a BPE vocabulary no merge spans two turns (docs/sampling.md); a line that "
                "cannot be encoded is reported and dropped");
  sub->add_flag("--json", command->json,
                "Print one JSON object: prompt_ids, ids (generated), text, timings");
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
