// The browser revision of webgpu.h (Emscripten 3.1.6): plain callbacks with one userdata pointer,
// C strings, `dispatch` for `dispatchWorkgroups`, no instance object and no blocking waits.
//
// Emscripten 3.1.6's JavaScript side predates parts of today's WebGPU: its adapter limits and
// instance calls abort, its adapter properties are blank, it asks for limits browsers no longer
// know, calls `pass.dispatch()` and leaves a compute pipeline's `layout` undefined where browsers
// now require 'auto'. So the adapter and the device are requested here in JavaScript (with the
// adapter's full limits) and handed to Emscripten's object tables, and one small polyfill on the
// device and the pass restores the two renamed calls. Everything after creation goes through
// Emscripten's webgpu.h as usual.
#ifdef __EMSCRIPTEN__

#include <emscripten/emscripten.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "gpu/adapter_choice.h"
#include "gpu/webgpu_api.h"

// Requests an adapter and a device, and calls wgpt_device_ready(creation, device id, JSON) with
// the adapter's description and the device's limits, or wgpt_device_ready(creation, 0, message).
// Calls Module.onDeviceLost(message) when the browser takes the device away (not when wgpt
// destroys it). The body goes through the C preprocessor, which splits `===`: hence `==` only.
EM_JS(void, wgpt_request_device, (void* creation), {
  function report(device, text) {
    var pointer = allocateUTF8(text);
    _wgpt_device_ready(creation, device, pointer);
    _free(pointer);
  }
  var adapterInfo;
  // Every outcome arrives from a promise, never before this call returns.
  Promise.resolve()
      .then(function() {
        if (typeof navigator == "undefined" || !navigator.gpu) {
          throw new Error("this browser has no WebGPU (navigator.gpu is missing): use a current " +
                          "Chrome, Edge or Safari, or a browser with WebGPU enabled");
        }
        return navigator.gpu.requestAdapter({powerPreference : "high-performance"});
      })
      .then(function(adapter) {
        if (!adapter) throw new Error("the browser offers no WebGPU adapter on this machine");
        var info = adapter.info || {};
        adapterInfo = {
          vendor : info.vendor || "",
          architecture : info.architecture || "",
          device : info.device || "",
          description : info.description || "",
          fallback : !!(info.isFallbackAdapter || adapter.isFallbackAdapter)
        };
        // The adapter's full limits: GPT-2's token table alone is over the default binding limit.
        var limits = {};
        for (var name in adapter.limits) {
          if (typeof adapter.limits[name] == "number") limits[name] = adapter.limits[name];
        }
        return adapter.requestDevice({requiredLimits : limits});
      })
      .then(function(device) {
        var pass = GPUComputePassEncoder.prototype;
        if (!pass.dispatch) pass.dispatch = pass.dispatchWorkgroups;
        var createComputePipeline = device.createComputePipeline;
        device.createComputePipeline = function(descriptor) {
          if (descriptor.layout == undefined) descriptor.layout = "auto";
          return createComputePipeline.call(device, descriptor);
        };
        device.lost.then(function(info) {
          if (info.reason != "destroyed" && Module["onDeviceLost"]) {
            Module["onDeviceLost"](info.message || "the GPU device was lost");
          }
        });
        var limits = {};
        for (var name in device.limits) {
          if (typeof device.limits[name] == "number") limits[name] = device.limits[name];
        }
        var id = WebGPU.mgrDevice.create(device, {queueId : WebGPU.mgrQueue.create(device.queue)});
        report(id, JSON.stringify({adapter : adapterInfo, limits : limits}));
      })
      .catch(
          function(error) { report(0, error && error.message ? error.message : String(error)); });
});

