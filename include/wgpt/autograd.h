#pragma once
// wgpt::autograd — a define-by-run tape. Each differentiable op computes its value with wgpt::ops
// and records a closure that maps the gradient of that value to gradients of its inputs, holding
// (as tensor handles) the activations it needs. backward() replays the closures newest first,
// adding up the gradients that meet at one node, and releases each closure — and the activations
// it held — once it has run. Built on ops alone, so one tape serves the CPU and the GPU.
//
//   autograd::Tape tape;
//   Var w = tape.leaf(weight), x = tape.leaf(input);
//   Var y = autograd::gelu(tape, autograd::matmul(tape, x, w));
//   tape.backward(y, seed);          // seed: the gradient of y
//   const Tensor& dw = tape.grad(w);

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "wgpt/ops.h"
#include "wgpt/tensor.h"

namespace wgpt::autograd {

// A tensor recorded on a tape: its node and its value.
struct Var {
  size_t id = 0;
  Tensor value;
};

class Tape {
 public:
  // Maps the gradients of a node's outputs (one each, in order) to (input node, gradient) pairs.
  using Backward =
      std::function<std::vector<std::pair<size_t, Tensor>>(std::span<const Tensor> grads)>;

  // A leaf: a tensor whose gradient backward() keeps (a parameter).
  Var leaf(Tensor value);
  // The result of an op over earlier nodes.
  Var record(Tensor value, Backward backward);
  // Several results of one op, whose backward needs all their gradients at once (split_heads).
  std::vector<Var> record_outputs(std::vector<Tensor> values, Backward backward);

  // Runs backward from `root`, whose gradient is `seed` (root's shape). Afterwards grad() holds
  // every leaf's gradient. A tape runs backward once.
  void backward(const Var& root, const Tensor& seed);
  // The gradient backward() accumulated for `leaf`; throws when it received none.
  const Tensor& grad(const Var& leaf) const;

 private:
  struct Node {
    Backward backward;  // set on an op's first output only; empty for leaves
    size_t first = 0;   // the first output of the op that made this node
    size_t outputs = 1;
    bool is_leaf = false;
    std::optional<Tensor> grad;
  };
  void accumulate(size_t id, Tensor grad);
  std::vector<Node> nodes_;
  bool ran_ = false;
};

// ---- Differentiable ops: the forward ops of GPT-2 training, each recording its gradient.

Var add(Tape& tape, const Var& a, const Var& b);
// The same elements under another shape.
Var reshape(Tape& tape, const Var& x, Shape shape);
// scale · op(a) · op(b); a and b both unbatched or both batched (options.bias must be empty).
Var matmul(Tape& tape, const Var& a, const Var& b, const ops::MatmulOptions& options = {});
// x · weight + bias: x [rows, in], weight [in, out] (Conv1D layout), bias [out].
Var linear(Tape& tape, const Var& x, const Var& weight, const Var& bias,
           ops::Precision precision = ops::Precision::f32);
Var gelu(Tape& tape, const Var& x);
Var layernorm(Tape& tape, const Var& x, const Var& gamma, const Var& beta, float eps);
// Causal softmax of scores [batch, t, t] (no KV cache: query i sees keys 0..i).
Var causal_softmax(Tape& tape, const Var& scores);
struct HeadVars {
  Var q, k, v;
};
HeadVars split_heads(Tape& tape, const Var& qkv, size_t n_head);
Var merge_heads(Tape& tape, const Var& x);
// Token + position embedding of ids.size() / seq_len sequences of seq_len tokens, each starting at
// position 0: out[i] = wte[ids[i]] + wpe[i % seq_len] → [ids.size(), C]. ids come from the host.
Var embedding(Tape& tape, std::span<const uint32_t> ids, const Var& wte, const Var& wpe,
              size_t seq_len);
// Inverted dropout (ops::dropout). The identity, recording nothing, when options.p is 0.
Var dropout(Tape& tape, const Var& x, const ops::DropoutOptions& options);
// Per-row cross-entropy of logits [n, vocab] against targets (u32 [n], checked by the caller).
Var cross_entropy(Tape& tape, const Var& logits, const Tensor& targets);

}  // namespace wgpt::autograd
