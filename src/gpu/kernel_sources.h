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
// The embedded kernel named `name`, or nullptr when the build has none of that name.
const KernelSource* find_embedded_kernel(std::string_view name);

}  // namespace wgpt::gpu
