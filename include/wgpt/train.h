#pragma once
// wgpt::train — training GPT-2 on the CPU or a GPU: the batched loss and its gradients (through the
// autograd tape), AdamW, the learning-rate schedule, batches of text, checkpoints that resume a run
// exactly, and the training loop that ties them together.
//
// A model trains in place: parameters() returns handles that share the model's storage, so after
// every optimizer step the Model itself holds the new weights (it generates and saves as it is).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/model.h"
#include "wgpt/tensor.h"

namespace wgpt::train {

// ---- Parameters -----------------------------------------------------------------------------

struct Parameter {
  std::string name;  // HF's unprefixed name ("h.0.attn.c_attn.weight")
  Tensor value;      // shares the model's storage
  bool decay;  // weight decay applies: matrices and embeddings (rank ≥ 2), not biases or norms
};

// Every parameter of the model in HF order (wte, wpe, h.0.* …, ln_f.*). Throws when the model
// holds packed weights or was loaded onto a GPU without LoadOptions::trainable (its matrices then
// lie in column strips), and when the token table is split into chunks (a device whose binding
// limit is below it cannot train it).
std::vector<Parameter> parameters(const model::Model& model);

// ---- Loss and gradients ---------------------------------------------------------------------

// `sequences` rows of `seq_len` tokens: targets[i] is the token after inputs[i].
struct Batch {
  size_t sequences = 0;
  size_t seq_len = 0;
  std::vector<uint32_t> inputs, targets;
};

struct LossAndGrads {
  Tensor token_losses;  // [sequences · seq_len] cross-entropy per position, on the device
  // Of the mean loss times grad_scale, one per parameter, in parameters() order. Mixed precision
  // scales the loss (by a power of two near the batch's positions) so that the gradients the
  // tensor cores take as f16 stay clear of f16's subnormals; f32 leaves it at 1.
  std::vector<Tensor> grads;
  float grad_scale = 1.0f;
};

// GPT-2's dropout in one training step, as HF's GPT2 applies it with one probability for
// embd_pdrop, attn_pdrop and resid_pdrop: on the embedding sum, on the attention probabilities,
// and on the attention's and the MLP's outputs after their projections. Each site's mask is a hash
// of (seed, step, the site, the element) (ops::dropout): nothing to save, and a resumed run redraws
// the masks of the steps it repeats.
struct Dropout {
  float p = 0.0f;  // 0: no dropout, the pass as without it
  uint64_t seed = 0;
  uint64_t step = 0;  // the optimizer step, 0-based
};

// The forward pass over the whole batch at once (B × T rows; attention over B · n_head heads),
// with `dropout`, recorded on a tape and replayed backwards, its products in the model's precision
// (model::Model::precision: f32 master weights either way). Throws on ids outside the vocabulary
// or seq_len past the model's context.
LossAndGrads loss_and_grads(const model::Model& model, const Batch& batch,
                            const Dropout& dropout = {});
// The forward pass alone, without dropout (evaluation): the per-position losses.
Tensor token_losses(const model::Model& model, const Batch& batch);

// ---- AdamW ----------------------------------------------------------------------------------

struct AdamWConfig {
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;  // on parameters with decay set; the others get 0
  float clip = 0.0f;          // > 0: clip the global gradient norm to it
};

// AdamW over a model's parameters, its moments on the parameters' device. One step records one
// ops::adamw_update per parameter, the clipping norm computed on the device.
class AdamW {
 public:
  AdamW(const std::vector<Parameter>& params, AdamWConfig config);
  // Updates every parameter in place from its gradient (times grad_scale: LossAndGrads); returns
  // the squared global norm of the gradients as given, before clipping ([1], on the device).
  Tensor step(std::vector<Parameter>& params, const std::vector<Tensor>& grads, float lr,
              float grad_scale = 1.0f);
  size_t steps_taken() const { return steps_; }
  const std::vector<Tensor>& first_moments() const { return m_; }
  const std::vector<Tensor>& second_moments() const { return v_; }
  // Continues from saved state (host tensors of the parameters' shapes).
  void restore(size_t steps, const std::vector<Tensor>& m, const std::vector<Tensor>& v);

