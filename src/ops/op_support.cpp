#include "ops/op_support.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace wgpt::ops::detail {
namespace {

constexpr size_t kElementBytes = 4;

size_t alignment(const gpu::Context& context) {
  return std::max<size_t>(context.limits().min_storage_buffer_offset_alignment, 4);
}

bool is_bindable(const Tensor& tensor) {
  return tensor.byte_offset() % alignment(*tensor.context()) == 0;
}

// A contiguous copy of a misaligned view, made by the `copy` kernel reading words from the aligned
// offset just below the view (packed dtypes' views start on a word, so words carry them too).
Tensor aligned_copy(std::string_view op, const Tensor& view) {
  auto& context = *view.context();
  size_t first_byte = view.byte_offset();
  size_t bound_byte = first_byte - first_byte % alignment(context);
  size_t shift = (first_byte - bound_byte) / kElementBytes;
  size_t words = view.byte_size() / kElementBytes;
  Tensor copy = Tensor::empty_gpu(view.context(), view.shape(), view.dtype());
  std::array<uint32_t, 2> params = {word(op, words), word(op, shift)};
  context.dispatch("copy", params,
                   {gpu::BufferRange(view.buffer(), bound_byte, (shift + words) * kElementBytes),
                    gpu::BufferRange(copy.buffer(), 0, words * kElementBytes)},
                   linear_grid(op, context, words));
  return copy;
}

}  // namespace

void fail(std::string_view op, const std::string& message) {
  throw Error(std::string(op) + ": " + message);
}

void require_dtype(std::string_view op, std::string_view role, const Tensor& tensor, DType dtype) {
  if (tensor.dtype() != dtype) {
    fail(op, std::string(role) + " must be " + to_string(dtype) + ", got " + tensor.describe());
  }
}

void require_rank(std::string_view op, std::string_view role, const Tensor& tensor, size_t rank) {
  if (tensor.rank() != rank) {
    fail(op, std::string(role) + " must have " + std::to_string(rank) + " dimensions, got " +
                 tensor.describe());
  }
}

QkvCaches check_qkv_caches(std::string_view op, const Tensor& qkv, const Tensor& k_cache,
                           const Tensor& v_cache, size_t position) {
  require_dtype(op, "qkv", qkv, DType::f32);
  require_dtype(op, "k_cache", k_cache, DType::f32);
  require_dtype(op, "v_cache", v_cache, DType::f32);
  require_rank(op, "qkv", qkv, 2);
  require_rank(op, "k_cache", k_cache, 3);
  const QkvCaches g{qkv.dim(0), k_cache.dim(0), k_cache.dim(1), k_cache.dim(2),
                    k_cache.dim(0) * k_cache.dim(2)};
  if (qkv.dim(1) != 3 * g.c || v_cache.shape() != k_cache.shape() || g.t == 0 ||
      position + g.t > g.n_ctx) {
    fail(op, "qkv " + qkv.describe() + " at position " + std::to_string(position) +
                 " does not fit caches " + k_cache.describe() + ", " + v_cache.describe());
  }
  return g;
}

PoolRows check_pool_rows(std::string_view op, const Tensor& qkv, const Tensor& k_pool,
                         const Tensor& v_pool, const Tensor& slots, const Tensor& positions) {
  require_dtype(op, "qkv", qkv, DType::f32);
  require_dtype(op, "k_pool", k_pool, DType::f32);
  require_dtype(op, "v_pool", v_pool, DType::f32);
  require_dtype(op, "slots", slots, DType::u32);
  require_dtype(op, "positions", positions, DType::u32);
  require_rank(op, "qkv", qkv, 2);
  require_rank(op, "k_pool", k_pool, 4);
  require_rank(op, "slots", slots, 1);
  const PoolRows g{qkv.dim(0),    k_pool.dim(0), k_pool.dim(1),
                   k_pool.dim(2), k_pool.dim(3), k_pool.dim(1) * k_pool.dim(3)};
  if (qkv.dim(1) != 3 * g.c || v_pool.shape() != k_pool.shape() || g.rows == 0 ||
      slots.shape() != Shape{g.rows} || positions.shape() != Shape{g.rows}) {
    fail(op, "qkv " + qkv.describe() + " with slots " + slots.describe() + " and positions " +
                 positions.describe() + " does not fit pools " + k_pool.describe() + ", " +
                 v_pool.describe());
  }
  if (!slots.context()) {
    std::vector<bool> taken(g.slots, false);
    for (size_t r = 0; r < g.rows; ++r) {
      const size_t slot = slots.u32s()[r], position = positions.u32s()[r];
      if (slot >= g.slots || position >= g.n_ctx || taken[slot]) {
        fail(op, "row " + std::to_string(r) + " at slot " + std::to_string(slot) + ", position " +
                     std::to_string(position) + " is outside pools " + k_pool.describe() +
                     " or shares its slot with another row");
      }
      taken[slot] = true;
    }
  }
  return g;
}

const std::shared_ptr<gpu::Context>& common_context(std::string_view op,
                                                    const std::vector<const Tensor*>& tensors) {
  const Tensor& first = *tensors.front();
  for (const Tensor* t : tensors) {
    if (t->context() != first.context()) {
      fail(op, "inputs are on different devices: " + first.describe() + " and " + t->describe());
    }
  }
  return first.context();
}

Tensor new_output(const Tensor& like, Shape shape, DType dtype) {
  if (like.is_gpu()) return Tensor::empty_gpu(like.context(), std::move(shape), dtype);
  return Tensor::zeros(std::move(shape), dtype);
}

uint32_t word(std::string_view op, size_t value) {
  if (value > std::numeric_limits<uint32_t>::max()) {
    fail(op, "size " + std::to_string(value) + " does not fit a 32-bit kernel parameter");
  }
  return static_cast<uint32_t>(value);
}

gpu::Workgroups linear_grid(std::string_view op, const gpu::Context& context, size_t invocations,
                            uint32_t group_size) {
  size_t groups = (invocations + group_size - 1) / group_size;
  size_t max_x = context.limits().max_workgroups_per_dimension;
  if (groups <= max_x) return {word(op, std::max<size_t>(groups, 1)), 1, 1};
  size_t rows = (groups + max_x - 1) / max_x;
  if (rows > max_x) fail(op, std::to_string(invocations) + " invocations exceed the grid limit");
  return {word(op, max_x), word(op, rows), 1};
}

Bindings::Bindings(std::string_view op, std::initializer_list<Tensor> inputs,
                   std::initializer_list<Tensor> outputs) {
  for (auto list : {inputs, outputs}) {
    for (const Tensor& t : list) {
      if (t.numel() == 0) fail(op, "cannot bind the empty tensor " + t.describe());
    }
  }
  for (const Tensor& input : inputs) {
    tensors_.push_back(is_bindable(input) ? input : aligned_copy(op, input));
  }
  for (const Tensor& output : outputs) {
    if (!is_bindable(output)) {
      fail(op, "output " + output.describe() + " starts at element " +
                   std::to_string(output.offset()) + ", which the device cannot bind");
    }
    tensors_.push_back(output);
  }
  uint64_t max_binding = tensors_.front().context()->limits().max_storage_buffer_binding_size;
  for (const Tensor& t : tensors_) {
    if (t.byte_size() > max_binding) {
      fail(op, t.describe() + " exceeds the device's storage binding limit of " +
                   std::to_string(max_binding) + " bytes (split it into chunks)");
    }
    ranges_.push_back(t.range());
  }
}

}  // namespace wgpt::ops::detail
