// The native revision of webgpu.h (Dawn): futures, string views and callback-info structs.
#ifndef __EMSCRIPTEN__

#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "gpu/adapter_choice.h"
#include "gpu/dawn_features.h"
#include "gpu/webgpu_api.h"

namespace wgpt::gpu::api {

// Completions delivered in_poll, posted by whichever thread's wgpuInstanceProcessEvents (or wait)
// ran their callback, and run by the device's own `process_events`.
class Mailbox {
 public:
  void post(std::function<void(std::string)> completion, std::string error) {
    std::lock_guard lock(mutex_);
    arrived_.emplace_back(std::move(completion), std::move(error));
  }
  void deliver() {
    std::vector<std::pair<std::function<void(std::string)>, std::string>> taken;
    {
      std::lock_guard lock(mutex_);
      taken.swap(arrived_);
    }
    for (auto& [completion, error] : taken) completion(std::move(error));
  }
  // Drops what arrived undelivered: at a device's release, its context and the completions'
  // owners may be half torn down, so they run no more.
  void discard() {
    std::lock_guard lock(mutex_);
    arrived_.clear();
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::function<void(std::string)>, std::string>> arrived_;
};

namespace {

std::string to_string(WGPUStringView view) {
  if (!view.data) return {};
  return view.length == WGPU_STRLEN ? std::string(view.data) : std::string(view.data, view.length);
}

WGPUStringView view_of(const std::string& text) { return {text.data(), text.size()}; }

WGPUBackendType to_wgpu(NativeBackend backend) {
  switch (backend) {
    case NativeBackend::vulkan:
      return WGPUBackendType_Vulkan;
    case NativeBackend::metal:
      return WGPUBackendType_Metal;
    case NativeBackend::d3d12:
      return WGPUBackendType_D3D12;
    case NativeBackend::opengles:
      return WGPUBackendType_OpenGLES;
  }
  return WGPUBackendType_Undefined;
}

std::string backend_name(WGPUBackendType type) {
  switch (type) {
    case WGPUBackendType_Null:
      return "Null";
    case WGPUBackendType_WebGPU:
      return "WebGPU";
    case WGPUBackendType_D3D11:
      return "D3D11";
    case WGPUBackendType_D3D12:
      return "D3D12";
    case WGPUBackendType_Metal:
      return "Metal";
    case WGPUBackendType_Vulkan:
      return "Vulkan";
    case WGPUBackendType_OpenGL:
      return "OpenGL";
    case WGPUBackendType_OpenGLES:
      return "OpenGLES";
    default:
      return "unknown";
  }
}

void wait_future(WGPUInstance instance, WGPUFuture future) {
  WGPUFutureWaitInfo info{future, false};
  while (!info.completed) {
    WGPUWaitStatus status = wgpuInstanceWaitAny(instance, 1, &info, UINT64_MAX);
    if (status == WGPUWaitStatus_Error) throw Error("WebGPU: waiting on the GPU failed");
  }
}

// Requests an adapter of one backend; nullptr when the backend has none (or only Dawn's Null).
WGPUAdapter request_adapter(WGPUInstance instance, NativeBackend backend, std::string* why) {
  if (backend == NativeBackend::opengles) prepare_headless_egl();
  WGPURequestAdapterOptions options = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  options.backendType = to_wgpu(backend);
  // OpenGL ES cannot offer WebGPU's core feature level; everything wgpt needs is in compatibility.
  options.featureLevel =
      backend == NativeBackend::opengles ? WGPUFeatureLevel_Compatibility : WGPUFeatureLevel_Core;
  options.powerPreference = WGPUPowerPreference_HighPerformance;
  struct Reply {
    WGPUAdapter adapter = nullptr;
    std::string message;
  } reply;
  WGPURequestAdapterCallbackInfo callback = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestAdapterStatus status, WGPUAdapter adapter,
                         WGPUStringView message, void* userdata, void*) {
    auto* out = static_cast<Reply*>(userdata);
    if (status == WGPURequestAdapterStatus_Success) out->adapter = adapter;
    out->message = to_string(message);
  };
  callback.userdata1 = &reply;
  wait_future(instance, wgpuInstanceRequestAdapter(instance, &options, callback));
  if (!reply.adapter) {
    *why += backend_name(options.backendType) + ": " +
            (reply.message.empty() ? "no adapter" : reply.message) + "; ";
    return nullptr;
  }
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  wgpuAdapterGetInfo(reply.adapter, &info);
  const bool is_null = info.backendType == WGPUBackendType_Null;
  wgpuAdapterInfoFreeMembers(info);
  if (is_null) {
    wgpuAdapterRelease(reply.adapter);
    *why += "only Dawn's Null adapter (refused); ";
    return nullptr;
  }
  return reply.adapter;
}

AdapterInfo describe(WGPUAdapter adapter) {
  WGPUAdapterInfo raw = WGPU_ADAPTER_INFO_INIT;
  wgpuAdapterGetInfo(adapter, &raw);
  AdapterInfo info;
  info.vendor = to_string(raw.vendor);
  info.architecture = to_string(raw.architecture);
  info.device = to_string(raw.device);
  info.description = to_string(raw.description);
  info.backend = backend_name(raw.backendType);
  info.vendor_id = raw.vendorID;
  info.device_id = raw.deviceID;
  info.is_cpu =
      raw.adapterType == WGPUAdapterType_CPU || is_software_adapter(info.device, info.description);
  wgpuAdapterInfoFreeMembers(raw);
  return info;
}

// The f16 × f16 → f32 subgroup-matrix configuration wgpt's kernels use, when the adapter offers one
// they can tile (each of m, n and k 8 or 16): the one with the most products per step.
SubgroupMatrix choose_f16_matrix(WGPUAdapter adapter) {
  if (!wgpuAdapterHasFeature(adapter, dawn::kSubgroupMatrix)) return {};
  WGPUAdapterPropertiesSubgroupMatrixConfigs configs =
      WGPU_ADAPTER_PROPERTIES_SUBGROUP_MATRIX_CONFIGS_INIT;
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  info.nextInChain = &configs.chain;
  if (wgpuAdapterGetInfo(adapter, &info) != WGPUStatus_Success) return {};
  SubgroupMatrix best;
  auto tileable = [](uint32_t size) { return size == 8 || size == 16; };
  for (size_t i = 0; i < configs.configCount; ++i) {
    const WGPUSubgroupMatrixConfig& c = configs.configs[i];
    if (static_cast<uint32_t>(c.componentType) != dawn::kComponentF16 ||
        static_cast<uint32_t>(c.resultComponentType) != dawn::kComponentF32 || !tileable(c.M) ||
        !tileable(c.N) || !tileable(c.K)) {
      continue;
    }
    if (c.M * c.N * c.K > best.m * best.n * best.k) best = {c.M, c.N, c.K, info.subgroupMaxSize};
  }
  wgpuAdapterPropertiesSubgroupMatrixConfigsFreeMembers(configs);
  wgpuAdapterInfoFreeMembers(info);
  return best;
}

Limits summarize(const WGPULimits& raw, WGPUDevice device, const SubgroupMatrix& f16_matrix) {
  Limits limits;
  limits.max_storage_buffer_binding_size = raw.maxStorageBufferBindingSize;
  limits.max_buffer_size = raw.maxBufferSize;
  limits.max_storage_buffers_per_stage = raw.maxStorageBuffersPerShaderStage;
  limits.max_workgroup_storage_bytes = raw.maxComputeWorkgroupStorageSize;
  limits.max_invocations_per_workgroup = raw.maxComputeInvocationsPerWorkgroup;
  limits.max_workgroup_size_x = raw.maxComputeWorkgroupSizeX;
  limits.max_workgroups_per_dimension = raw.maxComputeWorkgroupsPerDimension;
  limits.min_storage_buffer_offset_alignment = raw.minStorageBufferOffsetAlignment;
  limits.shader_f16 = wgpuDeviceHasFeature(device, dawn::kShaderF16);
  limits.timestamp_query = wgpuDeviceHasFeature(device, dawn::kTimestampQuery);
  if (wgpuDeviceHasFeature(device, dawn::kSubgroupMatrix)) limits.f16_matrix = f16_matrix;
  return limits;
}

// The subgroup feature and the adapter's subgroup sizes.
void add_subgroups(WGPUAdapter adapter, WGPUDevice device, Limits& limits) {
  limits.subgroups = wgpuDeviceHasFeature(device, dawn::kSubgroups);
  if (!limits.subgroups) return;
  WGPUAdapterInfo info = WGPU_ADAPTER_INFO_INIT;
  wgpuAdapterGetInfo(adapter, &info);
  limits.subgroup_min_size = info.subgroupMinSize;
  limits.subgroup_max_size = info.subgroupMaxSize;
  wgpuAdapterInfoFreeMembers(info);
}

WGPUDevice request_device(WGPUInstance instance, WGPUAdapter adapter, bool subgroup_matrix,
                          bool kernel_checks, ErrorSink* sink, std::string* why) {
  WGPULimits limits = WGPU_LIMITS_INIT;
  if (wgpuAdapterGetLimits(adapter, &limits) != WGPUStatus_Success) {
    *why += "the adapter did not report its limits; ";
    return nullptr;
  }
  std::vector<WGPUFeatureName> features;
  for (WGPUFeatureName wanted : {dawn::kShaderF16, dawn::kTimestampQuery, dawn::kSubgroups}) {
    if (wgpuAdapterHasFeature(adapter, wanted)) features.push_back(wanted);
  }
  WGPUDeviceDescriptor descriptor = WGPU_DEVICE_DESCRIPTOR_INIT;
  std::vector<const char*> enabled_toggles;
  // Dawn's Vulkan backend compiles subgroup matrices only under the Vulkan memory model, which it
  // uses on request.
  if (subgroup_matrix) {
    features.push_back(dawn::kSubgroupMatrix);
    enabled_toggles.push_back("use_vulkan_memory_model");
  }
  // Without the checks (ContextOptions::kernel_checks), Tint emits neither the clamp on every
  // storage index nor the zeroing of workgroup memory and its barrier at every kernel's start.
  if (!kernel_checks) {
    enabled_toggles.push_back("disable_robustness");
    enabled_toggles.push_back("disable_workgroup_init");
  }
  WGPUDawnTogglesDescriptor toggles = WGPU_DAWN_TOGGLES_DESCRIPTOR_INIT;
  toggles.enabledToggleCount = enabled_toggles.size();
  toggles.enabledToggles = enabled_toggles.data();
  // Dawn rounds timestamps to a coarse quantum unless told not to: profiles need the exact ones.
  const char* exact_timestamps = "timestamp_quantization";
  if (wgpuAdapterHasFeature(adapter, dawn::kTimestampQuery)) {
    toggles.disabledToggleCount = 1;
    toggles.disabledToggles = &exact_timestamps;
  }
  if (toggles.enabledToggleCount + toggles.disabledToggleCount > 0) {
    descriptor.nextInChain = &toggles.chain;
  }
  descriptor.requiredLimits = &limits;  // the adapter's full limits, not WebGPU's defaults
  descriptor.requiredFeatureCount = features.size();
  descriptor.requiredFeatures = features.data();
  descriptor.uncapturedErrorCallbackInfo.callback =
      [](WGPUDevice const*, WGPUErrorType, WGPUStringView message, void* userdata, void*) {
        static_cast<ErrorSink*>(userdata)->report(to_string(message));
      };
  descriptor.uncapturedErrorCallbackInfo.userdata1 = sink;
  descriptor.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  descriptor.deviceLostCallbackInfo.callback = [](WGPUDevice const*, WGPUDeviceLostReason reason,
                                                  WGPUStringView message, void* userdata, void*) {
    if (reason == WGPUDeviceLostReason_Destroyed ||
        reason == WGPUDeviceLostReason_CallbackCancelled)
      return;
    static_cast<ErrorSink*>(userdata)->mark_lost(to_string(message));
  };
  descriptor.deviceLostCallbackInfo.userdata1 = sink;

  struct Reply {
    WGPUDevice device = nullptr;
    std::string message;
  } reply;
  WGPURequestDeviceCallbackInfo callback = WGPU_REQUEST_DEVICE_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
                         void* userdata, void*) {
    auto* out = static_cast<Reply*>(userdata);
    if (status == WGPURequestDeviceStatus_Success) out->device = device;
    out->message = to_string(message);
  };
  callback.userdata1 = &reply;
  wait_future(instance, wgpuAdapterRequestDevice(adapter, &descriptor, callback));
  if (!reply.device) *why += "device creation failed: " + reply.message + "; ";
  return reply.device;
}

// Callbacks that carry a heap-allocated std::function through the C API's userdata.
using Completion = std::function<void(std::string)>;

// What a callback carries through the C API's userdata: the completion, and for one delivered
// in_poll the mailbox to post it to (none: the waiting thread runs it now).
struct Pending {
  std::shared_ptr<Mailbox> mailbox;
  Completion completion;
};

void* pending(const DeviceHandles& handles, Delivery delivery, Completion done) {
  return new Pending{delivery == Delivery::in_poll ? handles.mailbox : nullptr, std::move(done)};
}

void complete(void* userdata, std::string error) {
  std::unique_ptr<Pending> p(static_cast<Pending*>(userdata));
  if (p->mailbox) return p->mailbox->post(std::move(p->completion), std::move(error));
  p->completion(std::move(error));
}

WGPUCallbackMode mode_for(Delivery delivery) {
  return delivery == Delivery::in_wait ? WGPUCallbackMode_WaitAnyOnly
                                       : WGPUCallbackMode_AllowProcessEvents;
}

// One instance for the whole process, never released. Dawn's OpenGL ES backend opens an EGL
// display per instance, and EGL displays are process-wide: an instance torn down while another
// device still works terminates the display under it (seen as heap corruption when contexts were
// created and destroyed on several threads). Callers hold the device-lifetime lock.
//
// Dawn lists its experimental features (subgroup matrices) only on an instance that allows unsafe
// APIs; a device still gets only the features wgpt asks for by name.
WGPUInstance shared_instance() {
  static WGPUInstance instance = [] {
    WGPUInstanceFeatureName timed_wait = WGPUInstanceFeatureName_TimedWaitAny;
    const char* allow_unsafe_apis = "allow_unsafe_apis";
    WGPUDawnTogglesDescriptor toggles = WGPU_DAWN_TOGGLES_DESCRIPTOR_INIT;
    toggles.enabledToggleCount = 1;
    toggles.enabledToggles = &allow_unsafe_apis;
    WGPUInstanceDescriptor descriptor = WGPU_INSTANCE_DESCRIPTOR_INIT;
    descriptor.nextInChain = &toggles.chain;
    descriptor.requiredFeatureCount = 1;
    descriptor.requiredFeatures = &timed_wait;
    return wgpuCreateInstance(&descriptor);
  }();
  return instance;
}

// Creates the device on `handles.adapter` (released on failure), with subgroup matrices when
// `f16_matrix` is available and WebGPU's checks inside kernels when `kernel_checks`, and describes
// both.
void finish_device(DeviceHandles handles, const SubgroupMatrix& f16_matrix, bool kernel_checks,
                   ErrorSink* sink, const std::function<void(DeviceHandles, std::string)>& done) {
  std::string why;
  handles.device = request_device(handles.instance, handles.adapter, f16_matrix.available(),
                                  kernel_checks, sink, &why);
  if (!handles.device) {
    wgpuAdapterRelease(handles.adapter);
    return done({}, "WebGPU: " + why.substr(0, why.size() - 2));
  }
  handles.queue = wgpuDeviceGetQueue(handles.device);
  handles.info = describe(handles.adapter);
  handles.mailbox = std::make_shared<Mailbox>();
  WGPULimits limits = WGPU_LIMITS_INIT;
  wgpuDeviceGetLimits(handles.device, &limits);
  handles.limits = summarize(limits, handles.device, f16_matrix);
  add_subgroups(handles.adapter, handles.device, handles.limits);
  handles.limits.kernel_checks = kernel_checks;
  done(std::move(handles), {});
}

}  // namespace

