#pragma once
// GPT-2 as HF transformers defines it: pre-LayerNorm blocks, learned positions, a fused QKV
// projection, tanh GELU ("gelu_new"), and an LM head tied to the token embedding. Weights keep
// HF's Conv1D layout [in, out]. One Model runs on the CPU (the reference) or on a GPU context.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "wgpt/gpu.h"
#include "wgpt/io.h"
#include "wgpt/ops.h"
#include "wgpt/tensor.h"

namespace wgpt::model {

struct Config {
  size_t n_layer = 0;
  size_t n_head = 0;
  size_t n_embd = 0;
  size_t n_ctx = 0;  // positions the model has (HF `n_positions`, else `n_ctx`)
  size_t vocab_size = 0;
  float layer_norm_epsilon = 1e-5f;
  std::optional<uint32_t> eos_token_id;
  std::string tokenizer;  // "char", "gpt2-bpe", or empty (decided by the files present)

  size_t head_dim() const { return n_embd / n_head; }
  // What every attention score is multiplied by: 1 / sqrt(head_dim).
  float attention_scale() const;
  // Parses HF's config.json fields, then check()s them; an error names the missing or malformed
  // field and `source`.
  static Config from_json(const std::string& text, const std::string& source = "config.json");
  // DIR/config.json (a regular file of at most 1 MiB).
  static Config load(const std::filesystem::path& model_dir);
  std::string to_json() const;
  // Throws wgpt::Error naming `source` unless every size is positive and within wgpt's limits
  // (1024 layers, 65536 wide, 2^20 positions, 2^24 tokens, a model the address space holds),
  // n_embd is a multiple of n_head, and eos_token_id is a token. Every way of making a Model
  // checks its config, so no shape downstream divides by zero or overflows.
  void check(const std::string& source) const;
  // Parameters in the model (the tied LM head counted once).
  uint64_t parameter_count() const;
};

// A parameter's HF name (unprefixed, as on the hub) and its shape.
struct NamedShape {
  std::string name;
  io::Shape shape;
};

// Every parameter of a model with this config, in HF's order: wte, wpe, h.0.* … h.{L-1}.*, ln_f.*.
std::vector<NamedShape> parameter_shapes(const Config& config);

// Checks that a checkpoint holding `tensors` has every parameter `config` needs, as floats of the
// shape it needs (with or without the `transformer.` prefix): the checks Model::from_tensors makes
// before loading, from a file's index alone (io::read_index), so a scan can tell whether a
// checkpoint loads without reading its data. Throws wgpt::Error naming the first problem.
void check_checkpoint(const Config& config, const io::TensorIndex& tensors);

// The GPT-2 named shapes: gpt2 (124M), gpt2-medium (355M), gpt2-large, gpt2-xl; or
// "N_LAYER,N_HEAD,N_EMBD,N_CTX,VOCAB". Throws on anything else.
Config named_config(const std::string& name);

struct LayerWeights {
  Tensor ln1_gamma, ln1_beta;
  Tensor qkv_weight, qkv_bias;              // [C, 3C], [3C]
  Tensor attn_proj_weight, attn_proj_bias;  // [C, C], [C]
  Tensor ln2_gamma, ln2_beta;
  Tensor fc_weight, fc_bias;              // [C, 4C], [4C]
  Tensor mlp_proj_weight, mlp_proj_bias;  // [4C, C], [C]
};

// The weights, in HF's Conv1D layout. The matrices (qkv, attention and MLP projections) and the
// token table are stored in the model's weight dtype (f32, f16, bf16 or q4: include/wgpt/tensor.h),
// read widened to f32 by every op; biases, LayerNorm parameters and positions stay f32.
struct Weights {
  // The token table [vocab, C] as consecutive row blocks, each within the device's storage
  // binding limit (one block on the CPU); a q4 block starts on a q4 block.
  std::vector<Tensor> token_embedding;
  Tensor position_embedding;  // [n_ctx, C]
  std::vector<LayerWeights> layers;
  Tensor final_gamma, final_beta;
  // A 64-bit digest of the token table's values as they were loaded (training them in place does
  // not update it): models whose digests agree share one table, without reading GPU memory back
  // (which the browser cannot do synchronously).
  uint64_t token_table_digest = 0;
};

// Keys and values of every layer for positions [0, length), each [n_head, n_ctx, head_dim].
class KvCache {
 public:
  size_t length() const { return length_; }
  void clear() { length_ = 0; }

