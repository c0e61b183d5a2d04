#pragma once
// What every model-running subcommand shares: -m, --backend and --adapter, --dtype, --unknown,
// and loading them.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::cli {

struct ModelOptions {
  std::string model_dir;
  std::string backend = "auto";  // auto | gpu | cpu (backend_choice.h)
  std::string adapter;           // the WebGPU kind; empty: $WGPT_BACKEND, else auto
  std::string dtype;             // the weight dtype; empty: weight_dtype_for's default
  model::LoadOptions load;       // its weights are set from dtype when the model loads
  std::string precision = "mixed";
  tokenizer::TokenizerOptions tokenizer;
};

// -m on every command that takes a model, explained the same way everywhere.
CLI::Option* add_model_option(CLI::App& command, std::string& model);
void add_model_options(CLI::App& command, ModelOptions& options);
// --backend alone, for commands that load models their own way (council, top).
void add_backend_option(CLI::App& command, std::string& backend);
// A GPU context for "gpu" (the adapter follows $WGPT_BACKEND), none for "cpu".
std::shared_ptr<gpu::Context> context_for(const std::string& backend);
// --unknown error|replace|skip and --replacement CHAR: what a character vocabulary does with a
// character it lacks, on every command that encodes text.
void add_unknown_character_options(CLI::App& command, tokenizer::TokenizerOptions& options);
// Adds --dtype to a command that loads or builds a model.
void add_dtype_option(CLI::App& command, std::string& dtype);
// The weight dtype `--dtype` names, or the default for `model` (a resolved -m): a model directory
// with model.fzm keeps its q4 blocks on a GPU; otherwise model::default_weight_dtype (f16 on a
// hardware GPU, f32 on a software adapter and the CPU). std::nullopt only for the .fzm case.
std::optional<DType> weight_dtype_for(const std::string& dtype, const std::filesystem::path& model,
                                      const gpu::Context* context);

// What -m names, tried in order: a model directory or GGUF file at that path; a model shipped with
// wgpt (share/wgpt/models/NAME); a hub id in the Hugging Face cache. Throws naming every place
// looked in.
std::filesystem::path resolve_model(const std::string& name);
// The tokenizer of a resolved model (its directory's files or its GGUF metadata).
std::unique_ptr<tokenizer::Tokenizer> load_model_tokenizer(
    const std::filesystem::path& model, const tokenizer::TokenizerOptions& options = {});

// The most tokens one command generates: far past any context, so it never truncates a request.
inline constexpr uint64_t kMaxGeneratedTokens = 1 << 20;

// --precision f32|mixed (ops::Precision), with `default_value` and a help line that says what
// mixed does; parse_precision reads the value back.
CLI::Option* add_precision_option(CLI::App& command, std::string& value);
ops::Precision parse_precision(const std::string& value);

struct LoadedModel {
  model::Model model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  double load_ms = 0;
};

LoadedModel load_model(const ModelOptions& options);

}  // namespace wgpt::cli
