#pragma once
// What a kernel expects bound, read from its WGSL: dispatch() checks a call against it, so a wrong
// number of buffers is a clear error naming the kernel rather than a validation failure later.

#include <cstdint>
#include <string_view>

namespace wgpt::gpu {

struct KernelLayout {
  bool has_params = false;       // binding 0 is a var<uniform> block
  uint32_t storage_buffers = 0;  // bindings 1..storage_buffers
};

// Throws wgpt::Error when the bindings of group 0 are not 0 (uniform, optional) then 1..n.
KernelLayout parse_kernel_layout(std::string_view name, std::string_view wgsl);

}  // namespace wgpt::gpu
