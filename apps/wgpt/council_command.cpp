// `wgpt council`: several experts that share a token table, merged in hidden space token by token;
// streams the merged text, then a table of who led each token, or one JSON object per step.
#include <cstdio>

#include "commands.h"
#include "council_report.h"
#include "model_options.h"
#include "option_checks.h"
#include "sampling_options.h"
#include "token_json.h"
#include "wgpt/council.h"

namespace wgpt::cli {
namespace {

struct CouncilCommand {
  std::vector<std::string> model_dirs;
  std::string manifest;
  std::string backend = "gpu";
  std::string prompt;
  size_t tokens = 64;
  float beta = council::kDefaultBeta;
  size_t top_n = 5;
  generate::SamplingOptions sampling;
  bool ignore_end_of_text = false;
  bool json = false;
  bool table = true;
};

council::Loaded load(const CouncilCommand& command) {
  auto context = context_for(command.backend);
  if (!command.manifest.empty()) return council::load_manifest(command.manifest, context);
  std::vector<std::filesystem::path> dirs(command.model_dirs.begin(), command.model_dirs.end());
  return council::load_directories(dirs, context);
}

void describe(const council::Council& council) {
  std::fprintf(stderr, "council of %zu on %s, beta %.2f:", council.size(),
               council.on_gpu()
                   ? council.experts().front().model.context()->adapter_info().device.c_str()
                   : "the CPU",
               council.beta());
  for (const council::Expert& expert : council.experts()) {
    std::fprintf(stderr, " [%s]", expert.name.c_str());
  }
  std::fprintf(stderr, "\n");
}

void print_timings(const generate::GenerateResult& result) {
  const generate::Timings& t = result.timings;
  auto per_second = [](double ms, size_t n) {
    return ms > 0 ? 1000.0 * static_cast<double>(n) / ms : 0.0;
  };
  std::fprintf(stderr, "prompt:     %zu tokens in %.1f ms\n", t.prompt_tokens, t.prompt_ms);
  std::fprintf(stderr, "generation: %zu tokens, %.1f tok/s (stop: %s)\n", t.generated_tokens,
               per_second(t.generate_ms, t.generated_tokens), generate::to_string(result.stop));
}

void run(const CouncilCommand& command) {
  if (command.prompt.empty()) throw Error("the prompt is empty: give some text with -p");
  council::Loaded loaded = load(command);
  council::Council& council = *loaded.council;
  council.set_beta(command.beta);
  const std::vector<uint32_t> prompt_ids = loaded.tokenizer->encode(command.prompt);
  council::CouncilOptions options;
  options.generate.max_new_tokens = command.tokens;
  options.generate.sampling = command.sampling;
  options.generate.stop_at_end_of_text = !command.ignore_end_of_text;
  options.top_n = command.top_n;

  CouncilReport report(council, *loaded.tokenizer);
  if (!command.json) {
    describe(council);
    std::fputs(command.prompt.c_str(), stdout);
    std::fflush(stdout);
  }
  const generate::GenerateResult result = council::generate(
      council, *loaded.tokenizer, prompt_ids, options,
      [&](size_t index, const council::Step& step) {
        report.add(step);
        if (command.json) std::printf("%s\n", dump_json(report.step_json(index, step)).c_str());
        return true;
      },
      [&](std::string_view text) {
        if (!command.json) {
          std::fwrite(text.data(), 1, text.size(), stdout);
          std::fflush(stdout);
        }
        return true;
      });
  const size_t accepted = result.ids.size();
  if (command.json) {
    nlohmann::ordered_json summary = {{"prompt_ids", result.prompt_ids},
                                      {"ids", result.ids},
                                      {"text", result.text},
                                      {"stop", generate::to_string(result.stop)},
                                      {"beta", council.beta()},
                                      {"summary", report.summary_json(accepted)}};
    std::printf("%s\n", dump_json(summary).c_str());
    return;
  }
  std::printf("\n");
  if (command.table) report.print_table(accepted);
  std::printf("\n%s\n", report.summary(accepted).c_str());
  std::fflush(stdout);  // before the timings on stderr, so that a terminal shows them in order
  print_timings(result);
}

}  // namespace

void add_council_command(CLI::App& app) {
  auto command = std::make_shared<CouncilCommand>();
  CLI::App* sub = app.add_subcommand(
      "council",
      "Generate with several experts that share a token table, merged in hidden space: each "
      "token's router weights softmax(-beta * entropy) favour the experts that are surest");
  auto* dirs = sub->add_option("-m,--model", command->model_dirs,
                               "Model directories of the experts (two or more; their tokenizers "
                               "and token tables must be the same)");
  auto* manifest = sub->add_option(
      "--manifest", command->manifest,
      "A council manifest.json ({\"experts\": [{\"file\", \"label\"}]}) with config.json and the "
      "tokenizer beside it");
  dirs->excludes(manifest);
  sub->add_option("-p,--prompt", command->prompt, "The prompt text")->required();
  sub->add_option("-n,--tokens", command->tokens, "How many tokens to generate")
      ->check(whole_number(0, kMaxGeneratedTokens))
      ->capture_default_str();
  sub->add_option("--beta", command->beta,
                  "The router's sharpness: 0 weighs the experts alike, larger follows the surest")
      ->check(real_number(0, kLargestFloat, "[]"))
      ->capture_default_str();
  sub->add_option("--top", command->top_n, "Tokens listed per expert and merged with --json")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  add_backend_option(*sub, command->backend);
  add_sampling_options(*sub, command->sampling, command->ignore_end_of_text);
  sub->add_flag("--json", command->json,
                "Print one JSON object per step (token, consensus, leader, every expert's "
                "weight, entropy and top tokens), then a summary object");
  sub->add_flag("!--no-table", command->table, "Leave out the per-token table");
  sub->callback([command] {
    if (command->model_dirs.empty() && command->manifest.empty()) {
      throw Error("name the experts: -m DIR -m DIR ... or --manifest FILE");
    }
    run(*command);
  });
}

}  // namespace wgpt::cli
