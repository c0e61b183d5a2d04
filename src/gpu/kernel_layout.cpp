#include "gpu/kernel_layout.h"

#include <set>
#include <string>

#include "wgpt/error.h"

namespace wgpt::gpu {

KernelLayout parse_kernel_layout(std::string_view name, std::string_view wgsl) {
  KernelLayout layout;
  std::set<uint32_t> storage;
  constexpr std::string_view kBinding = "@binding(";
  for (size_t at = wgsl.find(kBinding); at != std::string_view::npos;
       at = wgsl.find(kBinding, at + 1)) {
    uint32_t index = 0;
    size_t digit = at + kBinding.size();
    for (; digit < wgsl.size() && wgsl[digit] >= '0' && wgsl[digit] <= '9'; ++digit) {
      index = index * 10 + static_cast<uint32_t>(wgsl[digit] - '0');
    }
    const std::string_view declaration = wgsl.substr(at, wgsl.find(';', at) - at);
    if (declaration.find("var<uniform>") != std::string_view::npos) {
      if (index != 0) {
        throw Error("kernel '" + std::string(name) + "': its uniform block must be binding 0");
      }
      layout.has_params = true;
    } else {
      storage.insert(index);
    }
  }
  layout.storage_buffers = static_cast<uint32_t>(storage.size());
  if (!storage.empty() && (*storage.begin() != 1 || *storage.rbegin() != storage.size())) {
    throw Error("kernel '" + std::string(name) +
                "': storage buffers must be bindings 1..n with no gaps");
  }
  return layout;
}

}  // namespace wgpt::gpu