 private:
  friend class Model;
  friend class Decoder;
  friend class BatchDecoder;
  std::vector<Tensor> keys, values;
  size_t length_ = 0;
};

struct ForwardOptions {
  bool all_logits = true;          // logits for every position, else only the last
  bool capture_attention = false;  // each layer's probabilities [n_head, t, kv_len]
  bool capture_hidden = false;     // n_layer + 1 hidden states, as HF's output_hidden_states
  // The probe's per-block detail for blocks [0, detail_layers), plus the final LayerNorm's output
  // when any: the names and shapes are in include/wgpt/probe.h's table.
  size_t detail_layers = 0;
};

// A tensor of the forward pass under its probe capture name (include/wgpt/probe.h).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

struct ForwardOutput {
  Tensor logits;                  // [t, vocab] or [1, vocab]
  std::vector<Tensor> attention;  // per layer, when captured
  // hidden[0] = embeddings, hidden[i] = output of block i-1, the last = after the final LayerNorm.
  std::vector<Tensor> hidden;
  std::vector<NamedTensor> detail;  // in the order the pass computes them, when asked for
};

// The weight dtype a command takes when none is asked for: f16 on a hardware GPU (half the bytes
// of f32 for every decode step to read; logits within the tolerance tests/gpu/weight_dtype_test.cpp
// states), f32 on a software adapter (llvmpipe, SwiftShader: the reference-exact path) and on the
// CPU.
DType default_weight_dtype(const gpu::Context* context);

// How a GPU model that is not loaded for training stores its weight matrices: in column strips
// (Layout::column_strips), which the decode step's products read in a quarter to an eighth of the
// cache lines, unless $WGPT_MATRIX_LAYOUT is "rows" (row-major; "strips" names the default). Any
// other value throws wgpt::Error.
Layout matrix_layout_from_environment();

struct LoadOptions {
  // The weight dtype (see Weights). Without one, a model whose every tensor came from .fzm groups
  // of 64 keeps its q4 blocks on a GPU and every other model takes f32.
  std::optional<DType> weights;
  // Load weights that hold NaN or infinity instead of refusing them (to inspect a damaged or
  // diverged checkpoint: what it generates is garbage).
  bool allow_non_finite = false;
  // Keep the weight matrices row-major, as training needs (train::parameters, and so every
  // training or evaluation pass of wgpt::train, refuses a GPU model without it): it updates them in
  // place and multiplies by their transposes. Otherwise a GPU model stores them as
  // matrix_layout_from_environment() says.
  bool trainable = false;
};

class Model {
 public:
  // Loads config.json and model.safetensors or model.fzm from a model directory (both at once is
  // an error: which one is meant is ambiguous). A null context loads onto the CPU.
  static Model load(const std::filesystem::path& model_dir,
                    std::shared_ptr<gpu::Context> context = nullptr, LoadOptions options = {});
  // From tensors with HF names (with or without the `transformer.` prefix; `h.N.attn.bias` mask
  // buffers and an `lm_head.weight` equal to the token table are ignored). Every shape is checked
  // against the config; a tensor the model does not use, a name present with and without the
  // prefix, and (unless allowed) a non-finite value are errors naming the tensor.
  static Model from_tensors(const Config& config, const io::TensorFile& tensors,
                            std::shared_ptr<gpu::Context> context = nullptr,
                            LoadOptions options = {});
  // Random weights as GPT-2 initialises them (N(0, 0.02), residual projections scaled by
  // 1/√(2·n_layer), LayerNorm 1/0, biases 0), reproducible from `seed`, stored as
  // options.weights (f32 without one). options.allow_non_finite has nothing to allow here.
  static Model random(const Config& config, uint64_t seed,
                      std::shared_ptr<gpu::Context> context = nullptr, LoadOptions options = {});

