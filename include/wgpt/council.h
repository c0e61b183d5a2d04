#pragma once
// wgpt::council — several small GPT-2 "experts" that share one token table, merged in hidden space
// step by step (Forge's council). Each step:
//   1. every expert runs the new ids through its own blocks (its own KV cache) to its final hidden
//      state h_i (after ln_f) and its logits — from the one shared head, since the tables are
//      equal;
//   2. each expert's entropy H_i (nats) of softmax(logits_i) says how sure it is;
//   3. the router weighs the experts by w = softmax(−β·H): the surer, the heavier;
//   4. the merged hidden state Σ w_i·h_i goes through the shared head to the merged logits, from
//      which the token is chosen by the sampling options of `generate`, as their definition
//      (model::choose_token, include/wgpt/sampling.h) chooses it, with the council's text so far
//      as the context (the penalties' window and the draw's index);
//   5. the consensus is the fraction of experts whose own most likely token is the chosen one.
// On the GPU all of it — every expert's blocks, the router and both heads — is one submit, and
// everything the step reports comes back in one readback.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "wgpt/generate.h"
#include "wgpt/model.h"
#include "wgpt/probe.h"
#include "wgpt/sampling.h"
#include "wgpt/tokenizer.h"

namespace wgpt::council {

inline constexpr float kDefaultBeta = 2.0f;

struct Expert {
  std::string name;
  model::Model model;
};

// What one expert said at a step.
struct ExpertStep {
  float weight = 0;                  // the router's weight
  float entropy = 0;                 // of its next-token distribution, in nats
  std::vector<float> hidden;         // its final hidden state [n_embd]
  std::vector<float> logits;         // its next-token logits [vocab]
  std::vector<model::TopToken> top;  // its most likely tokens, most likely first
};

// One step of the council.
struct Step {
  std::vector<ExpertStep> experts;
  std::vector<float> hidden;         // Σ w_i·h_i [n_embd]
  std::vector<float> logits;         // the merged logits [vocab]
  std::vector<model::TopToken> top;  // from the merged logits
  uint32_t chosen = 0;               // the token sampled from the merged logits
  float consensus = 0;  // the fraction of experts whose own most likely token is `chosen`
  size_t leader = 0;    // the expert with the largest weight (the first on ties)
};

class Council {
 public:
  // Throws wgpt::Error naming the expert when the experts cannot be merged: fewer than one, on
  // different devices, different widths (n_embd) or vocabularies, or token tables that differ
  // (hidden states of different tables do not share a basis; compared by the digest of their
  // values, model::Weights::token_table_digest). Depths and head counts may differ; the council's
  // context is the smallest expert's.
  explicit Council(std::vector<Expert> experts, float beta = kDefaultBeta);

  size_t size() const { return experts_.size(); }
  const std::vector<Expert>& experts() const { return experts_; }
  // The first expert's configuration, with n_ctx the council's context.
  const model::Config& config() const { return config_; }
  bool on_gpu() const { return experts_.front().model.on_gpu(); }

  float beta() const { return beta_; }
  // Throws unless beta is finite and ≥ 0. Takes effect at the next step.
  void set_beta(float beta);

  // The tokens every expert has run so far, in order: the sampling's context.
  std::span<const uint32_t> text() const { return text_; }
  // Positions every expert has run so far.
  size_t length() const { return text_.size(); }
  // Forgets the text: fresh caches.
  void reset();

  // Runs `ids` at the next positions of every expert and chooses the next token from the merged
  // logits with `sampling` (model::choose_token, the text() so far as its context); `top_n` tokens
  // are reported per expert and merged (at least 1). Throws as Model::forward does.
  Step step(std::span<const uint32_t> ids, const model::SamplingOptions& sampling, size_t top_n);
  // The same, delivering the step (or the error) to `done`: on the GPU from a later
  // gpu::Context::poll() natively or from the browser's event loop; on the CPU before returning.
  void step_async(std::span<const uint32_t> ids, const model::SamplingOptions& sampling,
                  size_t top_n, std::function<void(Result<Step>)> done);

 private:
  void check_ids(std::span<const uint32_t> ids) const;
  std::vector<Expert> experts_;
  std::vector<model::KvCache> caches_;
  std::vector<uint32_t> text_;
  model::Config config_;
  float beta_;
};

// ---- loading
// --------------------------------------------------------------------------------------

struct Loaded {
  std::unique_ptr<Council> council;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
};

// A council manifest (Forge's layout): {"experts": [{"file": "expert0.fzm", "label": "…"}, …]}
// with config.json and the tokenizer files (vocab.json, merges.txt) beside it; the files are .fzm
// or .safetensors, named relative to the manifest. A null context loads onto the CPU.
Loaded load_manifest(const std::filesystem::path& manifest,
                     std::shared_ptr<gpu::Context> context = nullptr);
// Model directories (as `wgpt generate -m` takes), each expert named by its folder; their
// tokenizers must agree token for token.
Loaded load_directories(const std::vector<std::filesystem::path>& model_dirs,
                        std::shared_ptr<gpu::Context> context = nullptr);

// The experts a manifest names, in order: (file, label). Throws naming `source` on bad JSON.
struct ManifestEntry {
  std::string file;
  std::string label;
};
std::vector<ManifestEntry> parse_manifest(const std::string& json, const std::string& source);

// ---- generation
// -----------------------------------------------------------------------------------

// Called once per step with what the council said (step 0 is the prompt's); return false to stop
// (the step's token is then not accepted).
using StepCallback = std::function<bool(size_t step, const Step& step_result)>;

struct CouncilOptions {
  generate::GenerateOptions generate;
  size_t top_n = 5;  // tokens reported per expert and merged
};

// Streams the council's text for a prompt: generate()'s loop with the council as the model. The
// caches start afresh; the router's β is read at every step (set_beta between steps applies).
generate::GenerateResult generate(Council& council, const tokenizer::Tokenizer& tokenizer,
                                  std::span<const uint32_t> prompt_ids,
                                  const CouncilOptions& options, const StepCallback& on_step,
                                  const generate::TextCallback& on_text = {});
// The same without blocking: `done` runs once with the result or the first error (including one a
// callback threw), from gpu::Context::poll() natively or the browser's event loop on the GPU.
// `council` and `tokenizer` must outlive the run.
void generate_async(Council& council, const tokenizer::Tokenizer& tokenizer,
                    std::span<const uint32_t> prompt_ids, const CouncilOptions& options,
                    StepCallback on_step, generate::TextCallback on_text,
                    std::function<void(Result<generate::GenerateResult>)> done);

}  // namespace wgpt::council
