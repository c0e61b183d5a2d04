#pragma once
// What every op in src/ops shares: input validation with errors that name the op, the parameter
// words and workgroup grids of dispatches, and binding tensors to kernels.

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/gpu.h"
#include "wgpt/tensor.h"

namespace wgpt::ops::detail {

// Throws wgpt::Error("<op>: <message>").
[[noreturn]] void fail(std::string_view op, const std::string& message);
// Throws unless `tensor` has `dtype`; `role` names the argument ("x", "gamma", ...).
void require_dtype(std::string_view op, std::string_view role, const Tensor& tensor, DType dtype);
// Throws unless `tensor` has `rank` dimensions.
void require_rank(std::string_view op, std::string_view role, const Tensor& tensor, size_t rank);

// The GPU context all `tensors` live on, or nullptr when they are all on the CPU. Throws when they
// are on different devices or contexts.
const std::shared_ptr<gpu::Context>& common_context(std::string_view op,
                                                    const std::vector<const Tensor*>& tensors);

// A new output tensor on the device of `like`: uninitialized from the GPU pool (the kernel writes
// all of it), or zeros on the CPU.
Tensor new_output(const Tensor& like, Shape shape, DType dtype = DType::f32);

// A size as a kernel parameter word; throws when it does not fit in 32 bits. (A float's word is
// its bits: io::f32_bits.)
uint32_t word(std::string_view op, size_t value);

// The geometry shared by a fused projection qkv [t, 3C] and the KV caches [n_head, n_ctx,
// head_dim] of its layer (C = n_head · head_dim), checked: f32 throughout, caches of one shape,
// rows [position, position + t) inside them. Throws naming `op` and the shapes otherwise.
struct QkvCaches {
  size_t t, n_head, n_ctx, head_dim, c;
};
QkvCaches check_qkv_caches(std::string_view op, const Tensor& qkv, const Tensor& k_cache,
                           const Tensor& v_cache, size_t position);

// The geometry of a batched decode step: qkv [rows, 3C], one row per sequence, and the pools of
// its layer's caches [slots, n_head, n_ctx, head_dim], checked (f32 pools of one shape, slots and
// positions u32 [rows]). On the CPU also each row's slot and position: inside the pool, the slots
// distinct (two rows of one sequence in a step would race for its cache).
struct PoolRows {
  size_t rows, slots, n_head, n_ctx, head_dim, c;
};
PoolRows check_pool_rows(std::string_view op, const Tensor& qkv, const Tensor& k_pool,
                         const Tensor& v_pool, const Tensor& slots, const Tensor& positions);

inline size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// Workgroups for `invocations` threads in groups of `group_size`, folded into y when the count
// exceeds the device's per-dimension limit. Kernels rebuild the flat index as
// (wid.y * num_workgroups.x + wid.x) * group_size + local_index and bounds-check it.
gpu::Workgroups linear_grid(std::string_view op, const gpu::Context& context, size_t invocations,
                            uint32_t group_size = 256);

// The storage ranges of one dispatch. Inputs whose offset the device cannot bind (storage offsets
// must be multiples of minStorageBufferOffsetAlignment) are first copied to a fresh buffer; outputs
// are written in place, so a misaligned output throws, and so does an empty tensor (ops skip
// dispatches with nothing to write). Keeps every tensor alive while it lives.
class Bindings {
 public:
  Bindings(std::string_view op, std::initializer_list<Tensor> inputs,
           std::initializer_list<Tensor> outputs);
  Bindings(const Bindings&) = delete;
  Bindings& operator=(const Bindings&) = delete;
  const std::vector<gpu::BufferRange>& ranges() const { return ranges_; }

 private:
  std::vector<Tensor> tensors_;
  std::vector<gpu::BufferRange> ranges_;
};

}  // namespace wgpt::ops::detail
