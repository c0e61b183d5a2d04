// The differentiable ops of GPT-2 training: each computes its value with wgpt::ops and records
// the ops that make its gradients.
#include <string>

#include "wgpt/autograd.h"

namespace wgpt::autograd {

Var add(Tape& tape, const Var& a, const Var& b) {
  return tape.record(ops::add(a.value, b.value), [a = a.id, b = b.id](auto grads) {
    return std::vector<std::pair<size_t, Tensor>>{{a, grads[0]}, {b, grads[0]}};
  });
}

Var reshape(Tape& tape, const Var& x, Shape shape) {
  return tape.record(
      x.value.reshape(std::move(shape)), [x = x.id, original = x.value.shape()](auto grads) {
        return std::vector<std::pair<size_t, Tensor>>{{x, grads[0].reshape(original)}};
      });
}

Var matmul(Tape& tape, const Var& a, const Var& b, const ops::MatmulOptions& options) {
  if (options.bias || options.gelu || options.residual) {
    throw Error("autograd::matmul: use linear(), gelu() and add() for a bias, GELU or residual");
  }
  return tape.record(ops::matmul(a.value, b.value, options), [a, b, options](auto grads) {
    ops::MatmulGrads g = ops::matmul_backward(a.value, b.value, grads[0], options);
    return std::vector<std::pair<size_t, Tensor>>{{a.id, g.da}, {b.id, g.db}};
  });
}

Var linear(Tape& tape, const Var& x, const Var& weight, const Var& bias, ops::Precision precision) {
  const ops::MatmulOptions options{.bias = bias.value, .precision = precision};
  return tape.record(
      ops::matmul(x.value, weight.value, options), [x, weight, bias, options](auto grads) {
        ops::MatmulGrads g = ops::matmul_backward(x.value, weight.value, grads[0], options);
        return std::vector<std::pair<size_t, Tensor>>{
            {x.id, g.da}, {weight.id, g.db}, {bias.id, *g.dbias}};
      });
}

Var gelu(Tape& tape, const Var& x) {
  return tape.record(ops::gelu(x.value), [x](auto grads) {
    return std::vector<std::pair<size_t, Tensor>>{{x.id, ops::gelu_backward(x.value, grads[0])}};
  });
}

Var layernorm(Tape& tape, const Var& x, const Var& gamma, const Var& beta, float eps) {
  return tape.record(ops::layernorm(x.value, gamma.value, beta.value, eps),
                     [x, gamma, beta = beta.id, eps](auto grads) {
                       ops::LayerNormGrads g =
                           ops::layernorm_backward(x.value, gamma.value, grads[0], eps);
                       return std::vector<std::pair<size_t, Tensor>>{
                           {x.id, g.dx}, {gamma.id, g.dgamma}, {beta, g.dbeta}};
                     });
}

Var causal_softmax(Tape& tape, const Var& scores) {
  Tensor probs = ops::causal_softmax(scores.value, 0);
  return tape.record(probs, [scores = scores.id, probs](auto grads) {
    return std::vector<std::pair<size_t, Tensor>>{{scores, ops::softmax_backward(probs, grads[0])}};
  });
}

HeadVars split_heads(Tape& tape, const Var& qkv, size_t n_head) {
  ops::Heads heads = ops::split_heads(qkv.value, n_head);
  std::vector<Var> vars =
      tape.record_outputs({heads.q, heads.k, heads.v}, [qkv = qkv.id](auto grads) {
        return std::vector<std::pair<size_t, Tensor>>{
            {qkv, ops::split_heads_backward({grads[0], grads[1], grads[2]})}};
      });
  return {vars[0], vars[1], vars[2]};
}

Var merge_heads(Tape& tape, const Var& x) {
  return tape.record(ops::merge_heads(x.value), [x = x.id, n_head = x.value.dim(0)](auto grads) {
    return std::vector<std::pair<size_t, Tensor>>{{x, ops::merge_heads_backward(grads[0], n_head)}};
  });
}

Var embedding(Tape& tape, std::span<const uint32_t> ids, const Var& wte, const Var& wpe,
              size_t seq_len) {
  const Tensor& table = wpe.value;
  if (seq_len == 0 || ids.size() % seq_len != 0 || table.rank() != 2 || seq_len > table.dim(0)) {
    throw Error("autograd::embedding: " + std::to_string(ids.size()) +
                " ids are not sequences of " + std::to_string(seq_len) + " positions of wpe " +
                table.describe());
  }
  const size_t sequences = ids.size() / seq_len, width = table.dim(1);
  // The op embeds one sequence from a position offset; every sequence restarting at position 0 is
  // the same op over the first seq_len rows of wpe repeated once per sequence: ones[B, 1] times
  // those rows flattened to [1, seq_len · C].
  Tensor ones = Tensor::from_floats(std::vector<float>(sequences, 1.0f), {sequences, 1});
  Tensor id_tensor = Tensor::from_u32(std::vector<uint32_t>(ids.begin(), ids.end()), {ids.size()});
  if (table.is_gpu()) {
    ones = ones.to_gpu(table.context());
    id_tensor = id_tensor.to_gpu(table.context());
  }
  Tensor positions = ops::matmul(ones, table.rows(0, seq_len).reshape({1, seq_len * width}))
                         .reshape({ids.size(), width});
  return tape.record(
      ops::embedding(id_tensor, wte.value, positions, 0),
      [ids = std::vector<uint32_t>(ids.begin(), ids.end()), wte = wte.id, wpe = wpe.id,
       vocab = wte.value.dim(0), n_positions = table.dim(0), seq_len](auto grads) {
        ops::EmbeddingGrads g = ops::embedding_backward(ids, grads[0], vocab, n_positions, seq_len);
        return std::vector<std::pair<size_t, Tensor>>{{wte, g.dwte}, {wpe, g.dwpe}};
      });
}

Var dropout(Tape& tape, const Var& x, const ops::DropoutOptions& options) {
  if (options.p == 0.0f) return x;
  // The gradient redraws the mask from its hash rather than storing it: a stored mask would hold a
  // tensor of x's size (at the attention probabilities, the largest activation of the pass) until
  // backward, where redrawing costs a few integer operations per element.
  return tape.record(ops::dropout(x.value, options), [x = x.id, options](auto grads) {
    return std::vector<std::pair<size_t, Tensor>>{{x, ops::dropout(grads[0], options)}};
  });
}

Var cross_entropy(Tape& tape, const Var& logits, const Tensor& targets) {
  return tape.record(ops::cross_entropy(logits.value, targets), [logits, targets](auto grads) {
    return std::vector<std::pair<size_t, Tensor>>{
        {logits.id, ops::cross_entropy_backward(logits.value, targets, grads[0])}};
  });
}

}  // namespace wgpt::autograd
