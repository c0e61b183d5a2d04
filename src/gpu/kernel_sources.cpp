#include "gpu/kernel_sources.h"

#include <algorithm>

namespace wgpt::gpu {

const KernelSource* find_embedded_kernel(std::string_view name) {
  const auto& embedded = embedded_kernels();
  auto found = std::find_if(embedded.begin(), embedded.end(),
                            [&](const KernelSource& k) { return k.name == name; });
  return found == embedded.end() ? nullptr : &*found;
}

}  // namespace wgpt::gpu
