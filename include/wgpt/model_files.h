#pragma once
// Where models come from and go to: a model directory (config.json beside model.safetensors — or
// model.safetensors.index.json with its shards — or model.fzm, plus tokenizer files), a GGUF file
// as llama.cpp writes GPT-2, or a hub id in the Hugging Face cache; and writing any of the
// formats, which is what `wgpt convert` does.
//
//   auto stored = wgpt::model::load_stored("gpt2.Q8_0.gguf");       // or a directory
//   auto model = wgpt::model::Model::from_tensors(stored.config, stored.tensors);
//   auto tok = wgpt::tokenizer::make_tokenizer(wgpt::model::load_vocabulary("gpt2.Q8_0.gguf"));
//   if (auto dir = wgpt::model::find_in_hf_cache("openai-community/gpt2")) { ... }
//
// GGUF files hold GPT-2 under llama.cpp's names (token_embd, blk.N.attn_qkv, …) with the four
// per-block products transposed to [out, in]; reading maps them back to HF's names and Conv1D
// layout, and writing does the reverse (plus the metadata llama.cpp needs: gpt2.* hyperparameters,
// tokenizer.ggml.* with the vocabulary). A tied output.weight, if present, is not read.

#include <filesystem>
#include <optional>
#include <string_view>

#include "wgpt/gguf.h"
#include "wgpt/io.h"
#include "wgpt/model.h"
#include "wgpt/tokenizer.h"

namespace wgpt::model {

// A model as stored: its config and its weights under HF's unprefixed names and layout.
struct StoredModel {
  Config config;
  io::TensorFile tensors;
};

// `path`: a model directory or a .gguf file (recognised by its content). Errors name the path.
StoredModel load_stored(const std::filesystem::path& path);
// The vocabulary of a model directory (its tokenizer files) or of a GGUF file (its metadata).
tokenizer::Vocabulary load_vocabulary(const std::filesystem::path& path);

struct SaveOptions {
  io::Format format = io::Format::safetensors;
  // How the matrices (wte and each block's four products) are stored: f32, f16 or bf16 in
  // safetensors; f32, f16, bf16, q8_0 or q4_0 in GGUF (a matrix whose GGUF rows are not a multiple
  // of 32 falls back to f16, as llama.cpp's converter does). fzm stores every tensor as q4 and
  // takes f32 here. Biases, LayerNorm parameters and wpe always stay f32.
  io::DType matrices = io::DType::f32;
};

// Writes a model directory (config.json, the weights, the vocabulary's files) for safetensors and
// fzm, or one .gguf file holding all three.
void save_model(const Model& model, const tokenizer::Vocabulary& vocabulary,
                const std::filesystem::path& path, const SaveOptions& options = {});

// The Hugging Face hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub (nullopt when none of these
// variables is set).
std::optional<std::filesystem::path> hf_hub_cache();
// The snapshot folder of hub model `id` ("gpt2", "openai-community/gpt2") in that cache:
// models--ORG--NAME/snapshots/REV, REV being what refs/main names or else the only snapshot.
// nullopt when `id` is not a hub id or the cache has no such model; an error when the model is
// there but its snapshot cannot be chosen.
std::optional<std::filesystem::path> find_in_hf_cache(std::string_view id);
// Where find_in_hf_cache looks for `id` (for messages).
std::filesystem::path hf_cache_folder(std::string_view id);

}  // namespace wgpt::model
