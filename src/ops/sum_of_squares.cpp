// sum_of_squares: the squared global norm of a set of gradients, for clipping and reporting.
#include <array>

#include "ops/op_support.h"
#include "wgpt/ops.h"

namespace wgpt::ops {
namespace {

constexpr std::string_view kOp = "sum_of_squares";
constexpr size_t kBlock = 4096;  // elements per workgroup, as in the kernel

size_t blocks_of(const Tensor& t) { return (t.numel() + kBlock - 1) / kBlock; }

}  // namespace

Tensor sum_of_squares(const std::vector<Tensor>& tensors) {
  if (tensors.empty()) detail::fail(kOp, "no tensors");
  std::vector<const Tensor*> all;
  for (const Tensor& t : tensors) {
    detail::require_dtype(kOp, "tensor", t, DType::f32);
    all.push_back(&t);
  }
  const auto& context = detail::common_context(kOp, all);
  if (!context) {
    double sum = 0.0;
    for (const Tensor& t : tensors) {
      for (float v : t.floats()) sum += static_cast<double>(v) * v;
    }
    return Tensor::from_floats({static_cast<float>(sum)}, {1});
  }
  size_t total_blocks = 0;
  for (const Tensor& t : tensors) total_blocks += blocks_of(t);
  if (total_blocks == 0) detail::fail(kOp, "every tensor is empty");
  gpu::Scope scope(*context);
  Tensor partials = Tensor::empty_gpu(context, {total_blocks, 1});
  size_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) continue;
    std::array<uint32_t, 2> params = {detail::word(kOp, t.numel()), detail::word(kOp, offset)};
    // Bound whole: a tensor's partials land at an offset the kernel adds, so no view of
    // `partials` needs an aligned offset.
    context->dispatch(kOp, params, detail::Bindings(kOp, {t}, {partials}).ranges(),
                      detail::linear_grid(kOp, *context, blocks_of(t), 1));
    offset += blocks_of(t);
  }
  return sum_rows(partials);
}

}  // namespace wgpt::ops
