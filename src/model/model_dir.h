#pragma once
// Model directories, read and written (include/wgpt/model_files.h is the public face).

#include <filesystem>

#include "wgpt/model_files.h"

namespace wgpt::model {

// config.json beside model.safetensors, model.safetensors.index.json (with its shards) or
// model.fzm, tried in that order.
StoredModel read_model_dir(const std::filesystem::path& dir);

// config.json and the weights: model.safetensors (matrices as `matrices`: f32, f16 or bf16) or
// model.fzm (every tensor q4; `matrices` f32).
// Written as one io::DirectoryUpdate, which also removes the other formats' weights: a reader
// sees the old model or the new one, never a mix, and never two weight files.
void write_model_dir(const Model& model, const std::filesystem::path& dir, io::Format format,
                     io::DType matrices);
// The same files added to an update the caller commits (a checkpoint adds its own to it).
void add_model_files(const Model& model, io::DirectoryUpdate& update, io::Format format,
                     io::DType matrices);

}  // namespace wgpt::model
