#include <cstdlib>
#include <string>

#include "wgpt/gpu.h"

namespace wgpt::gpu {

Backend parse_backend(std::string_view name) {
  if (name == "auto" || name.empty()) return Backend::automatic;
  if (name == "vulkan") return Backend::vulkan;
  if (name == "metal") return Backend::metal;
  if (name == "d3d12") return Backend::d3d12;
  if (name == "gl") return Backend::gl;
  throw Error("unknown WebGPU backend '" + std::string(name) +
              "' (expected auto, vulkan, metal, d3d12 or gl)");
}

Backend backend_from_environment() {
  const char* name = std::getenv("WGPT_BACKEND");
  return parse_backend(name ? name : "");
}

}  // namespace wgpt::gpu
