// gpu sees WebGPU and its own private headers.
#include "wgpt/gpu.h"

#include <webgpu/webgpu.h>

#include "gpu/webgpu_api.h"
