#include <string>

#include "wgpt/autograd.h"

namespace wgpt::autograd {

Var Tape::leaf(Tensor value) {
  const size_t id = nodes_.size();
  nodes_.push_back({.first = id, .is_leaf = true});
  return {id, std::move(value)};
}

Var Tape::record(Tensor value, Backward backward) {
  return std::move(record_outputs({std::move(value)}, std::move(backward)).front());
}

std::vector<Var> Tape::record_outputs(std::vector<Tensor> values, Backward backward) {
  const size_t first = nodes_.size();
  std::vector<Var> vars;
  for (Tensor& value : values) {
    nodes_.push_back({.first = first, .outputs = values.size()});
    vars.push_back({nodes_.size() - 1, std::move(value)});
  }
  nodes_[first].backward = std::move(backward);
  return vars;
}

void Tape::accumulate(size_t id, Tensor grad) {
  std::optional<Tensor>& slot = nodes_.at(id).grad;
  slot = slot ? ops::add(*slot, grad) : std::move(grad);
}

void Tape::backward(const Var& root, const Tensor& seed) {
  if (ran_) throw Error("autograd: this tape has already run backward");
  if (seed.shape() != root.value.shape()) {
    throw Error("autograd: the seed " + seed.describe() + " does not match the root " +
                root.value.describe());
  }
  ran_ = true;
  accumulate(root.id, seed);
  // Every consumer of a node was recorded after it, so walking ids downwards reaches an op's
  // outputs only once all their gradients are complete.
  for (size_t id = root.id + 1; id-- > 0;) {
    Node& node = nodes_[id];
    if (node.is_leaf || node.first != id) continue;
    std::vector<Tensor> grads;
    for (size_t out = id; out < id + node.outputs; ++out) {
      if (nodes_[out].grad) grads.push_back(std::move(*nodes_[out].grad));
      nodes_[out].grad.reset();  // interior gradients are not kept
    }
    Backward backward = std::move(node.backward);
    node.backward = nullptr;
    if (grads.empty()) continue;  // nothing downstream of this op reached the root
    if (grads.size() != node.outputs) {
      throw Error("autograd: only some outputs of node " + std::to_string(id) +
                  " reached the root (unsupported)");
    }
    for (auto& [input, grad] : backward(grads)) accumulate(input, std::move(grad));
  }
}

const Tensor& Tape::grad(const Var& leaf) const {
  const Node& node = nodes_.at(leaf.id);
  if (!node.is_leaf || !node.grad) {
    throw Error("autograd: node " + std::to_string(leaf.id) + " has no gradient");
  }
  return *node.grad;
}

}  // namespace wgpt::autograd
