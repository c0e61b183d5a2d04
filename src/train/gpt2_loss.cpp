// The GPT-2 forward pass of training on the autograd tape: B sequences × T positions in one pass.
// Position-wise ops see B·T rows; attention folds the batch into the heads: split_heads over the
// B·T rows gives [n_head, B·T, hd] = [n_head·B, T, hd], one causal [T, T] attention per (head,
// sequence), and merge_heads undoes it.
#include <cmath>
#include <string>

#include "wgpt/autograd.h"
#include "wgpt/train.h"

namespace wgpt::train {
namespace {

using autograd::Tape;
using autograd::Var;

void validate(const model::Model& model, const Batch& batch) {
  const model::Config& config = model.config();
  const size_t rows = batch.sequences * batch.seq_len;
  if (rows == 0 || batch.inputs.size() != rows || batch.targets.size() != rows) {
    throw Error("a batch of " + std::to_string(batch.sequences) + " × " +
                std::to_string(batch.seq_len) + " needs that many inputs and targets");
  }
  if (batch.seq_len > config.n_ctx) {
    throw Error("sequences of " + std::to_string(batch.seq_len) +
                " tokens exceed the model's context of " + std::to_string(config.n_ctx));
  }
  for (const auto* ids : {&batch.inputs, &batch.targets}) {
    for (uint32_t id : *ids) {
      if (id >= config.vocab_size) {
        throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                    std::to_string(config.vocab_size));
      }
    }
  }
}

struct Recorded {
  std::vector<Var> leaves;  // parameters() order
  Var losses;
};

Recorded record_forward(Tape& tape, const model::Model& model, const Batch& batch,
                        const Dropout& dropout) {
  validate(model, batch);
  const model::Config& config = model.config();
  std::vector<Var> leaves;
  for (const Parameter& p : parameters(model)) leaves.push_back(tape.leaf(p.value));
  size_t next = 0;
  auto take = [&] { return leaves.at(next++); };

  const size_t sequences = batch.sequences, t = batch.seq_len, rows = sequences * t;
  const size_t n_head = config.n_head, head_dim = config.head_dim();
  const float eps = config.layer_norm_epsilon;
  const float attention_scale = config.attention_scale();
  const ops::Precision precision = model.precision();
  auto linear = [&](const Var& in, const Var& weight, const Var& bias) {
    return autograd::linear(tape, in, weight, bias, precision);
  };

  // Dropout sites are numbered in the order the pass reaches them: the embedding, then each
  // layer's attention probabilities, attention output and MLP output.
  uint32_t site = 0;
  auto drop = [&](const Var& v) {
    return autograd::dropout(tape, v, {dropout.p, dropout.seed, dropout.step, site++});
  };

  const Var wte = take(), wpe = take();
  Var x = drop(autograd::embedding(tape, batch.inputs, wte, wpe, t));
  for (size_t layer = 0; layer < config.n_layer; ++layer) {
    const Var ln1_gamma = take(), ln1_beta = take(), qkv_weight = take(), qkv_bias = take(),
              proj_weight = take(), proj_bias = take(), ln2_gamma = take(), ln2_beta = take(),
              fc_weight = take(), fc_bias = take(), mlp_weight = take(), mlp_bias = take();
    Var h = autograd::layernorm(tape, x, ln1_gamma, ln1_beta, eps);
    autograd::HeadVars heads = autograd::split_heads(tape, linear(h, qkv_weight, qkv_bias), n_head);
    const Shape per_sequence = {n_head * sequences, t, head_dim};
    Var q = autograd::reshape(tape, heads.q, per_sequence);
    Var k = autograd::reshape(tape, heads.k, per_sequence);
    Var v = autograd::reshape(tape, heads.v, per_sequence);
    // Causal: the scores above the diagonal are masked, so neither they nor the probabilities'
    // zeros there are computed, forward or backward (about half of each product).
    Var scores = autograd::matmul(tape, q, k,
                                  {.transpose_b = true,
                                   .scale = attention_scale,
                                   .precision = precision,
                                   .triangle = ops::Triangle::lower_output});
    Var attended = autograd::matmul(tape, drop(autograd::causal_softmax(tape, scores)), v,
                                    {.precision = precision, .triangle = ops::Triangle::lower_a});
    Var merged =
        autograd::merge_heads(tape, autograd::reshape(tape, attended, {n_head, rows, head_dim}));
    x = autograd::add(tape, x, drop(linear(merged, proj_weight, proj_bias)));

    Var h2 = autograd::layernorm(tape, x, ln2_gamma, ln2_beta, eps);
    Var hidden = autograd::gelu(tape, linear(h2, fc_weight, fc_bias));
    x = autograd::add(tape, x, drop(linear(hidden, mlp_weight, mlp_bias)));
  }
  const Var final_gamma = take(), final_beta = take();
  Var out = autograd::layernorm(tape, x, final_gamma, final_beta, eps);
  Var logits = autograd::matmul(tape, out, wte,  // the tied LM head
                                {.transpose_b = true, .precision = precision});

  Tensor targets = Tensor::from_u32(batch.targets, {rows});
  if (model.on_gpu()) targets = targets.to_gpu(model.context());
  return {std::move(leaves), autograd::cross_entropy(tape, logits, targets)};
}

}  // namespace

LossAndGrads loss_and_grads(const model::Model& model, const Batch& batch, const Dropout& dropout) {
  std::optional<gpu::Scope> scope;  // the whole step in one recording
  if (model.on_gpu()) scope.emplace(*model.context(), gpu::Submits::in_parts);
  Tape tape;
  Recorded recorded = record_forward(tape, model, batch, dropout);
  // The mean over positions: each position's loss weighs 1 / rows. Mixed precision scales the
  // loss by the power of two at or above rows, so each position's gradient seed is near 1: the
  // gradients stay as large as the activations, well inside f16's normal range.
  const size_t rows = batch.sequences * batch.seq_len;
  const float grad_scale = model.precision() == ops::Precision::mixed
                               ? std::exp2(std::ceil(std::log2(float(rows))))
                               : 1.0f;
  Tensor seed =
      Tensor::from_floats(std::vector<float>(rows, grad_scale / static_cast<float>(rows)), {rows});
  if (model.on_gpu()) seed = seed.to_gpu(model.context());
  tape.backward(recorded.losses, seed);
  LossAndGrads result{recorded.losses.value, {}, grad_scale};
  for (const Var& leaf : recorded.leaves) result.grads.push_back(tape.grad(leaf));
  return result;
}

Tensor token_losses(const model::Model& model, const Batch& batch) {
  std::optional<gpu::Scope> scope;
  if (model.on_gpu()) scope.emplace(*model.context(), gpu::Submits::in_parts);
  Tape tape;
  return record_forward(tape, model, batch, {}).losses.value;
}

}  // namespace wgpt::train
