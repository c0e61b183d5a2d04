#pragma once
// Dispatching a kernel through its build-time description (generated kernel_table.h, one struct
// per src/kernels/*.wgsl): the parameter block is the kernel's own Params struct and the storage
// buffers an array of exactly its binding count, so a wrong field, a missing parameter or a
// missing buffer is a compile error rather than a string check at run time. The variant (how its
// weight operand is stored, how it reduces) is chosen by value and checked against the kernel.

#include <array>
#include <cstring>
#include <string>
#include <type_traits>

#include "kernel_table.h"
#include "ops/op_support.h"
#include "wgpt/gpu.h"
#include "wgpt/tensor.h"

namespace wgpt::ops::detail {

// Which variant of a kernel: its weight operand's dtype (f32, f16, bf16, q4), whether its
// workgroup reductions use subgroup operations, and whether a GEMM's B is in column strips.
struct Variant {
  DType weights = DType::f32;
  bool subgroups = false;
  bool b_strips = false;
};

// The variant's kernel name: the file's, plus ".f16" / ".bf16" / ".q4", ".subgroup" and ".strips"
// (in the order the kernels declare their axes).
template <class Kernel>
std::string kernel_name(const Variant& variant) {
  std::string name(Kernel::name);
  if (variant.weights != DType::f32) {
    if (!Kernel::by_dtype || !is_packed(variant.weights)) {
      fail(Kernel::name, std::string("has no variant for ") + to_string(variant.weights));
    }
    name += std::string(".") + to_string(variant.weights);
  }
  if (variant.subgroups) {
    if (!Kernel::by_reduction) fail(Kernel::name, "has no subgroup variant");
    name += ".subgroup";
  }
  if (variant.b_strips) {
    if (!Kernel::by_layout) fail(Kernel::name, "has no variant for b in column strips");
    name += ".strips";
  }
  return name;
}

template <class Kernel>
using KernelBuffers = std::array<gpu::BufferRange, Kernel::storage_buffers>;

// The uniform words of a parameter block (every field is 4 bytes: u32, i32 or f32).
template <class Kernel>
std::array<uint32_t, sizeof(typename Kernel::Params) / 4> param_words(
    const typename Kernel::Params& params) {
  static_assert(std::is_trivially_copyable_v<typename Kernel::Params>);
  static_assert(sizeof(typename Kernel::Params) % 4 == 0 && Kernel::has_params);
  std::array<uint32_t, sizeof(typename Kernel::Params) / 4> words;
  std::memcpy(words.data(), &params, sizeof params);
  return words;
}

template <class Kernel>
gpu::PreparedDispatch prepare(gpu::Context& context, const Variant& variant,
                              const typename Kernel::Params& params,
                              const KernelBuffers<Kernel>& buffers, gpu::Workgroups workgroups) {
  return context.prepare(kernel_name<Kernel>(variant), param_words<Kernel>(params),
                         std::vector<gpu::BufferRange>(buffers.begin(), buffers.end()), workgroups);
}

template <class Kernel>
void dispatch(gpu::Context& context, const Variant& variant, const typename Kernel::Params& params,
              const KernelBuffers<Kernel>& buffers, gpu::Workgroups workgroups) {
  context.dispatch(kernel_name<Kernel>(variant), param_words<Kernel>(params),
                   std::vector<gpu::BufferRange>(buffers.begin(), buffers.end()), workgroups);
}

}  // namespace wgpt::ops::detail
