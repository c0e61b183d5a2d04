#pragma once
// The WGPUFeatureName values of the pinned Dawn library (npm bun-webgpu-linux-x64 0.1.7). Its
// webgpu.h revision is older than the header wgpt compiles against (react-native-webgpu 0.10.2),
// and the two number the features differently: the header's WGPUFeatureName_ShaderF16 (0x0B) is
// this library's RG11B10UfloatRenderable, its TimestampQuery (0x09) is IndirectFirstInstance, and
// its ChromiumExperimentalSubgroupMatrix (0x50034) is something else again. So wgpt names the
// features it asks for by the library's own values, found by listing the Null adapter's features
// and enabling each WGSL extension in turn; tests/gpu/tensor_core_test.cpp proves them against the
// library on every run. The chained-struct types wgpt uses (DawnTogglesDescriptor 0x5000A,
// AdapterPropertiesSubgroupMatrixConfigs 0x5003B) have the same values in both.
#ifndef __EMSCRIPTEN__

#include <webgpu/webgpu.h>

namespace wgpt::gpu::dawn {

constexpr WGPUFeatureName kTimestampQuery = static_cast<WGPUFeatureName>(0x03);
constexpr WGPUFeatureName kShaderF16 = static_cast<WGPUFeatureName>(0x0A);
constexpr WGPUFeatureName kSubgroups = static_cast<WGPUFeatureName>(0x11);
constexpr WGPUFeatureName kSubgroupMatrix = static_cast<WGPUFeatureName>(0x50037);

// WGPUSubgroupMatrixComponentType, which both revisions number alike.
constexpr uint32_t kComponentF32 = 1;
constexpr uint32_t kComponentF16 = 2;

}  // namespace wgpt::gpu::dawn

#endif  // __EMSCRIPTEN__
