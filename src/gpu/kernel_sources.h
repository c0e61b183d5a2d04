#pragma once
// The WGSL kernels compiled into the library (src/kernels/*.wgsl, embedded by the build).

#include <string_view>
#include <vector>

namespace wgpt::gpu {

struct KernelSource {
  std::string_view name;  // the file stem
  std::string_view wgsl;
};

const std::vector<KernelSource>& embedded_kernels();

}  // namespace wgpt::gpu
