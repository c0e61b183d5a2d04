#include "train_export.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

namespace wgpt::cli {
namespace {

// A hyperparameter as it was written on the command line (0.001, not the f32's 0.0010000000475).
double as_given(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
  return std::strtod(text, nullptr);
}

}  // namespace

void export_q4(const model::Model& model, const std::filesystem::path& dir,
               const std::map<std::string, std::string>& tokenizer_files,
               const train::TokenSplit& data, const train::TrainOptions& options,
               const ExportRecord& record) {
  std::fprintf(stderr, "exporting q4 to %s\n", dir.string().c_str());
  {
    io::DirectoryUpdate update(dir);
    model.save(update, io::Format::fzm);
    for (const auto& [name, content] : tokenizer_files) update.add_text(name, content);
    update.commit();
  }
  // Scored as served: the .fzm read back and dequantized (the values a q4 GPU model reads), not
  // the f32 weights in memory; the loss goes through the training forward, which takes f32
  // row-major matrices.
  const model::Model served =
      model::Model::load(dir, model.context(), {.weights = DType::f32, .trainable = true});
  std::fprintf(stderr, "scoring the quantized model\n");
  const double held_out = train::evaluate(served, data.validation, options.batch, options.seq_len,
                                          options.eval_windows);
  const double train_loss =
      train::evaluate(served, data.train, options.batch, options.seq_len, options.eval_windows);
  const model::Config& c = model.config();
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  nlohmann::ordered_json metrics = {
      {"held_out_loss", held_out},
      {"held_out_loss_f32", record.validation_loss_f32},
      {"train_loss", train_loss},
      {"last_step_loss", record.last_step_loss},
      {"loss_unit", "nats per token, mean over " + std::to_string(options.eval_windows) +
                        " evenly spaced windows of " + std::to_string(options.seq_len) +
                        " tokens (held out: the last 10% of the text)"},
      {"steps", options.steps},
      {"batch", options.batch},
      {"context", options.seq_len},
      {"tokens_seen", options.steps * options.batch * options.seq_len},
      {"parameters", c.parameter_count()},
      {"model",
       {{"n_layer", c.n_layer},
        {"n_head", c.n_head},
        {"n_embd", c.n_embd},
        {"n_ctx", c.n_ctx},
        {"vocab_size", c.vocab_size}}},
      {"optimizer",
       {{"lr", as_given(options.schedule.lr)},
        {"warmup", options.schedule.warmup},
        {"cosine", options.schedule.cosine},
        {"weight_decay", as_given(options.adamw.weight_decay)},
        {"dropout", as_given(options.dropout)},
        {"clip", as_given(options.adamw.clip)},
        {"beta2", as_given(options.adamw.beta2)},
        {"seed", options.seed}}},
      {"train_seconds", record.elapsed_s},
      {"tokens_per_s", record.tokens_per_s},
      {"adapter", model.on_gpu() ? model.context()->adapter_info().device + " (" +
                                       model.context()->adapter_info().backend + ")"
                                 : "cpu"},
      {"data",
       {{"file", record.data},
        {"train_tokens", data.train.size()},
        {"held_out_tokens", data.validation.size()}}},
      {"date", date},
      {"command", record.command},
  };
  io::write_file_atomically(dir / "metrics.json", metrics.dump(2) + "\n");
  std::fprintf(stderr, "q4 held-out loss %.4f (f32 %.4f), train loss %.4f\n", held_out,
               record.validation_loss_f32, train_loss);
}

}  // namespace wgpt::cli
