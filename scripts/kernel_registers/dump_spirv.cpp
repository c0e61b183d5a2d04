// Writes the SPIR-V that Dawn's Vulkan backend generates for one WGSL kernel (a file written by
// `wgpt info --dump-kernels`), as SPIR-V assembly in OUTDIR/<file name>.spvasm, by compiling it
// with Dawn's dump_shaders toggle on. Part of scripts/kernel_registers.sh; not built with wgpt.
// Usage: dump_spirv OUTDIR KERNEL.wgsl
#include <webgpu/webgpu.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/dawn_features.h"

namespace {

constexpr std::string_view kSpirvMarker = "/* Dumped generated SPIRV disassembly */";

std::string text_of(WGPUStringView view) {
  if (!view.data) return {};
  return view.length == WGPU_STRLEN ? std::string(view.data) : std::string(view.data, view.length);
}

void wait(WGPUInstance instance, WGPUFuture future) {
  WGPUFutureWaitInfo info{future, false};
  while (!info.completed) wgpuInstanceWaitAny(instance, 1, &info, UINT64_MAX);
}

WGPUInstance create_instance() {
  WGPUInstanceFeatureName timed_wait = WGPUInstanceFeatureName_TimedWaitAny;
  WGPUInstanceDescriptor descriptor = WGPU_INSTANCE_DESCRIPTOR_INIT;
  descriptor.requiredFeatureCount = 1;
  descriptor.requiredFeatures = &timed_wait;
  return wgpuCreateInstance(&descriptor);
}

WGPUAdapter vulkan_adapter(WGPUInstance instance) {
  WGPURequestAdapterOptions options = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  options.backendType = WGPUBackendType_Vulkan;
  WGPUAdapter adapter = nullptr;
  WGPURequestAdapterCallbackInfo callback = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestAdapterStatus, WGPUAdapter found, WGPUStringView message,
                         void* out, void*) {
    *static_cast<WGPUAdapter*>(out) = found;
    if (!found) std::fprintf(stderr, "no Vulkan adapter: %s\n", text_of(message).c_str());
  };
  callback.userdata1 = &adapter;
  wait(instance, wgpuInstanceRequestAdapter(instance, &options, callback));
  return adapter;
}

// A device as wgpt creates one (the adapter's limits, subgroups and shader-f16 where offered, the
// checks inside kernels unless WGPT_KERNEL_CHECKS=0), with the generated SPIR-V logged.
WGPUDevice dumping_device(WGPUInstance instance, WGPUAdapter adapter) {
  WGPULimits limits = WGPU_LIMITS_INIT;
  wgpuAdapterGetLimits(adapter, &limits);
  std::vector<WGPUFeatureName> features;
  for (WGPUFeatureName wanted : {wgpt::gpu::dawn::kShaderF16, wgpt::gpu::dawn::kSubgroups}) {
    if (wgpuAdapterHasFeature(adapter, wanted)) features.push_back(wanted);
  }
  std::vector<const char*> toggles = {"dump_shaders", "disable_symbol_renaming"};
  const char* checks = std::getenv("WGPT_KERNEL_CHECKS");
  if (checks && std::string_view(checks) == "0") {
    toggles.push_back("disable_robustness");
    toggles.push_back("disable_workgroup_init");
  }
  WGPUDawnTogglesDescriptor toggle_descriptor = WGPU_DAWN_TOGGLES_DESCRIPTOR_INIT;
  toggle_descriptor.enabledToggleCount = toggles.size();
  toggle_descriptor.enabledToggles = toggles.data();
  WGPUDeviceDescriptor descriptor = WGPU_DEVICE_DESCRIPTOR_INIT;
  descriptor.nextInChain = &toggle_descriptor.chain;
  descriptor.requiredLimits = &limits;
  descriptor.requiredFeatureCount = features.size();
  descriptor.requiredFeatures = features.data();
  descriptor.uncapturedErrorCallbackInfo.callback = [](WGPUDevice const*, WGPUErrorType,
                                                       WGPUStringView message, void*, void*) {
    std::fprintf(stderr, "%s\n", text_of(message).c_str());
  };
  WGPUDevice device = nullptr;
  WGPURequestDeviceCallbackInfo callback = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestDeviceStatus, WGPUDevice created, WGPUStringView message,
                         void* out, void*) {
    *static_cast<WGPUDevice*>(out) = created;
    if (!created) std::fprintf(stderr, "no device: %s\n", text_of(message).c_str());
  };
  callback.userdata1 = &device;
  wait(instance, wgpuAdapterRequestDevice(adapter, &descriptor, callback));
  return device;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: dump_spirv OUTDIR KERNEL.wgsl\n");
    return 2;
  }
  const std::filesystem::path kernel = argv[2];
  std::ifstream file(kernel, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 1;
  }
  std::stringstream contents;
  contents << file.rdbuf();
  const std::string wgsl = contents.str();

  WGPUInstance instance = create_instance();
  WGPUAdapter adapter = instance ? vulkan_adapter(instance) : nullptr;
  WGPUDevice device = adapter ? dumping_device(instance, adapter) : nullptr;
  if (!device) return 1;
  std::string log;
  WGPULoggingCallbackInfo logging = WGPU_LOGGING_CALLBACK_INFO_INIT;
  logging.callback = [](WGPULoggingType, WGPUStringView message, void* out, void*) {
    *static_cast<std::string*>(out) += text_of(message) + "\n";
  };
  logging.userdata1 = &log;
  wgpuDeviceSetLoggingCallback(device, logging);

  // Dawn's Vulkan backend generates SPIR-V when a pipeline is created, not a shader module.
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = {wgsl.data(), wgsl.size()};
  WGPUShaderModuleDescriptor module_descriptor = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  module_descriptor.nextInChain = &source.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(device, &module_descriptor);
  WGPUComputePipelineDescriptor pipeline_descriptor = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  pipeline_descriptor.compute.module = module;
  WGPUComputePipeline pipeline = wgpuDeviceCreateComputePipeline(device, &pipeline_descriptor);
  wgpuInstanceProcessEvents(instance);

  const size_t at = log.find(kSpirvMarker);
  if (at == std::string::npos) {
    std::fprintf(stderr, "%s: Dawn logged no SPIR-V\n", argv[2]);
    return 1;
  }
  const std::filesystem::path out =
      std::filesystem::path(argv[1]) / (kernel.filename().string() + ".spvasm");
  std::ofstream(out) << log.substr(at + kSpirvMarker.size());
  wgpuComputePipelineRelease(pipeline);
  wgpuShaderModuleRelease(module);
  wgpuDeviceRelease(device);
  wgpuAdapterRelease(adapter);
  wgpuInstanceRelease(instance);
  return 0;
}
