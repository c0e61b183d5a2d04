// GPT-2 in GGUF as llama.cpp's converter (convert_hf_to_gguf.py, GPT2Model) writes it: llama.cpp's
// tensor names, the four per-block products transposed from HF's Conv1D [in, out] to [out, in],
// position embeddings and every 1-D tensor in F32, the hyperparameters under gpt2.*, and the
// vocabulary under tokenizer.ggml.* with model "gpt2" and pre-tokenizer "gpt-2". Character
// vocabularies, which llama.cpp has no model for, are written with model "wgpt-char".

#include "model/gguf_model.h"

#include <nlohmann/json.hpp>
#include <set>

#include "model/weight_names.h"

namespace wgpt::model {
namespace {

constexpr const char* kCharVocabularyModel = "wgpt-char";
constexpr const char* kEndOfText = "<|endoftext|>";

// A parameter's GGUF name and whether GGUF stores it transposed.
struct GgufName {
  std::string name;
  bool transposed = false;
};

GgufName gguf_name(const std::string& hf) {
  static const std::map<std::string, std::string> kGlobal = {
      {"wte.weight", "token_embd.weight"},
      {"wpe.weight", "position_embd.weight"},
      {"ln_f.weight", "output_norm.weight"},
      {"ln_f.bias", "output_norm.bias"},
  };
  static const std::map<std::string, GgufName> kBlock = {
      {"ln_1.weight", {"attn_norm.weight"}},
      {"ln_1.bias", {"attn_norm.bias"}},
      {"attn.c_attn.weight", {"attn_qkv.weight", true}},
      {"attn.c_attn.bias", {"attn_qkv.bias"}},
      {"attn.c_proj.weight", {"attn_output.weight", true}},
      {"attn.c_proj.bias", {"attn_output.bias"}},
      {"ln_2.weight", {"ffn_norm.weight"}},
      {"ln_2.bias", {"ffn_norm.bias"}},
      {"mlp.c_fc.weight", {"ffn_up.weight", true}},
      {"mlp.c_fc.bias", {"ffn_up.bias"}},
      {"mlp.c_proj.weight", {"ffn_down.weight", true}},
      {"mlp.c_proj.bias", {"ffn_down.bias"}},
  };
  if (const auto it = kGlobal.find(hf); it != kGlobal.end()) return {it->second};
  // "h.N.rest" → "blk.N." + rest's GGUF name.
  const size_t dot = hf.find('.', 2);
  const auto it = kBlock.find(hf.substr(dot + 1));
  if (!hf.starts_with("h.") || dot == std::string::npos || it == kBlock.end()) {
    throw Error("no GGUF name for parameter '" + hf + "'");
  }
  return {"blk." + hf.substr(2, dot - 2) + "." + it->second.name, it->second.transposed};
}

// [rows, cols] row-major → [cols, rows].
std::vector<float> transpose(std::span<const float> values, size_t rows, size_t cols) {
  std::vector<float> out(values.size());
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
  }
  return out;
}

Config read_config(const io::GgufFile& file) {
  const std::string& architecture = file.text("general.architecture");
  if (architecture != "gpt2") {
    throw Error(file.source() + " holds a '" + architecture +
                "' model; wgpt runs GPT-2 (general.architecture \"gpt2\")");
  }
  const io::GgufTensorInfo* embedding = file.find("token_embd.weight");
  if (!embedding || embedding->shape.size() != 2) {
    throw Error(file.source() + " has no 2-D tensor 'token_embd.weight'");
  }
  nlohmann::json fields = {
      {"n_layer", file.integer("gpt2.block_count")},
      {"n_head", file.integer("gpt2.attention.head_count")},
      {"n_embd", file.integer("gpt2.embedding_length")},
      {"n_ctx", file.integer("gpt2.context_length")},
      {"vocab_size", embedding->shape[0]},
      {"layer_norm_epsilon", file.number("gpt2.attention.layer_norm_epsilon")},
  };
  const auto& metadata = file.metadata();
  if (metadata.count("tokenizer.ggml.eos_token_id")) {
    fields["eos_token_id"] = file.integer("tokenizer.ggml.eos_token_id");
  }
  if (metadata.count("tokenizer.ggml.model")) {
    fields["tokenizer"] =
        file.text("tokenizer.ggml.model") == kCharVocabularyModel ? "char" : "gpt2-bpe";
  }
  const Config config = Config::from_json(fields.dump(), file.source());
  if (metadata.count("gpt2.feed_forward_length") &&
      file.integer("gpt2.feed_forward_length") != static_cast<int64_t>(4 * config.n_embd)) {
    throw Error(file.source() + ": gpt2.feed_forward_length is " +
                std::to_string(file.integer("gpt2.feed_forward_length")) +
                "; GPT-2's MLP is 4 × n_embd = " + std::to_string(4 * config.n_embd));
  }
  // Each block has twelve tensors: a larger count cannot be true, and would be slow to find out.
  if (config.n_layer > file.tensors().size()) {
    throw Error(file.source() + ": gpt2.block_count " + std::to_string(config.n_layer) +
                " is more than the file's " + std::to_string(file.tensors().size()) + " tensors");
  }
  return config;
}

std::pair<std::string, std::string> split_merge(const std::string& merge, size_t rank,
                                                const std::string& source) {
  const size_t space = merge.find(' ');
  if (space == std::string::npos || space == 0 || space + 1 == merge.size() ||
      merge.find(' ', space + 1) != std::string::npos) {
    throw Error(source + ": tokenizer.ggml.merges entry " + std::to_string(rank + 1) +
                " is not a pair \"left right\"");
  }
  return {merge.substr(0, space), merge.substr(space + 1)};
}

const std::vector<std::string>& string_array(const io::GgufFile& file, const std::string& key) {
  const io::GgufValue& value = file.value(key);
  if (!value.is_array || value.type != io::GgufType::string) {
    throw Error(file.source() + ": metadata '" + key + "' is not an array of strings");
  }
  return value.strings;
}

io::GgufMetadata vocabulary_metadata(const tokenizer::Vocabulary& vocabulary) {
  io::GgufMetadata metadata;
  metadata["tokenizer.ggml.tokens"] = io::GgufValue::string_array(vocabulary.tokens);
  if (vocabulary.kind == tokenizer::Vocabulary::Kind::characters) {
    metadata["tokenizer.ggml.model"] = io::GgufValue::string(kCharVocabularyModel);
    return metadata;
  }
  metadata["tokenizer.ggml.model"] = io::GgufValue::string("gpt2");
  metadata["tokenizer.ggml.pre"] = io::GgufValue::string("gpt-2");
  std::vector<std::string> merges;
  for (const auto& [left, right] : vocabulary.merges) merges.push_back(left + " " + right);
  metadata["tokenizer.ggml.merges"] = io::GgufValue::string_array(std::move(merges));
  // llama.cpp's token types: 1 normal, 3 control (the end-of-text token, also BOS and EOS).
  std::vector<int64_t> types(vocabulary.tokens.size(), 1);
  for (size_t id = 0; id < vocabulary.tokens.size(); ++id) {
    if (vocabulary.tokens[id] == kEndOfText) {
      types[id] = 3;
      metadata["tokenizer.ggml.bos_token_id"] = io::GgufValue::u32(static_cast<uint32_t>(id));
      metadata["tokenizer.ggml.eos_token_id"] = io::GgufValue::u32(static_cast<uint32_t>(id));
    }
  }
  metadata["tokenizer.ggml.token_type"] = io::GgufValue::i32_array(std::move(types));
  // GPT-2 starts a text with no BOS token: say so, whatever a reader's default.
  io::GgufValue no = io::GgufValue::u32(0);
  no.type = io::GgufType::boolean;
  metadata["tokenizer.ggml.add_bos_token"] = no;
  return metadata;
}

// llama.cpp's general.file_type for the matrices' type.
uint32_t file_type(io::DType matrices) {
  switch (matrices) {
    case io::DType::f16:
      return 1;
    case io::DType::q4_0:
      return 2;
    case io::DType::q8_0:
      return 7;
    case io::DType::bf16:
      return 32;
    default:
      return 0;
  }
}

// How a parameter is stored: matrices as asked — f16 where a quantized type's blocks of 32 do not
// fit its rows, as llama.cpp's converter falls back — everything else f32.
io::DType stored_dtype(const std::string& hf_name, const io::Shape& gguf_shape,
                       io::DType matrices) {
  if (!is_matrix(hf_name)) return io::DType::f32;
  const bool quantized = matrices == io::DType::q8_0 || matrices == io::DType::q4_0;
  return quantized && gguf_shape.back() % 32 != 0 ? io::DType::f16 : matrices;
}

}  // namespace

