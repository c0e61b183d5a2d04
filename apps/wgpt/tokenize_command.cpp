// `wgpt tokenize`: the ids a model's tokenizer gives a text.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "model_options.h"
#include "prompt_options.h"
#include "wgpt/tokenizer.h"

namespace wgpt::cli {
namespace {

struct TokenizeCommand {
  std::string model_dir;
  tokenizer::TokenizerOptions tokenizer;
  std::string text;
  bool json = false;
};

void run(const TokenizeCommand& command) {
  auto tokenizer = load_model_tokenizer(resolve_model(command.model_dir), command.tokenizer);
  const std::string text = read_prompt({command.text, ""});
  const std::vector<uint32_t> ids = tokenizer->encode(text);
  if (command.json) {
    std::printf("%s\n", nlohmann::json({{"ids", ids}}).dump().c_str());
    return;
  }
  for (size_t i = 0; i < ids.size(); ++i) std::printf(i ? " %u" : "%u", ids[i]);
  std::printf("\n");
}

}  // namespace

void add_tokenize_command(CLI::App& app) {
  auto command = std::make_shared<TokenizeCommand>();
  CLI::App* sub = app.add_subcommand("tokenize", "Print the token ids of a text");
  add_model_option(*sub, command->model_dir)->required();
  sub->add_option("text", command->text, "The text, or - to read standard input")->required();
  sub->add_flag("--json", command->json, "Print {\"ids\": [...]}");
  add_unknown_character_options(*sub, command->tokenizer);
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
