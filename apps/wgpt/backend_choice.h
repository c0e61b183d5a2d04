#pragma once
// --backend auto|gpu|cpu and --adapter: which backend a model-running command takes.

#include <memory>
#include <string>

#include "wgpt/gpu.h"

namespace wgpt::cli {

// The GPU context for `backend` ("gpu", "cpu" or "auto") on the WebGPU `adapter` kind (auto,
// vulkan, metal, d3d12 or gl; empty: $WGPT_BACKEND), or none for the CPU backend. `auto` takes the
// GPU unless WebGPU finds no adapter or only a software rasteriser (llvmpipe, SwiftShader), where
// the CPU backend is several times faster, and says on standard error which one it took.
std::shared_ptr<gpu::Context> open_backend(const std::string& backend, const std::string& adapter);

}  // namespace wgpt::cli