StoredModel read_gguf_model(const io::GgufFile& file) {
  StoredModel stored{read_config(file), {}};
  std::set<std::string> used = {"output.weight"};  // the tied LM head: wte is read instead
  for (const auto& [name, shape] : parameter_shapes(stored.config)) {
    const GgufName mapped = gguf_name(name);
    const io::GgufTensorInfo* info = file.find(mapped.name);
    if (!info) {
      throw Error(file.source() + " has no tensor '" + mapped.name + "' (HF's '" + name + "')");
    }
    used.insert(mapped.name);
    const io::Shape expected = mapped.transposed ? io::Shape{shape[1], shape[0]} : shape;
    if (info->shape != expected) {
      throw Error(file.source() + ": tensor '" + mapped.name + "' has the wrong shape for the " +
                  "config (HF's '" + name + "')");
    }
    const io::TensorData data = file.decode(*info);
    if (data.is_integer())
      throw Error(file.source() + ": tensor '" + mapped.name + "' holds integers");
    std::vector<float> values =
        mapped.transposed
            ? transpose(data.floats(), static_cast<size_t>(shape[1]), static_cast<size_t>(shape[0]))
            : std::vector<float>(data.floats().begin(), data.floats().end());
    stored.tensors.tensors.push_back(
        io::TensorData::from_floats(name, shape, std::move(values), data.dtype()));
  }
  for (const io::GgufTensorInfo& tensor : file.tensors()) {
    if (!used.count(tensor.name)) {
      throw Error(file.source() + " holds tensor '" + tensor.name + "', which GPT-2 does not have");
    }
  }
  return stored;
}

