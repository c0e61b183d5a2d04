// `wgpt train`: train a GPT-2 on a text file, from scratch or from a model directory, with
// checkpoints that resume exactly, a metrics log, a loss curve and samples along the way.
#include <cstdio>
#include <fstream>

#include "commands.h"
#include "data_files.h"
#include "host.h"
#include "model_options.h"
#include "option_checks.h"
#include "train_export.h"
#include "train_progress.h"
#include "wgpt/generate.h"
#include "wgpt/model_files.h"
#include "wgpt/train.h"

namespace wgpt::cli {
namespace {

struct TrainCommand {
  std::string data;
  std::string tokenizer = "char";
  tokenizer::TokenizerOptions tokenizer_options;  // --unknown: for a vocabulary from --init
  std::string init;
  size_t layers = 6, heads = 6, embd = 384, ctx = 256;
  size_t steps = 1000, batch = 16;
  float lr = 1e-3f, weight_decay = 0.1f, clip = 1.0f, dropout = 0.0f;
  size_t warmup = 100;
  bool cosine = false;
  uint64_t seed = 1337;
  std::string out;
  bool resume = false;
  size_t eval_every = 250, sample_every = 0, checkpoint_every = 500, eval_windows = 64;
  std::string sample_prompt = "The ";
  size_t sample_tokens = 200;
  std::string backend = "gpu";
  std::string precision = "f32";
  std::string export_q4;
  // Set when the option was given (shape options are checked against a resumed checkpoint).
  CLI::Option* shape_options[4] = {};
  CLI::Option* tokenizer_option = nullptr;
};

// A training text is held in memory with a 32-bit id per token.
constexpr uint64_t kMaxTrainingTextBytes = uint64_t{4} << 30;
constexpr uint64_t kMaxTokenizerFileBytes = uint64_t{256} << 20;

std::string read_training_text(const TrainCommand& command) {
  std::string text = io::read_file(command.data, kMaxTrainingTextBytes, "a training text");
  if (text.empty()) throw Error("the training text " + command.data + " is empty");
  return text;
}

// The tokenizer files of a model directory that exist, by name.
std::map<std::string, std::string> tokenizer_files_in(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const char* name : {"vocab.json", "merges.txt", "tokenizer.json"}) {
    if (std::filesystem::exists(dir / name)) {
      files[name] = io::read_file(dir / name, kMaxTokenizerFileBytes, "a tokenizer file");
    }
  }
  return files;
}

std::unique_ptr<tokenizer::Tokenizer> tokenizer_from(
    const std::map<std::string, std::string>& files, const tokenizer::TokenizerOptions& options) {
  if (files.count("merges.txt")) {
    return tokenizer::BpeTokenizer::from_vocab_and_merges(files.at("vocab.json"),
                                                          files.at("merges.txt"), options);
  }
  return tokenizer::CharTokenizer::from_json(files.at("vocab.json"), options);
}

// What a run trains: the model, its tokenizer, and the files that go with it into checkpoints.
struct Setup {
  std::optional<model::Model> model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::map<std::string, std::string> tokenizer_files;
  size_t seq_len = 0;
};

void require_same_shape(const TrainCommand& command, const model::Config& saved) {
  const size_t asked[4] = {command.layers, command.heads, command.embd, command.ctx};
  const size_t have[4] = {saved.n_layer, saved.n_head, saved.n_embd, saved.n_ctx};
  const char* names[4] = {"--layers", "--heads", "--embd", "--ctx"};
  for (int i = 0; i < 4; ++i) {
    if (command.shape_options[i]->count() > 0 && asked[i] != have[i]) {
      throw Error("cannot resume: the checkpoint in " + command.out + " has " + names[i] + " " +
                  std::to_string(have[i]) + ", but this run asks for " + std::to_string(asked[i]) +
                  " (a different model shape: train into another --out directory)");
    }
  }
}

Setup set_up(const TrainCommand& command, const std::shared_ptr<gpu::Context>& context) {
  Setup setup;
  if (command.resume) {
    if (!command.init.empty()) throw Error("give either --init or --resume, not both");
    const model::Config config = train::train_state_config(command.out);
    require_same_shape(command, config);
    setup.tokenizer_files = tokenizer_files_in(command.out);
    if (setup.tokenizer_files.empty()) {
      throw Error("cannot resume: " + command.out + " holds no tokenizer files");
    }
    // Random weights of the right shape; the checkpoint overwrites them.
    setup.model.emplace(model::Model::random(config, command.seed, context, {.trainable = true}));
  } else if (!command.init.empty()) {
    // A directory's tokenizer files travel as they are; a GGUF file's vocabulary becomes files.
    const std::filesystem::path init = resolve_model(command.init);
    setup.tokenizer_files = std::filesystem::is_directory(init)
                                ? tokenizer_files_in(init)
                                : model::load_vocabulary(init).files();
    if (setup.tokenizer_files.empty()) throw Error(init.string() + " holds no tokenizer files");
    // Training keeps f32 master weights, whatever the checkpoint stores.
    setup.model.emplace(
        model::Model::load(init, context, {.weights = DType::f32, .trainable = true}));
  } else {
    const bool bpe = command.tokenizer == "gpt2";
    setup.tokenizer_files =
        bpe ? gpt2_tokenizer_files()
            : std::map<std::string, std::string>{
                  {"vocab.json", tokenizer::char_vocabulary_json(read_training_text(command))}};
    model::Config config;
    config.n_layer = command.layers;
    config.n_head = command.heads;
    config.n_embd = command.embd;
    config.n_ctx = command.ctx;
    config.tokenizer = bpe ? "gpt2-bpe" : "char";
    setup.tokenizer = tokenizer_from(setup.tokenizer_files, command.tokenizer_options);
    config.vocab_size = setup.tokenizer->vocab_size();
    config.eos_token_id = setup.tokenizer->eos_id();
    if (config.n_embd % config.n_head != 0) {
      throw Error("--embd " + std::to_string(config.n_embd) + " is not a multiple of --heads " +
                  std::to_string(config.n_head));
    }
    setup.model.emplace(model::Model::random(config, command.seed, context, {.trainable = true}));
  }
  if (!setup.tokenizer)
    setup.tokenizer = tokenizer_from(setup.tokenizer_files, command.tokenizer_options);
  const bool is_bpe = setup.tokenizer->kind() == "bpe";
  if (command.tokenizer_option->count() > 0 && is_bpe != (command.tokenizer == "gpt2")) {
    throw Error("--tokenizer " + command.tokenizer + " disagrees with the model's " +
                std::string(setup.tokenizer->kind()) + " tokenizer");
  }
  if (setup.tokenizer->vocab_size() > setup.model->config().vocab_size) {
    throw Error("the tokenizer has " + std::to_string(setup.tokenizer->vocab_size()) +
                " tokens but the model only " + std::to_string(setup.model->config().vocab_size));
  }
  const bool ctx_given = command.shape_options[3]->count() > 0;
  setup.seq_len = ctx_given || command.init.empty() ? command.ctx : setup.model->config().n_ctx;
  return setup;
}

// The samples' prompt, checked before training starts, and only when samples are asked for (a
// text without a capital T used to fail on the default prompt "The " without saying why).
std::vector<uint32_t> sample_prompt_ids(const TrainCommand& command,
                                        const tokenizer::Tokenizer& tokenizer) {
  if (command.sample_every == 0) return {};
  std::vector<uint32_t> ids;
  try {
    ids = tokenizer.encode(command.sample_prompt);
  } catch (const Error& error) {
    throw Error(std::string("--sample-prompt: ") + error.what());
  }
  if (ids.empty()) throw Error("--sample-prompt is empty: a sample needs a prompt");
  return ids;
}

train::TokenSplit load_data(const TrainCommand& command, const tokenizer::Tokenizer& tokenizer,
                            size_t seq_len) {
  const std::string text = read_training_text(command);
  std::fprintf(stderr, "tokenizing %s (%zu bytes, %s tokenizer)\n", command.data.c_str(),
               text.size(), std::string(tokenizer.kind()).c_str());
  const std::vector<uint32_t> ids = tokenizer.encode(text);
  train::TokenSplit split = train::split_tokens(ids, seq_len);
  std::fprintf(stderr, "%zu tokens: %zu to train on, %zu held out\n", ids.size(),
               split.train.size(), split.validation.size());
  return split;
}

void run(const TrainCommand& command) {
  std::error_code error;
  if (!command.export_q4.empty() && std::filesystem::weakly_canonical(command.export_q4, error) ==
                                        std::filesystem::weakly_canonical(command.out, error)) {
    throw Error("--export-q4 " + command.export_q4 +
                " is the training directory: export into another directory");
  }
  if (command.resume && !train::has_train_state(command.out)) {
    throw Error("cannot resume: " + command.out + " holds no checkpoint (train_state.safetensors)");
  }
  std::shared_ptr<gpu::Context> context;
  if (command.backend == "gpu") context = gpu::Context::create();
  Setup setup = set_up(command, context);
  setup.model->set_precision(parse_precision(command.precision));
  model::Model& model = *setup.model;
  const train::TokenSplit data = load_data(command, *setup.tokenizer, setup.seq_len);
  const model::Config& c = model.config();
  std::fprintf(stderr,
               "training %zu layers, %zu heads, %zu wide, context %zu, vocab %zu (%.2fM "
               "parameters) on %s, batch %zu × %zu\n",
               c.n_layer, c.n_head, c.n_embd, c.n_ctx, c.vocab_size,
               static_cast<double>(c.parameter_count()) / 1e6,
               context ? context->adapter_info().device.c_str() : "the CPU", command.batch,
               setup.seq_len);

  train::TrainOptions options;
  options.steps = command.steps;
  options.batch = command.batch;
  options.seq_len = setup.seq_len;
  options.schedule = {.lr = command.lr, .warmup = command.warmup, .cosine = command.cosine};
  options.adamw = {.weight_decay = command.weight_decay, .clip = command.clip};
  options.dropout = command.dropout;
  options.seed = command.seed;
  options.checkpoint_every = command.checkpoint_every;
  options.eval_every = command.eval_every;
  options.sample_every = command.sample_every;
  options.eval_windows = command.eval_windows;
  options.out_dir = command.out;
  options.resume = command.resume;
  options.model_files = setup.tokenizer_files;

  TrainProgress progress;
  train::TrainCallbacks callbacks;
  callbacks.on_step = [&](const train::StepReport& report) { progress.step(report); };
  callbacks.on_eval = [&](size_t step, double loss) {
    char line[96];
    std::snprintf(line, sizeof line, "step %zu: held-out loss %.4f", step, loss);
    progress.note(line);
  };
  callbacks.on_note = [&](const std::string& message) { progress.note(message); };
  const std::vector<uint32_t> prompt = sample_prompt_ids(command, *setup.tokenizer);
  callbacks.sample = [&](size_t step, const model::Model& trained) {
    generate::GenerateOptions generation{
        .max_new_tokens = command.sample_tokens,
        .sampling = {.temperature = 0.8f, .top_k = 40, .seed = step}};
    const std::string text = command.sample_prompt +
                             generate::generate(trained, *setup.tokenizer, prompt, generation).text;
    progress.note("sample at step " + std::to_string(step) + ":\n" + text);
    return text;
  };
  const train::TrainResult result = train::run(model, data, options, callbacks);
  std::fprintf(stderr, "done: %zu steps in %s, last loss %.4f, held-out loss %.4f; model in %s\n",
               result.steps, format_duration(result.elapsed_s).c_str(), result.last_loss,
               result.validation_loss, command.out.c_str());
  if (!command.export_q4.empty()) {
    const double tokens = static_cast<double>(result.steps * command.batch * setup.seq_len);
    export_q4(model, command.export_q4, setup.tokenizer_files, data, options,
              {command_line(), command.data, result.elapsed_s, result.last_loss,
               result.validation_loss, result.elapsed_s > 0 ? tokens / result.elapsed_s : 0});
  }
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto c = std::make_shared<TrainCommand>();
  CLI::App* sub = app.add_subcommand("train", "Train a GPT-2 on a text file");
  sub->add_option("--data", c->data, "The training text (the last 10% is held out)")->required();
  c->tokenizer_option =
      sub->add_option("--tokenizer", c->tokenizer, "char (built from the text) or gpt2 (BPE)")
          ->check(CLI::IsMember({"char", "gpt2"}))
          ->capture_default_str();
  sub->add_option("--init", c->init,
                  "Start from this model instead of random weights (anything -m takes elsewhere)");
  add_unknown_character_options(*sub, c->tokenizer_options);
  c->shape_options[0] = sub->add_option("--layers", c->layers, "Layers of a new model")
                            ->check(whole_number(1, 1024))
                            ->capture_default_str();
  c->shape_options[1] = sub->add_option("--heads", c->heads, "Attention heads of a new model")
                            ->check(whole_number(1, 65536))
                            ->capture_default_str();
  c->shape_options[2] = sub->add_option("--embd", c->embd, "Width of a new model")
                            ->check(whole_number(1, 65536))
                            ->capture_default_str();
  c->shape_options[3] =
      sub->add_option("--ctx", c->ctx, "Context of a new model, and the training sequence length")
          ->check(whole_number(1, 1 << 20))
          ->capture_default_str();
  constexpr uint64_t kMaxSteps = 1'000'000'000;
  sub->add_option("--steps", c->steps, "Optimizer steps")
      ->check(whole_number(1, kMaxSteps))
      ->capture_default_str();
  sub->add_option("--batch", c->batch, "Sequences per step")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--lr", c->lr, "Peak learning rate")
      ->check(real_number(0, kLargestFloat, "(]"))
      ->capture_default_str();
  sub->add_option("--warmup", c->warmup, "Steps of linear warm-up")
      ->check(whole_number(0, kMaxSteps))
      ->capture_default_str();
  sub->add_flag("--cosine", c->cosine, "Cosine decay to 10% of --lr after the warm-up");
  sub->add_option("--dropout", c->dropout,
                  "Dropout probability in [0, 1) on the embeddings, the attention probabilities "
                  "and the residual branches, as GPT-2 (0: none)")
      ->check(real_number(0, 1, "[)"))
      ->capture_default_str();
  sub->add_option("--weight-decay", c->weight_decay, "AdamW decay of matrices and embeddings")
      ->check(real_number(0, kLargestFloat, "[]"))
      ->capture_default_str();
  sub->add_option("--clip", c->clip, "Clip the global gradient norm to this (0: off)")
      ->check(real_number(0, kLargestFloat, "[]"))
      ->capture_default_str();
  sub->add_option("--seed", c->seed, "Seed of the initialisation and the batches")
      ->check(whole_number(0, kAnyUint64))
      ->capture_default_str();
  sub->add_option("--out", c->out, "The model directory to write checkpoints into")->required();
  sub->add_flag("--resume", c->resume, "Continue the run whose checkpoint is in --out");
  sub->add_option("--eval-every", c->eval_every, "Held-out loss every N steps (0: at the end)")
      ->check(whole_number(0, kMaxSteps))
      ->capture_default_str();
  sub->add_option("--eval-windows", c->eval_windows, "Windows of held-out text per evaluation")
      ->check(whole_number(1, 1 << 20))
      ->capture_default_str();
  sub->add_option("--sample-every", c->sample_every, "A sample every N steps (0: never)")
      ->check(whole_number(0, kMaxSteps))
      ->capture_default_str();
  sub->add_option("--sample-prompt", c->sample_prompt, "The samples' prompt")
      ->capture_default_str();
  sub->add_option("--sample-tokens", c->sample_tokens, "Tokens per sample")
      ->check(whole_number(0, kMaxGeneratedTokens))
      ->capture_default_str();
  sub->add_option("--checkpoint-every", c->checkpoint_every,
                  "A checkpoint every N steps (0: at the end only)")
      ->check(whole_number(0, kMaxSteps))
      ->capture_default_str();
  add_precision_option(*sub, c->precision);
  sub->add_option("--backend", c->backend, "cpu (the reference) or gpu")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  sub->add_option("--export-q4", c->export_q4,
                  "At the end, also write the model as served (q4 .fzm) with metrics.json here");
  sub->callback([c] { run(*c); });
}

}  // namespace wgpt::cli