 private:
  AdamWConfig config_;
  std::vector<Tensor> m_, v_;
  size_t steps_ = 0;
};

// ---- Learning-rate schedule -----------------------------------------------------------------

struct Schedule {
  float lr = 1e-3f;
  size_t warmup = 0;    // steps of linear warm-up from lr / warmup
  bool cosine = false;  // after warm-up, cosine decay to min_ratio · lr at total_steps
  size_t total_steps = 0;
  float min_ratio = 0.1f;
  // The rate of step `step` (0-based).
  float at(size_t step) const;
};

// ---- Data -----------------------------------------------------------------------------------

// Token ids split in text order: the last `held_out` fraction is the validation text.
struct TokenSplit {
  std::vector<uint32_t> train, validation;
};
// Throws when either part is too short for one window of seq_len + 1 tokens.
TokenSplit split_tokens(const std::vector<uint32_t>& ids, size_t seq_len, double held_out = 0.1);

// Random training windows, reproducible from a seed and resumable from its state (splitmix64).
class BatchSampler {
 public:
  explicit BatchSampler(uint64_t seed) : state_(seed) {}
  Batch next(const std::vector<uint32_t>& tokens, size_t sequences, size_t seq_len);
  uint64_t state() const { return state_; }

 private:
  uint64_t state_;
};

// Mean per-token loss over up to max_windows windows of seq_len spread evenly over `tokens`,
// evaluated `sequences` windows per forward pass. Deterministic.
double evaluate(const model::Model& model, const std::vector<uint32_t>& tokens, size_t sequences,
                size_t seq_len, size_t max_windows);

// ---- Checkpoints ----------------------------------------------------------------------------

// Everything a run needs to continue exactly where it stopped.
struct TrainState {
  size_t step = 0;  // optimizer steps done
  uint64_t sampler_state = 0;
  double elapsed_s = 0;
};

// Adds train_state.safetensors to a directory update: the parameters, the optimizer's moments
// and `state`, with the model's config. A checkpoint commits it together with the model files, so
// a kill at any moment leaves the previous checkpoint whole, or the new one.
void save_train_state(io::DirectoryUpdate& update, const model::Model& model,
                      const AdamW& optimizer, const TrainState& state);

// Whether DIR holds a checkpoint to resume.
bool has_train_state(const std::filesystem::path& dir);
// The model config a checkpoint was made with.
model::Config train_state_config(const std::filesystem::path& dir);
// Loads a checkpoint into `model` (in place) and `optimizer`; throws when its model shape differs
// from the model's.
TrainState load_train_state(const std::filesystem::path& dir, const model::Model& model,
                            AdamW& optimizer);

// ---- The training loop ----------------------------------------------------------------------

struct TrainOptions {
  size_t steps = 1000;
  size_t batch = 16;  // sequences per step
  size_t seq_len = 256;
  Schedule schedule;  // total_steps is set from `steps`
  AdamWConfig adamw;
  float dropout = 0.0f;  // Dropout::p of every step; the masks are drawn from `seed`
  uint64_t seed = 1337;
  size_t checkpoint_every = 500;  // 0: only at the end
  size_t eval_every = 250;        // 0: only at the end
  size_t sample_every = 0;        // 0: never
  size_t eval_windows = 64;
  std::filesystem::path out_dir;  // checkpoints, metrics.jsonl, loss.svg
  bool resume = false;            // continue from out_dir's checkpoint
  // Files every checkpoint's model directory also holds (the tokenizer: "vocab.json", …), by name.
  std::map<std::string, std::string> model_files;
};

struct StepReport {
  size_t step = 0;  // 1-based: steps done
  size_t total = 0;
  double loss = 0;
  double grad_norm = 0;
  double lr = 0;
  double tokens_per_s = 0;  // this run's average since its first step
  double elapsed_s = 0;     // across resumes
  double eta_s = 0;         // the steps left at this run's pace
};

struct TrainCallbacks {
  std::function<void(const StepReport&)> on_step;
  std::function<void(size_t step, double validation_loss)> on_eval;
  // A sample of the model's text at `step` (logged beside the metrics).
  std::function<std::string(size_t step, const model::Model& model)> sample;
  std::function<void(const std::string& message)> on_note;  // checkpoints written, resumes
};

struct TrainResult {
  size_t steps = 0;
  double last_loss = 0;        // the last step's training loss
  double validation_loss = 0;  // after the last step
  double elapsed_s = 0;
};

// Trains `model` in place on data.train, evaluating on data.validation; writes checkpoints
// (model directory files, loss.svg and train_state.safetensors, as one io::DirectoryUpdate) and
// metrics.jsonl into out_dir. The run holds out_dir's io::OutputLock throughout (a second run into
// it fails at once) and first tidies what a killed run left there (io::tidy_directory). Stops
// with wgpt::Error on a non-finite loss or gradient, before any checkpoint of that step.
TrainResult run(model::Model& model, const TokenSplit& data, const TrainOptions& options,
                const TrainCallbacks& callbacks = {});

}  // namespace wgpt::train