tokenizer::Vocabulary read_gguf_vocabulary(const io::GgufFile& file) {
  const std::string& model = file.text("tokenizer.ggml.model");
  tokenizer::Vocabulary vocabulary;
  vocabulary.tokens = string_array(file, "tokenizer.ggml.tokens");
  if (model == kCharVocabularyModel) {
    vocabulary.kind = tokenizer::Vocabulary::Kind::characters;
    return vocabulary;
  }
  if (model != "gpt2") {
    throw Error(file.source() + ": tokenizer.ggml.model is '" + model +
                "'; wgpt reads GPT-2's byte-level BPE (\"gpt2\")");
  }
  const std::vector<std::string>& merges = string_array(file, "tokenizer.ggml.merges");
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    vocabulary.merges.push_back(split_merge(merges[rank], rank, file.source()));
  }
  return vocabulary;
}

void write_gguf_model(const Model& model, const tokenizer::Vocabulary& vocabulary,
                      const std::filesystem::path& path, io::DType matrices) {
  static const std::set<io::DType> kMatrixTypes = {io::DType::f32, io::DType::f16, io::DType::bf16,
                                                   io::DType::q8_0, io::DType::q4_0};
  if (!kMatrixTypes.count(matrices)) {
    throw Error("GGUF stores matrices as F32, F16, BF16, Q8_0 or Q4_0, not " +
                std::string(io::dtype_name(matrices)));
  }
  const Config& config = model.config();
  io::GgufMetadata metadata = vocabulary_metadata(vocabulary);
  const auto u32 = [](size_t value) { return io::GgufValue::u32(static_cast<uint32_t>(value)); };
  metadata["general.architecture"] = io::GgufValue::string("gpt2");
  metadata["general.name"] = io::GgufValue::string(path.stem().string());
  metadata["general.file_type"] = io::GgufValue::u32(file_type(matrices));
  if (matrices == io::DType::q8_0 || matrices == io::DType::q4_0) {
    metadata["general.quantization_version"] = io::GgufValue::u32(2);
  }
  metadata["gpt2.block_count"] = u32(config.n_layer);
  metadata["gpt2.context_length"] = u32(config.n_ctx);
  metadata["gpt2.embedding_length"] = u32(config.n_embd);
  metadata["gpt2.feed_forward_length"] = u32(4 * config.n_embd);
  metadata["gpt2.attention.head_count"] = u32(config.n_head);
  metadata["gpt2.attention.layer_norm_epsilon"] = io::GgufValue::f32(config.layer_norm_epsilon);

  std::vector<io::TensorData> tensors;
  for (const io::TensorData& tensor : model.to_tensor_data()) {
    const GgufName mapped = gguf_name(tensor.name());
    io::Shape shape = tensor.shape();
    std::vector<float> values(tensor.floats().begin(), tensor.floats().end());
    if (mapped.transposed) {
      values = transpose(values, static_cast<size_t>(shape[0]), static_cast<size_t>(shape[1]));
      std::swap(shape[0], shape[1]);
    }
    const io::DType dtype = stored_dtype(tensor.name(), shape, matrices);
    tensors.push_back(
        io::TensorData::from_floats(mapped.name, std::move(shape), std::move(values), dtype));
  }
  io::save_gguf(path, metadata, tensors);
}

}  // namespace wgpt::model
