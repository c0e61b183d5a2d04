// The browser revision of webgpu.h (Emscripten 3.1.6): plain callbacks with one userdata pointer,
// C strings, `dispatch` for `dispatchWorkgroups`, no instance object and no blocking waits.
#ifdef __EMSCRIPTEN__

#include <memory>
#include <utility>

#include "gpu/adapter_choice.h"
#include "gpu/webgpu_api.h"

namespace wgpt::gpu::api {
namespace {

using Completion = std::function<void(std::string)>;

std::string text_of(const char* message) { return message ? message : ""; }

// The state of one create_device_async call while the browser resolves its promises.
struct Creation {
  ErrorSink* sink;
  std::function<void(DeviceHandles, std::string)> done;
  DeviceHandles handles;
};

Limits summarize(WGPUDevice device) {
  WGPUSupportedLimits supported{};
  wgpuDeviceGetLimits(device, &supported);
  const WGPULimits& raw = supported.limits;
  Limits limits;
  limits.max_storage_buffer_binding_size = raw.maxStorageBufferBindingSize;
  limits.max_buffer_size = raw.maxStorageBufferBindingSize;
  limits.max_storage_buffers_per_stage = raw.maxStorageBuffersPerShaderStage;
  limits.max_workgroup_storage_bytes = raw.maxComputeWorkgroupStorageSize;
  limits.max_invocations_per_workgroup = raw.maxComputeInvocationsPerWorkgroup;
  limits.max_workgroup_size_x = raw.maxComputeWorkgroupSizeX;
  limits.max_workgroups_per_dimension = raw.maxComputeWorkgroupsPerDimension;
  limits.min_storage_buffer_offset_alignment = raw.minStorageBufferOffsetAlignment;
  return limits;
}

void on_device(WGPURequestDeviceStatus status, WGPUDevice device, const char* message,
               void* userdata) {
  std::unique_ptr<Creation> creation(static_cast<Creation*>(userdata));
  if (status != WGPURequestDeviceStatus_Success) {
    wgpuAdapterRelease(creation->handles.adapter);
    return creation->done({}, "WebGPU: device creation failed: " + text_of(message));
  }
  DeviceHandles& handles = creation->handles;
  handles.device = device;
  handles.queue = wgpuDeviceGetQueue(device);
  handles.limits = summarize(device);
  wgpuDeviceSetUncapturedErrorCallback(
      device,
      [](WGPUErrorType, const char* text, void* sink) {
        static_cast<ErrorSink*>(sink)->report(text_of(text));
      },
      creation->sink);
  wgpuDeviceSetDeviceLostCallback(
      device,
      [](WGPUDeviceLostReason reason, const char* text, void* sink) {
        if (reason == WGPUDeviceLostReason_Destroyed) return;
        static_cast<ErrorSink*>(sink)->mark_lost(text_of(text));
      },
      creation->sink);
  creation->done(std::move(handles), {});
}

void on_adapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, const char* message,
                void* userdata) {
  std::unique_ptr<Creation> creation(static_cast<Creation*>(userdata));
  if (status != WGPURequestAdapterStatus_Success || !adapter) {
    return creation->done({}, "no usable WebGPU adapter in this browser: " + text_of(message));
  }
  WGPUAdapterProperties properties{};
  wgpuAdapterGetProperties(adapter, &properties);
  AdapterInfo& info = creation->handles.info;
  info.device = text_of(properties.name);
  info.description = text_of(properties.driverDescription);
  info.backend = "WebGPU";
  info.vendor_id = properties.vendorID;
  info.device_id = properties.deviceID;
  info.is_cpu = properties.adapterType == WGPUAdapterType_CPU ||
                is_software_adapter(info.device, info.description);
  creation->handles.adapter = adapter;
  WGPUDeviceDescriptor descriptor{};
  wgpuAdapterRequestDevice(adapter, &descriptor, on_device, creation.release());
}

}  // namespace

void create_device_async(Backend, ErrorSink* sink,
                         std::function<void(DeviceHandles, std::string)> done) {
  // The browser chooses its own backend; there is no instance object in this revision.
  WGPURequestAdapterOptions options{};
  options.powerPreference = WGPUPowerPreference_HighPerformance;
  auto* creation = new Creation{sink, std::move(done), {}};
  wgpuInstanceRequestAdapter(nullptr, &options, on_adapter, creation);
}

void release_device(DeviceHandles& handles) {
  if (handles.queue) wgpuQueueRelease(handles.queue);
  if (handles.device) {
    wgpuDeviceDestroy(handles.device);
    wgpuDeviceRelease(handles.device);
  }
  if (handles.adapter) wgpuAdapterRelease(handles.adapter);
  handles = {};
}

std::string create_compute_pipeline(const DeviceHandles& handles, const std::string& wgsl,
                                    WGPUComputePipeline* pipeline) {
  WGPUShaderModuleWGSLDescriptor source{};
  source.chain.sType = WGPUSType_ShaderModuleWGSLDescriptor;
  source.source = wgsl.c_str();
  WGPUShaderModuleDescriptor module_descriptor{};
  module_descriptor.nextInChain = &source.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(handles.device, &module_descriptor);
  WGPUComputePipelineDescriptor descriptor{};
  descriptor.compute.module = module;
  descriptor.compute.entryPoint = "main";
  // Compile errors arrive later through the uncaptured-error callback: nothing may block here.
  *pipeline = wgpuDeviceCreateComputePipeline(handles.device, &descriptor);
  wgpuShaderModuleRelease(module);
  return {};
}

void dispatch_workgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z) {
  wgpuComputePassEncoderDispatch(pass, x, y, z);
}

Waitable map_read_async(const DeviceHandles&, WGPUBuffer buffer, size_t size,
                        std::function<void(std::string)> done) {
  wgpuBufferMapAsync(
      buffer, WGPUMapMode_Read, 0, size,
      [](WGPUBufferMapAsyncStatus status, void* userdata) {
        std::unique_ptr<Completion> completion(static_cast<Completion*>(userdata));
        (*completion)(status == WGPUBufferMapAsyncStatus_Success
                          ? std::string()
                          : "mapping a readback buffer failed");
      },
      new Completion(std::move(done)));
  return {};
}

Waitable queue_done_async(const DeviceHandles& handles, std::function<void(std::string)> done) {
  wgpuQueueOnSubmittedWorkDone(
      handles.queue, 0,
      [](WGPUQueueWorkDoneStatus status, void* userdata) {
        std::unique_ptr<Completion> completion(static_cast<Completion*>(userdata));
        (*completion)(status == WGPUQueueWorkDoneStatus_Success ? std::string()
                                                                : "waiting for the queue failed");
      },
      new Completion(std::move(done)));
  return {};
}

void wait(const DeviceHandles&, Waitable) {
  throw Error("waiting on the GPU blocks, which the browser forbids: use the *_async forms");
}

void process_events(const DeviceHandles&) {}  // the browser's event loop delivers callbacks

}  // namespace wgpt::gpu::api

#endif  // __EMSCRIPTEN__
