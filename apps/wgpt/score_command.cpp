// `wgpt score`: teacher-forced surprisal of a text, token by token — coloured in a terminal, one
// line per token otherwise, or one JSON object.

#include <cstdio>
#include <numbers>

#include "commands.h"
#include "host.h"
#include "model_options.h"
#include "option_checks.h"
#include "progress_line.h"
#include "prompt_options.h"
#include "token_json.h"
#include "wgpt/generate.h"
#include "wgpt/probe.h"

namespace wgpt::cli {
namespace {

struct ScoreCommand {
  ModelOptions model;
  std::string text;
  std::string file;
  bool text_given = false, file_given = false;
  size_t top_k = 5;
  size_t stride = 0;
  bool json = false;
};

std::string read_text(const ScoreCommand& command) {
  constexpr uint64_t kMaxTextBytes = uint64_t{256} << 20;
  if (!command.file_given) return command.text;
  return io::read_file(command.file, kMaxTextBytes, "a text to score");
}

// 256-colour foregrounds from green (expected) to red (surprising), one per bit up to 6.
const char* colour_for(double bits) {
  static constexpr const char* kScale[] = {"\033[38;5;40m",  "\033[38;5;112m", "\033[38;5;184m",
                                           "\033[38;5;214m", "\033[38;5;208m", "\033[38;5;202m",
                                           "\033[38;5;196m"};
  return kScale[std::min<size_t>(6, static_cast<size_t>(bits))];
}

void print_coloured(const model::Surprisal& scored, const tokenizer::Tokenizer& tokenizer) {
  // A BPE token may end inside a character: colour only whole characters, so that no escape
  // sequence lands between the bytes of one.
  generate::Utf8Stream stream;
  for (const model::TokenSurprisal& token : scored.tokens) {
    const std::string text = stream.push(tokenizer.token_bytes(token.id));
    if (token.bits) {
      std::printf("%s%s\033[0m", colour_for(*token.bits), text.c_str());
    } else {
      std::printf("%s", text.c_str());
    }
  }
  std::printf("%s\n\nbits: ", stream.finish().c_str());
  for (int bits = 0; bits <= 6; ++bits) {
    std::printf("%s%d%s\033[0m ", colour_for(bits), bits, bits == 6 ? "+" : "");
  }
  std::printf("\n");
}

// position, bits, token, alternatives — tab-separated, token texts as JSON strings.
void print_table(const model::Surprisal& scored, const tokenizer::Tokenizer& tokenizer) {
  std::printf("position\tbits\ttoken\talternatives\n");
  for (size_t i = 0; i < scored.tokens.size(); ++i) {
    const model::TokenSurprisal& token = scored.tokens[i];
    const std::string text = dump_json(tokenizer.token_bytes(token.id));
    std::string alternatives;
    for (const model::TopToken& alternative : token.alternatives) {
      char p[32];
      std::snprintf(p, sizeof p, " %.3f", alternative.probability);
      if (!alternatives.empty()) alternatives += ' ';
      alternatives += dump_json(tokenizer.token_bytes(alternative.id));
      alternatives += p;
    }
    if (token.bits) {
      std::printf("%zu\t%.3f\t%s\t%s\n", i, *token.bits, text.c_str(), alternatives.c_str());
    } else {
      std::printf("%zu\t-\t%s\t\n", i, text.c_str());
    }
  }
}

void print_json(const model::Surprisal& scored, const tokenizer::Tokenizer& tokenizer) {
  nlohmann::ordered_json tokens = nlohmann::ordered_json::array();
  for (const model::TokenSurprisal& token : scored.tokens) {
    nlohmann::ordered_json entry = token_json(tokenizer, token.id);
    entry["bits"] =
        token.bits ? nlohmann::ordered_json(*token.bits) : nlohmann::ordered_json(nullptr);
    entry["top"] = top_json(tokenizer, token.alternatives);
    tokens.push_back(std::move(entry));
  }
  const nlohmann::ordered_json out = {{"tokens", std::move(tokens)},
                                      {"mean_bits", scored.mean_bits},
                                      {"mean_nats", scored.mean_bits * std::numbers::ln2},
                                      {"perplexity", scored.perplexity},
                                      {"windows", scored.windows},
                                      {"stride", scored.stride}};
  std::printf("%s\n", dump_json(out).c_str());
}

void run(const ScoreCommand& command) {
  if (!command.text_given && !command.file_given) {
    throw Error("nothing to score: give --text TEXT or --file FILE");
  }
  const std::string text = read_text(command);
  if (text.empty()) throw Error("the text is empty: give some text to score");
  LoadedModel loaded = load_model(command.model);
  const model::Config& config = loaded.model.config();
  const std::vector<uint32_t> ids = loaded.tokenizer->encode(text);
  model::SurprisalOptions options{command.top_k, command.stride, {}};
  if (options.top_k > config.vocab_size) {
    std::fprintf(stderr, "note: --top-k %zu is more than the vocabulary of %zu: using %zu\n",
                 options.top_k, config.vocab_size, config.vocab_size);
    options.top_k = config.vocab_size;
  }
  if (options.stride >= config.n_ctx) {
    std::fprintf(stderr, "note: --stride %zu is not below the context of %zu: using %zu\n",
                 options.stride, config.n_ctx, config.n_ctx - 1);
  }
  auto progress = std::make_shared<ProgressLine>();
  options.on_window = [progress](size_t done, size_t total) {
    if (total < 2) return;
    progress->update("scoring: window " + std::to_string(done) + " of " + std::to_string(total));
    if (done == total) progress->done();
  };
  const model::Surprisal scored = model::surprisal(loaded.model, ids, options);
  if (command.json) return print_json(scored, *loaded.tokenizer);
  if (is_terminal(stdout)) {
    print_coloured(scored, *loaded.tokenizer);
  } else {
    print_table(scored, *loaded.tokenizer);
  }
  // Both units: training and the model READMEs report losses in nats per token.
  std::printf(
      "%zu tokens, %zu scored: mean %.3f bits/token (%.3f nats), perplexity %.3f (%zu window%s",
      ids.size(), ids.size() - 1, scored.mean_bits, scored.mean_bits * std::numbers::ln2,
      scored.perplexity, scored.windows, scored.windows == 1 ? ")\n" : "s");
  if (scored.windows > 1) {
    std::printf(" of %zu tokens, stride %zu)\n", config.n_ctx, scored.stride);
  }
}

}  // namespace

void add_score_command(CLI::App& app) {
  auto command = std::make_shared<ScoreCommand>();
  CLI::App* sub = app.add_subcommand(
      "score", "Surprisal of every token of a text (bits), with the model's top-k alternatives");
  add_model_options(*sub, command->model);
  CLI::Option* text = sub->add_option("--text", command->text, "The text to score");
  CLI::Option* file = sub->add_option("--file", command->file, "A file holding the text to score");
  text->excludes(file);
  sub->add_option("--top-k", command->top_k, "Alternatives to report per token")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--stride", command->stride,
                  "Window advance for texts longer than the context (0: half the context)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_flag("--json", command->json,
                "Print one JSON object: tokens, mean_bits, mean_nats, perplexity");
  sub->callback([command, text, file] {
    command->text_given = text->count() > 0;
    command->file_given = file->count() > 0;
    run(*command);
  });
}

}  // namespace wgpt::cli
