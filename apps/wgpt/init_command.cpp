// `wgpt init`: a randomly initialised model directory, for benchmarks and training from scratch.
#include <cstdio>

#include "commands.h"
#include "data_files.h"
#include "model_options.h"
#include "option_checks.h"

namespace wgpt::cli {
namespace {

struct InitCommand {
  std::string config = "gpt2";
  std::string output;
  uint64_t seed = 0;
  std::string format = "safetensors";
};

void run(const InitCommand& command) {
  const model::Config config = model::named_config(command.config);
  std::fprintf(stderr,
               "initialising %zu layers, %zu heads, %zu wide, %zu positions, vocab %zu "
               "(%.1fM parameters), seed %llu\n",
               config.n_layer, config.n_head, config.n_embd, config.n_ctx, config.vocab_size,
               static_cast<double>(config.parameter_count()) / 1e6,
               static_cast<unsigned long long>(command.seed));
  // Found before anything is written: a directory without its tokenizer cannot generate.
  const std::map<std::string, std::string> tokenizer_files =
      config.tokenizer == "gpt2-bpe" ? gpt2_tokenizer_files()
                                     : std::map<std::string, std::string>{};
  const model::Model model = model::Model::random(config, command.seed);
  std::fprintf(stderr, "writing %s\n", command.output.c_str());
  // The weights and the tokenizer as one update: never a model directory without its tokenizer.
  io::DirectoryUpdate update(command.output);
  model.save(update, command.format == "fzm" ? io::Format::fzm : io::Format::safetensors);
  for (const auto& [name, content] : tokenizer_files) update.add_text(name, content);
  update.commit();
  if (tokenizer_files.empty()) {
    std::fprintf(stderr,
                 "warning: %s has no tokenizer: vocabulary %zu is not GPT-2's (50257), so add a "
                 "vocab.json of your own before generating with it\n",
                 command.output.c_str(), config.vocab_size);
  }
}

}  // namespace

void add_init_command(CLI::App& app) {
  auto command = std::make_shared<InitCommand>();
  CLI::App* sub = app.add_subcommand("init", "Write a randomly initialised model directory");
  sub->add_option("--config", command->config,
                  "gpt2, gpt2-medium, gpt2-large, gpt2-xl, or N_LAYER,N_HEAD,N_EMBD,N_CTX,VOCAB")
      ->capture_default_str();
  sub->add_option("-o,--output", command->output, "The model directory to write")->required();
  sub->add_option("--seed", command->seed, "Seed of the initialisation")
      ->check(whole_number(0, kAnyUint64))
      ->capture_default_str();
  sub->add_option("--format", command->format, "safetensors or fzm (q4)")
      ->check(CLI::IsMember({"safetensors", "fzm"}))
      ->capture_default_str();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
