#pragma once
// What every model-running subcommand shares: -m DIR and --backend, and loading both.

#include <CLI/CLI.hpp>
#include <memory>
#include <optional>
#include <string>

#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::cli {

struct ModelOptions {
  std::string model_dir;
  std::string backend = "gpu";  // cpu | gpu (the GPU adapter follows $WGPT_BACKEND)
  std::string dtype;            // the weight dtype; empty: weight_dtype_for's default
  std::string precision = "mixed";
};

void add_model_options(CLI::App& command, ModelOptions& options);
// Adds --dtype to a command that loads or builds a model.
void add_dtype_option(CLI::App& command, std::string& dtype);
// The weight dtype `--dtype` names, or the default: an .fzm model directory keeps its q4 blocks on
// a GPU; otherwise model::default_weight_dtype (f16 on a hardware GPU, f32 on a software adapter
// and the CPU). std::nullopt only for the .fzm case.
std::optional<DType> weight_dtype_for(const std::string& dtype, const std::string& model_dir,
                                      const gpu::Context* context);

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

// Where the tool finds the GPT-2 tokenizer files it copies into new model directories.
std::filesystem::path gpt2_tokenizer_dir();

}  // namespace wgpt::cli
