#include "model_options.h"

#include <chrono>
#include <map>

#include "backend_choice.h"
#include "data_files.h"
#include "wgpt/model_files.h"

namespace wgpt::cli {

CLI::Option* add_model_option(CLI::App& command, std::string& model) {
  return command.add_option(
      "-m,--model", model,
      "The model: a directory (config.json, model.safetensors, model.safetensors.index.json "
      "with shards, or model.fzm; tokenizer files), a .gguf file, the name of a model wgpt "
      "ships (brown-char), or a hub id in the Hugging Face cache (gpt2, openai-community/gpt2)");
}

void add_model_options(CLI::App& command, ModelOptions& options) {
  add_model_option(command, options.model_dir)->required();
  command
      .add_option("--backend", options.backend,
                  "auto (the GPU, or the CPU when WebGPU offers only a software rasteriser), gpu "
                  "or cpu (the reference)")
      ->check(CLI::IsMember({"auto", "gpu", "cpu"}))
      ->capture_default_str();
  add_dtype_option(command, options.dtype);
  command.add_flag("--allow-non-finite", options.load.allow_non_finite,
                   "Load weights holding NaN or infinity instead of refusing them (to inspect a "
                   "damaged checkpoint: its text is garbage)");
  command.add_option("--adapter", options.adapter,
                     "The WebGPU backend: auto, vulkan, metal, d3d12 or gl (default: "
                     "$WGPT_BACKEND, else auto)");
  add_precision_option(command, options.precision);
  add_unknown_character_options(command, options.tokenizer);
}

void add_unknown_character_options(CLI::App& command, tokenizer::TokenizerOptions& options) {
  using tokenizer::UnknownCharacters;
  const std::map<std::string, UnknownCharacters> policies{{"error", UnknownCharacters::error},
                                                          {"replace", UnknownCharacters::replace},
                                                          {"skip", UnknownCharacters::skip}};
  command
      .add_option("--unknown", options.unknown_characters,
                  "What a character vocabulary does with a character of the text it lacks: error "
                  "(the default: stop, naming the character and its position), replace (encode "
                  "--replacement instead) or skip (drop it). BPE vocabularies encode every byte")
      ->transform(CLI::CheckedTransformer(policies).description("{error,replace,skip}"))
      ->type_name("TEXT")
      ->default_str("error");
  command
      .add_option("--replacement", options.replacement,
                  "The vocabulary character --unknown replace encodes instead of an unknown one")
      ->capture_default_str();
}

void add_dtype_option(CLI::App& command, std::string& dtype) {
  command
      .add_option("--dtype", dtype,
                  "How the weight matrices and the token table are stored: f32, f16, bf16 or q4 "
                  "(default: f16 on a hardware GPU, f32 on a software adapter and the CPU; a "
                  "model.fzm keeps its q4 blocks on a GPU)")
      ->check(CLI::IsMember({"f32", "f16", "bf16", "q4"}));
}

std::optional<DType> weight_dtype_for(const std::string& dtype, const std::filesystem::path& model,
                                      const gpu::Context* context) {
  if (!dtype.empty()) return parse_weight_dtype(dtype);
  std::error_code error;
  if (!model.empty() && !std::filesystem::exists(model / "model.safetensors", error) &&
      std::filesystem::exists(model / "model.fzm", error)) {
    return std::nullopt;
  }
  return model::default_weight_dtype(context);
}

void add_backend_option(CLI::App& command, std::string& backend) {
  command.add_option("--backend", backend, "cpu (the reference) or gpu")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
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

std::shared_ptr<gpu::Context> context_for(const std::string& backend) {
  return backend == "gpu" ? gpu::Context::create() : nullptr;
}

LoadedModel load_model(const ModelOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<gpu::Context> context = open_backend(options.backend, options.adapter);
  const std::filesystem::path path = resolve_model(options.model_dir);
  model::LoadOptions load = options.load;
  load.weights = weight_dtype_for(options.dtype, path, context.get());
  std::optional<io::DirectoryReader> reading;  // the weights and the tokenizer of one version
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) reading.emplace(path);
  LoadedModel loaded{model::Model::load(path, context, load),
                     load_model_tokenizer(path, options.tokenizer), 0};
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

std::filesystem::path resolve_model(const std::string& name) {
  if (std::filesystem::exists(name)) return name;
  const bool plain_name = !name.empty() && name.find_first_of("/\\") == std::string::npos &&
                          name != "." && name != "..";
  if (plain_name) {
    if (auto shipped = find_data(std::filesystem::path("models") / name)) return *shipped;
  }
  if (auto snapshot = model::find_in_hf_cache(name)) return *snapshot;
  std::string shipped_folders;
  for (const std::filesystem::path& folder : data_folders()) {
    shipped_folders += (shipped_folders.empty() ? "" : ", ") + (folder / "models").string();
  }
  throw Error("model " + name + " does not exist: no such directory or file, no model of that " +
              "name shipped with wgpt (in " +
              (shipped_folders.empty() ? std::string("no data folder") : shipped_folders) +
              "), and no such hub id in the Hugging Face cache (looked for " +
              model::hf_cache_folder(name).string() + "; set HF_HOME or HF_HUB_CACHE to use " +
              "another cache)");
}

std::unique_ptr<tokenizer::Tokenizer> load_model_tokenizer(
    const std::filesystem::path& model, const tokenizer::TokenizerOptions& options) {
  return tokenizer::make_tokenizer(model::load_vocabulary(model), options);
}

}  // namespace wgpt::cli