void create_null_device(const SubgroupMatrix& f16_matrix, ErrorSink* sink,
                        std::function<void(DeviceHandles, std::string)> done) {
  DeviceHandles handles;
  handles.instance = shared_instance();
  WGPURequestAdapterOptions options = WGPU_REQUEST_ADAPTER_OPTIONS_INIT;
  options.backendType = WGPUBackendType_Null;
  WGPURequestAdapterCallbackInfo callback = WGPU_REQUEST_ADAPTER_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView,
                         void* userdata, void*) {
    if (status == WGPURequestAdapterStatus_Success) *static_cast<WGPUAdapter*>(userdata) = adapter;
  };
  callback.userdata1 = &handles.adapter;
  wait_future(handles.instance, wgpuInstanceRequestAdapter(handles.instance, &options, callback));
  if (!handles.adapter) return done({}, "WebGPU: this Dawn has no Null adapter");
  // The Null adapter offers every feature but reports no subgroup-matrix configuration: the
  // caller names the one to compile for.
  finish_device(std::move(handles), f16_matrix, /*kernel_checks=*/true, sink, done);
}

void create_device_async(Backend backend, bool kernel_checks, ErrorSink* sink,
                         std::function<void(DeviceHandles, std::string)> done) {
  DeviceHandles handles;
  handles.instance = shared_instance();
  if (!handles.instance) return done({}, "WebGPU: could not create an instance");

  std::string why;
  // Take the first hardware adapter; a software one only when no candidate has hardware.
  WGPUAdapter software = nullptr;
  for (NativeBackend candidate : adapter_candidates(backend)) {
    WGPUAdapter adapter = request_adapter(handles.instance, candidate, &why);
    if (!adapter) continue;
    if (!describe(adapter).is_cpu) {
      handles.adapter = adapter;
      break;
    }
    if (!software) {
      software = adapter;
    } else {
      wgpuAdapterRelease(adapter);
    }
  }
  if (handles.adapter) {
    if (software) wgpuAdapterRelease(software);
  } else {
    handles.adapter = software;
  }
  if (!handles.adapter) {
    return done({}, "no usable WebGPU adapter (" + why.substr(0, why.size() - 2) + ")");
  }
  const SubgroupMatrix f16_matrix = choose_f16_matrix(handles.adapter);
  finish_device(std::move(handles), f16_matrix, kernel_checks, sink, done);
}