  const Config& config() const { return config_; }
  const Weights& weights() const { return weights_; }
  DType weight_dtype() const { return weights_.token_embedding.front().dtype(); }
  // How the layers' matrices are stored (Layout: column strips only on a GPU, unless trainable).
  Layout matrix_layout() const { return weights_.layers.front().qkv_weight.layout(); }
  // The bytes every weight tensor takes in storage (packed dtypes as packed).
  size_t weight_bytes() const;
  bool on_gpu() const { return context_ != nullptr; }
  const std::shared_ptr<gpu::Context>& context() const { return context_; }

  // How the forward pass's GPU products multiply: f32 (the default), or mixed: f16 operands and
  // f32 sums on the tensor cores where the device has them (docs/precision.md). The fused decode
  // path (Decoder) keeps its f32 kernels either way.
  ops::Precision precision() const { return precision_; }
  void set_precision(ops::Precision precision) { precision_ = precision; }

  KvCache new_cache() const;

  // Runs `ids` at positions [cache.length(), cache.length() + ids.size()) and appends their keys
  // and values to the cache. Throws on ids ≥ vocab_size, an empty input, or positions past n_ctx.
  ForwardOutput forward(std::span<const uint32_t> ids, KvCache& cache,
                        const ForwardOptions& options = {}) const;
  // The body alone: the hidden state after the final LayerNorm, [t, C].
  Tensor body(std::span<const uint32_t> ids, KvCache& cache) const;
  // The body over `sequences` sequences of equal length packed one after another in `ids`, each
  // from position 0 and attending only to itself, with no cache: the hidden states after the final
  // LayerNorm, [ids.size(), C], each sequence's rows equal to body() over it alone up to the
  // rounding of the larger products. A scored text's windows in one pass (its products on many
  // rows fill a GPU that one window leaves half idle). Throws as forward() does, and when the
  // sequences do not divide ids or are longer than the context.
  Tensor packed_body(std::span<const uint32_t> ids, size_t sequences) const;
  // Logits [t, vocab] from hidden states [t, C] given from outside (the tied LM head).
  Tensor head(const Tensor& hidden) const;

  // The weights under HF's unprefixed names, as host tensors (for saving).
  std::vector<io::TensorData> to_tensor_data() const;
  // Writes config.json and model.safetensors (or model.fzm, q4) into `model_dir` as one
  // io::DirectoryUpdate, which also removes the other format's weights: a reader sees the old
  // model or the new one, never a mix, and never two weight files.
  void save(const std::filesystem::path& model_dir,
            io::Format format = io::Format::safetensors) const;
  // The same files added to an update the caller commits (a checkpoint adds its own to it).
  void save(io::DirectoryUpdate& update, io::Format format = io::Format::safetensors) const;

 private:
  Model(Config config, Weights weights, std::shared_ptr<gpu::Context> context)
      : config_(std::move(config)), weights_(std::move(weights)), context_(std::move(context)) {}
  Tensor run_body(std::span<const uint32_t> ids, KvCache& cache, ForwardOutput* capture,
                  const ForwardOptions& options) const;
  // Throws unless every id is inside the vocabulary.
  void check_ids(std::span<const uint32_t> ids) const;
  // `values` as a u32 tensor on the model's device: on the GPU written into a pooled buffer before
  // anything of the pass is recorded, so that a pass of the same shape binds the same buffers as
  // the last one and every bind group comes from the context's cache.
  Tensor upload_u32(std::span<const uint32_t> values) const;
  // One block, every intermediate kept for the probe's hooks (capture non-null) or fused: the
  // attention in one pass (ops::causal_attention) and the residual adds and GELU in the products.
  Tensor run_block(size_t layer, const Tensor& x, KvCache& cache, size_t position,
                   ForwardOutput* capture, const ForwardOptions& options) const;
  // The fused block's output for the last `kept_rows` rows of x (all rows store their keys and
  // values).
  Tensor run_fused_block(size_t layer, const Tensor& x, KvCache& cache, size_t position,
                         size_t kept_rows) const;

  Config config_;
  Weights weights_;
  std::shared_ptr<gpu::Context> context_;
  ops::Precision precision_ = ops::Precision::f32;
};

}  // namespace wgpt::model
