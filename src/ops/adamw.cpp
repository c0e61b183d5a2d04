// adamw_update: the optimizer step of one parameter, in place.
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "adamw";

// The factor that turns a stored gradient into the one the update uses: loss scaling divided out,
// then clipping by the global norm, as the kernel computes it (in f32).
float gradient_factor(float clip, float grad_scale, float sum_of_squares) {
  const float unscale = 1.0f / grad_scale;
  if (clip <= 0.0f) return unscale;
  return unscale * std::min(1.0f, clip / (std::sqrt(sum_of_squares) * unscale + 1e-6f));
}

}  // namespace

void adamw_update(Tensor& param, const Tensor& grad, Tensor& m, Tensor& v,
                  const Tensor& grad_sum_of_squares, const AdamWOptions& options) {
  const std::vector<const Tensor*> tensors = {&param, &grad, &m, &v, &grad_sum_of_squares};
  for (const Tensor* t : tensors) detail::require_dtype(kOp, "every tensor", *t, DType::f32);
  if (grad.shape() != param.shape() || m.shape() != param.shape() || v.shape() != param.shape() ||
      grad_sum_of_squares.numel() != 1) {
    detail::fail(kOp, "param " + param.describe() +
                          " needs grad, m and v of its shape and a [1] "
                          "sum of squares, got " +
                          grad.describe() + ", " + m.describe() + ", " + v.describe() + ", " +
                          grad_sum_of_squares.describe());
  }
  if (options.step == 0) detail::fail(kOp, "steps count from 1");
  if (!(options.grad_scale > 0.0f)) detail::fail(kOp, "the gradient scale must be positive");
  const auto& context = detail::common_context(kOp, tensors);
  const double t = static_cast<double>(options.step);
  const float bias_correction1 = static_cast<float>(1.0 - std::pow(options.beta1, t));
  const float bias_correction2_sqrt =
      static_cast<float>(std::sqrt(1.0 - std::pow(options.beta2, t)));
  if (!context) {
    const float scale =
        gradient_factor(options.clip, options.grad_scale, grad_sum_of_squares.floats()[0]);
    auto p = param.floats(), g_in = grad.floats(), m_io = m.floats(), v_io = v.floats();
    const float step_size = options.lr / bias_correction1;
    for (size_t i = 0; i < p.size(); ++i) {
      const float g = g_in[i] * scale;
      const float decayed = p[i] * (1.0f - options.lr * options.weight_decay);
      m_io[i] += (1.0f - options.beta1) * (g - m_io[i]);
      v_io[i] = options.beta2 * v_io[i] + (1.0f - options.beta2) * g * g;
      p[i] = decayed -
             step_size * m_io[i] / (std::sqrt(v_io[i]) / bias_correction2_sqrt + options.eps);
    }
  } else if (param.numel() > 0) {
    std::array<uint32_t, 10> params = {
        detail::word(kOp, param.numel()), io::f32_bits(options.lr),
        io::f32_bits(options.beta1),      io::f32_bits(options.beta2),
        io::f32_bits(options.eps),        io::f32_bits(options.weight_decay),
        io::f32_bits(bias_correction1),   io::f32_bits(bias_correction2_sqrt),
        io::f32_bits(options.clip),       io::f32_bits(options.grad_scale)};
    context->dispatch(kOp, params,
                      detail::Bindings(kOp, {grad, grad_sum_of_squares}, {param, m, v}).ranges(),
                      detail::linear_grid(kOp, *context, param.numel()));
  }
}

}  // namespace wgpt::ops
