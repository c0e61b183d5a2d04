#pragma once
// GPT-2 in GGUF, as llama.cpp's converter writes it (include/wgpt/model_files.h).

#include <filesystem>

#include "wgpt/model_files.h"

namespace wgpt::model {

StoredModel read_gguf_model(const io::GgufFile& file);
tokenizer::Vocabulary read_gguf_vocabulary(const io::GgufFile& file);
void write_gguf_model(const Model& model, const tokenizer::Vocabulary& vocabulary,
                      const std::filesystem::path& path, io::DType matrices);

}  // namespace wgpt::model