void release_device(DeviceHandles& handles) {
  if (handles.queue) wgpuQueueRelease(handles.queue);
  if (handles.device) {
    wgpuDeviceDestroy(handles.device);
    wgpuDeviceRelease(handles.device);
  }
  if (handles.adapter) wgpuAdapterRelease(handles.adapter);
  // Let the device's last callbacks run (the instance itself is shared and stays); what they post
  // is dropped, and a callback that another thread runs later posts into a mailbox no one reads.
  if (handles.instance) wgpuInstanceProcessEvents(handles.instance);
  if (handles.mailbox) handles.mailbox->discard();
  handles = {};
}

std::string create_compute_pipeline(const DeviceHandles& handles, const std::string& wgsl,
                                    WGPUComputePipeline* pipeline) {
  wgpuDevicePushErrorScope(handles.device, WGPUErrorFilter_Validation);
  WGPUShaderSourceWGSL source = WGPU_SHADER_SOURCE_WGSL_INIT;
  source.code = view_of(wgsl);
  WGPUShaderModuleDescriptor module_descriptor = WGPU_SHADER_MODULE_DESCRIPTOR_INIT;
  module_descriptor.nextInChain = &source.chain;
  WGPUShaderModule module = wgpuDeviceCreateShaderModule(handles.device, &module_descriptor);
  const std::string entry_point = "main";
  WGPUComputePipelineDescriptor descriptor = WGPU_COMPUTE_PIPELINE_DESCRIPTOR_INIT;
  descriptor.compute.module = module;
  descriptor.compute.entryPoint = view_of(entry_point);
  *pipeline = wgpuDeviceCreateComputePipeline(handles.device, &descriptor);
  wgpuShaderModuleRelease(module);

  std::string error;
  WGPUPopErrorScopeCallbackInfo callback = WGPU_POP_ERROR_SCOPE_CALLBACK_INFO_INIT;
  callback.mode = WGPUCallbackMode_WaitAnyOnly;
  callback.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView message,
                         void* userdata, void*) {
    if (type != WGPUErrorType_NoError) *static_cast<std::string*>(userdata) = to_string(message);
  };
  callback.userdata1 = &error;
  wait_future(handles.instance, wgpuDevicePopErrorScope(handles.device, callback));
  if (!error.empty() && *pipeline) {
    wgpuComputePipelineRelease(*pipeline);
    *pipeline = nullptr;
  }
  return error;
}

