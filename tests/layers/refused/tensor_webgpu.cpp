#include <webgpu/webgpu.h>
// Only src/gpu sees WebGPU.
