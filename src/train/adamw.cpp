#include <string>

#include "wgpt/ops.h"
#include "wgpt/train.h"

namespace wgpt::train {
namespace {

Tensor zeros_like(const Tensor& t) {
  Tensor zeros = Tensor::zeros(t.shape());
  return t.is_gpu() ? zeros.to_gpu(t.context()) : zeros;
}

}  // namespace

AdamW::AdamW(const std::vector<Parameter>& params, AdamWConfig config) : config_(config) {
  for (const Parameter& p : params) {
    m_.push_back(zeros_like(p.value));
    v_.push_back(zeros_like(p.value));
  }
}

Tensor AdamW::step(std::vector<Parameter>& params, const std::vector<Tensor>& grads, float lr,
                   float grad_scale) {
  if (params.size() != m_.size() || grads.size() != m_.size()) {
    throw Error("AdamW: " + std::to_string(params.size()) + " parameters and " +
                std::to_string(grads.size()) + " gradients for an optimizer of " +
                std::to_string(m_.size()));
  }
  std::optional<gpu::Scope> scope;
  if (params.front().value.is_gpu()) {
    scope.emplace(*params.front().value.context(), gpu::Submits::in_parts);
  }
  Tensor sum_of_squares = ops::sum_of_squares(grads);
  ++steps_;
  for (size_t i = 0; i < params.size(); ++i) {
    ops::AdamWOptions options{.lr = lr,
                              .beta1 = config_.beta1,
                              .beta2 = config_.beta2,
                              .eps = config_.eps,
                              .weight_decay = params[i].decay ? config_.weight_decay : 0.0f,
                              .step = steps_,
                              .clip = config_.clip,
                              .grad_scale = grad_scale};
    ops::adamw_update(params[i].value, grads[i], m_[i], v_[i], sum_of_squares, options);
  }
  return sum_of_squares;
}

void AdamW::restore(size_t steps, const std::vector<Tensor>& m, const std::vector<Tensor>& v) {
  if (m.size() != m_.size() || v.size() != v_.size()) {
    throw Error("AdamW: saved state holds " + std::to_string(m.size()) + " moments for " +
                std::to_string(m_.size()) + " parameters");
  }
  for (size_t i = 0; i < m_.size(); ++i) {
    if (m[i].shape() != m_[i].shape() || v[i].shape() != v_[i].shape()) {
      throw Error("AdamW: saved moment " + m[i].describe() + " does not fit " + m_[i].describe());
    }
    m_[i] = m_[i].is_gpu() ? m[i].to_gpu(m_[i].context()) : m[i];
    v_[i] = v_[i].is_gpu() ? v[i].to_gpu(v_[i].context()) : v[i];
  }
  steps_ = steps;
}

}  // namespace wgpt::train