void dispatch_workgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z) {
  wgpuComputePassEncoderDispatchWorkgroups(pass, x, y, z);
}

void retain(WGPUBindGroup group) { wgpuBindGroupAddRef(group); }

Waitable map_read_async(const DeviceHandles& handles, WGPUBuffer buffer, size_t size,
                        Delivery delivery, std::function<void(std::string)> done) {
  WGPUBufferMapCallbackInfo callback = WGPU_BUFFER_MAP_CALLBACK_INFO_INIT;
  callback.mode = mode_for(delivery);
  callback.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* userdata, void*) {
    complete(userdata, status == WGPUMapAsyncStatus_Success
                           ? std::string()
                           : "mapping a readback buffer failed: " + to_string(message));
  };
  callback.userdata1 = pending(handles, delivery, std::move(done));
  return {wgpuBufferMapAsync(buffer, WGPUMapMode_Read, 0, size, callback).id};
}

Waitable queue_done_async(const DeviceHandles& handles, std::function<void(std::string)> done) {
  WGPUQueueWorkDoneCallbackInfo callback = WGPU_QUEUE_WORK_DONE_CALLBACK_INFO_INIT;
  callback.mode = mode_for(Delivery::in_wait);
  callback.callback = [](WGPUQueueWorkDoneStatus status, WGPUStringView message, void* userdata,
                         void*) {
    complete(userdata, status == WGPUQueueWorkDoneStatus_Success
                           ? std::string()
                           : "waiting for the queue failed: " + to_string(message));
  };
  callback.userdata1 = pending(handles, Delivery::in_wait, std::move(done));
  return {wgpuQueueOnSubmittedWorkDone(handles.queue, callback).id};
}

