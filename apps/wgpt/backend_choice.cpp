#include "backend_choice.h"

#include <cstdio>
#include <exception>

#include "wgpt/error.h"

namespace wgpt::cli {

std::shared_ptr<gpu::Context> open_backend(const std::string& backend, const std::string& adapter) {
  if (backend == "cpu") return nullptr;
  gpu::ContextOptions options;
  if (!adapter.empty()) options.backend = gpu::parse_backend(adapter);
  if (backend == "gpu") return gpu::Context::create(options);
  std::shared_ptr<gpu::Context> context;
  try {
    context = gpu::Context::create(options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "backend: cpu (no WebGPU adapter: %s)\n", error.what());
    return nullptr;
  }
  const gpu::AdapterInfo& info = context->adapter_info();
  const std::string name = info.device.empty() ? info.description : info.device;
  if (info.is_cpu) {
    std::fprintf(stderr,
                 "backend: cpu (the WebGPU adapter, %s, is a software rasteriser: the CPU backend "
                 "is faster; --backend gpu takes the adapter anyway)\n",
                 name.c_str());
    return nullptr;
  }
  std::fprintf(stderr, "backend: gpu (%s, %s)\n", name.c_str(), info.backend.c_str());
  return context;
}

}  // namespace wgpt::cli
