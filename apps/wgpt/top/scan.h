#pragma once
// `wgpt top`'s scan: the checkpoints under some folders (safetensors, fzm; GGUF listed as not yet
// runnable), each read from its headers alone, with its sidecar files (config, tokenizer) and a
// verdict: runnable, or the first reason it is not.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wgpt/io.h"
#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::top {

struct ScannedModel {
  std::filesystem::path weights;  // the checkpoint file
  std::string name;               // its path below the folder it was found in
  std::string format;             // "safetensors", "fzm" or "gguf"
  uint64_t bytes = 0;
  std::vector<io::TensorInfo> tensors;
  uint64_t parameters = 0;  // elements of every tensor
  std::optional<model::Config> config;
  std::filesystem::path config_path;  // empty when there is none
  tokenizer::TokenizerFiles tokenizer_files;
  std::string tokenizer_kind;  // "bpe" or "char" once it loaded
  std::string problem;         // why it cannot run; empty when it can

  bool runnable() const { return problem.empty(); }
};

// Every checkpoint below `roots` (a file root is inspected as it is), in up to 4 nested folders,
// skipping hidden folders, node_modules, target and dist; sorted by path. `on_found` sees each as
// it is inspected (progress).
std::vector<ScannedModel> scan(const std::vector<std::filesystem::path>& roots,
                               const std::function<void(const ScannedModel&)>& on_found = {});
// One checkpoint, `name` as it is listed.
ScannedModel inspect(const std::filesystem::path& weights, std::string name);

// One line for scripts, tab-separated: name, bytes, parameters, tensors, layers/heads/width,
// context, tokenizer, and "runnable" or "not runnable: why" ("-" for what is unknown).
std::string list_line(const ScannedModel& model);

// Loads a runnable checkpoint for running (a null context: the CPU).
struct LoadedModel {
  model::Model model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
};
LoadedModel load(const ScannedModel& scanned, std::shared_ptr<gpu::Context> context);

}  // namespace wgpt::top
