#pragma once
// Which adapters to try for a requested backend, and how to tell a software adapter from a GPU.
// Shared by both webgpu.h revisions.

#include <string_view>
#include <vector>

#include "wgpt/gpu.h"

namespace wgpt::gpu {

enum class NativeBackend { vulkan, metal, d3d12, opengles };

// Candidates in order of preference. `automatic` lists every backend of this platform; the
// caller takes the first hardware adapter, else the first software one.
std::vector<NativeBackend> adapter_candidates(Backend backend);

// llvmpipe, SwiftShader, lavapipe and softpipe are CPU rasterisers, whatever type they report.
bool is_software_adapter(std::string_view device, std::string_view description);

// Dawn's OpenGL ES backend goes through EGL; with no display it needs EGL's surfaceless platform.
void prepare_headless_egl();

}  // namespace wgpt::gpu