namespace wgpt::gpu::api {
namespace {

using Completion = std::function<void(std::string)>;

std::string text_of(const char* message) { return message ? message : ""; }

// The state of one create_device_async call while the browser resolves its promises.
struct Creation {
  ErrorSink* sink;
  std::function<void(DeviceHandles, std::string)> done;
};

AdapterInfo adapter_info_from(const nlohmann::json& adapter) {
  AdapterInfo info;
  info.vendor = adapter.value("vendor", "");
  info.architecture = adapter.value("architecture", "");
  info.device = adapter.value("device", "");
  info.description = adapter.value("description", "");
  info.backend = "WebGPU (browser)";
  // Browsers hide the driver's name; SwiftShader shows as its architecture.
  info.is_cpu = adapter.value("fallback", false) ||
                is_software_adapter(info.architecture + " " + info.device, info.description);
  return info;
}

Limits limits_from(const nlohmann::json& limits) {
  auto get = [&](const char* name) { return limits.value(name, uint64_t{0}); };
  Limits result;
  result.max_storage_buffer_binding_size = get("maxStorageBufferBindingSize");
  result.max_buffer_size = get("maxBufferSize");
  result.max_storage_buffers_per_stage =
      static_cast<uint32_t>(get("maxStorageBuffersPerShaderStage"));
  result.max_workgroup_storage_bytes = static_cast<uint32_t>(get("maxComputeWorkgroupStorageSize"));
  result.max_invocations_per_workgroup =
      static_cast<uint32_t>(get("maxComputeInvocationsPerWorkgroup"));
  result.max_workgroup_size_x = static_cast<uint32_t>(get("maxComputeWorkgroupSizeX"));
  result.max_workgroups_per_dimension =
      static_cast<uint32_t>(get("maxComputeWorkgroupsPerDimension"));
  result.min_storage_buffer_offset_alignment =
      static_cast<uint32_t>(get("minStorageBufferOffsetAlignment"));
  return result;
}

DeviceHandles describe(WGPUDevice device, const std::string& description) {
  const auto parsed = nlohmann::json::parse(description);
  DeviceHandles handles;
  handles.info = adapter_info_from(parsed.at("adapter"));
  handles.limits = limits_from(parsed.at("limits"));
  handles.device = device;
  handles.queue = wgpuDeviceGetQueue(device);
  return handles;
}

void watch_errors(WGPUDevice device, ErrorSink* sink) {
  wgpuDeviceSetUncapturedErrorCallback(
      device,
      [](WGPUErrorType, const char* text, void* sink) {
        static_cast<ErrorSink*>(sink)->report(text_of(text));
      },
      sink);
  wgpuDeviceSetDeviceLostCallback(
      device,
      [](WGPUDeviceLostReason reason, const char* text, void* sink) {
        // Destroyed is wgpt's own teardown, after which the sink is gone.
        if (reason == WGPUDeviceLostReason_Destroyed) return;
        static_cast<ErrorSink*>(sink)->mark_lost(text_of(text));
      },
      sink);
}

}  // namespace

void create_device_async(Backend, bool, ErrorSink* sink,
                         std::function<void(DeviceHandles, std::string)> done) {
  // The browser chooses its own backend and keeps WebGPU's checks (Limits::kernel_checks' default).
  wgpt_request_device(new Creation{sink, std::move(done)});
}

void release_device(DeviceHandles& handles) {
  if (handles.queue) wgpuQueueRelease(handles.queue);
  if (handles.device) {
    wgpuDeviceDestroy(handles.device);
    wgpuDeviceRelease(handles.device);
  }
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

void retain(WGPUBindGroup group) { wgpuBindGroupReference(group); }

Waitable map_read_async(const DeviceHandles&, WGPUBuffer buffer, size_t size, Delivery,
                        std::function<void(std::string)> done) {
  wgpuBufferMapAsync(
      buffer, WGPUMapMode_Read, 0, size,
      [](WGPUBufferMapAsyncStatus status, void* userdata) {
        std::unique_ptr<Completion> completion(static_cast<Completion*>(userdata));
        (*completion)(status == WGPUBufferMapAsyncStatus_Success
                          ? std::string()
                          : "mapping a readback buffer failed (was the GPU device lost?)");
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

// Kernel timing blocks (Context::time_kernels refuses in the browser), so these never run.
WGPUQuerySet create_timestamp_queries(const DeviceHandles&, uint32_t) {
  throw Error("timestamp queries are not used in the browser");
}
WGPUComputePassEncoder begin_timed_pass(WGPUCommandEncoder, WGPUQuerySet, uint32_t) {
  throw Error("timestamp queries are not used in the browser");
}

}  // namespace wgpt::gpu::api

// Called from wgpt_request_device's promise: device is 0 when creation failed, and `text` then
// says why; otherwise `text` is the JSON description of the adapter and the device's limits.
extern "C" EMSCRIPTEN_KEEPALIVE void wgpt_device_ready(void* creation_pointer, int device,
                                                       const char* text) {
  using namespace wgpt::gpu::api;
  std::unique_ptr<Creation> creation(static_cast<Creation*>(creation_pointer));
  if (device == 0) return creation->done({}, "WebGPU: " + text_of(text));
  const auto handle = reinterpret_cast<WGPUDevice>(static_cast<intptr_t>(device));
  DeviceHandles handles;
  try {
    handles = describe(handle, text_of(text));
  } catch (const std::exception& error) {
    wgpuDeviceDestroy(handle);
    wgpuDeviceRelease(handle);
    return creation->done({},
                          std::string("WebGPU: unreadable device description: ") + error.what());
  }
  watch_errors(handle, creation->sink);
  creation->done(std::move(handles), {});
}

#endif  // __EMSCRIPTEN__