void wait(const DeviceHandles& handles, Waitable waitable) {
  wait_future(handles.instance, WGPUFuture{waitable.id});
}

void process_events(const DeviceHandles& handles) {
  wgpuInstanceProcessEvents(handles.instance);
  handles.mailbox->deliver();
}

WGPUQuerySet create_timestamp_queries(const DeviceHandles& handles, uint32_t count) {
  WGPUQuerySetDescriptor descriptor = WGPU_QUERY_SET_DESCRIPTOR_INIT;
  descriptor.type = WGPUQueryType_Timestamp;
  descriptor.count = count;
  return wgpuDeviceCreateQuerySet(handles.device, &descriptor);
}

WGPUComputePassEncoder begin_timed_pass(WGPUCommandEncoder encoder, WGPUQuerySet queries,
                                        uint32_t first) {
  WGPUPassTimestampWrites writes = WGPU_PASS_TIMESTAMP_WRITES_INIT;
  writes.querySet = queries;
  writes.beginningOfPassWriteIndex = first;
  writes.endOfPassWriteIndex = first + 1;
  WGPUComputePassDescriptor descriptor = WGPU_COMPUTE_PASS_DESCRIPTOR_INIT;
  descriptor.timestampWrites = &writes;
  return wgpuCommandEncoderBeginComputePass(encoder, &descriptor);
}

}  // namespace wgpt::gpu::api

#endif  // __EMSCRIPTEN__
