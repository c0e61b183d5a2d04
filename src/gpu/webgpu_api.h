#pragma once
// The seam between wgpt and the two revisions of webgpu.h it is built against: Dawn's current
// native API (futures, string views, callback-info structs) and the older one that Emscripten
// 3.1.6 ships for the browser (plain callbacks, C strings, `dispatch`). Every call whose shape
// differs between them lives behind this header, implemented once per revision in
// webgpu_dawn.cpp and webgpu_emscripten.cpp; everything else in src/gpu/ uses the calls the two
// revisions share.

#include <webgpu/webgpu.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "wgpt/gpu.h"

namespace wgpt::gpu::api {

// Buffer usage flags: an enum of bits in the older revision, a 64-bit flag type in the newer.
#ifdef __EMSCRIPTEN__
using BufferUsageFlags = WGPUBufferUsageFlags;
#else
using BufferUsageFlags = WGPUBufferUsage;
#endif

// Errors the device reports outside any call (validation, out of memory, device lost), collected
// until the context next checks for them.
class ErrorSink {
 public:
  void report(std::string message);
  // Removes and returns what was reported since the last call.
  std::vector<std::string> take();
  void mark_lost(std::string message);
  bool lost() const;
  std::string lost_message() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  bool lost_ = false;
  std::string lost_message_;
};

// Completions of a device's asynchronous work that a poll delivers (native; see map_read_async).
class Mailbox;

struct DeviceHandles {
  WGPUInstance instance = nullptr;
  WGPUAdapter adapter = nullptr;
  WGPUDevice device = nullptr;
  WGPUQueue queue = nullptr;
  AdapterInfo info;
  Limits limits;
  std::shared_ptr<Mailbox> mailbox;  // native only
};

// Finds an adapter for `backend` and creates a device on it with the adapter's full limits.
// `done` runs exactly once, with the handles or with an error message (handles then empty).
// Native: it has run when this returns. Browser: it runs from the event loop.
// `kernel_checks`: ContextOptions::kernel_checks (a browser keeps the checks whatever it says).
void create_device_async(Backend backend, bool kernel_checks, ErrorSink* sink,
                         std::function<void(DeviceHandles, std::string error)> done);
void release_device(DeviceHandles& handles);
// A device on Dawn's Null adapter, which validates and compiles kernels but runs nothing: for tests
// of kernels this machine cannot run (tensor cores). Its subgroup matrices are `f16_matrix`. Native
// only; reached only through gpu/validation_context.h.
void create_null_device(const SubgroupMatrix& f16_matrix, ErrorSink* sink,
                        std::function<void(DeviceHandles, std::string error)> done);

// Compiles WGSL and creates its compute pipeline (entry point `main`, layout derived from the
// shader). Returns an error message naming the problem, or "" with `pipeline` set.
std::string create_compute_pipeline(const DeviceHandles& handles, const std::string& wgsl,
                                    WGPUComputePipeline* pipeline);

void dispatch_workgroups(WGPUComputePassEncoder pass, uint32_t x, uint32_t y, uint32_t z);
// Takes another reference to a bind group (AddRef in the newer revision, Reference in the older).
void retain(WGPUBindGroup group);

// Something the host can wait for: a buffer mapping or the queue draining.
struct Waitable {
  uint64_t id = 0;
};
// Who runs a native completion, on the thread that does so. The process shares one WebGPU instance
// (webgpu_dawn.cpp says why), and Dawn lets any thread's wait or event processing on it run any
// device's callbacks: a completion run there would race with the thread that owns the context.
enum class Delivery {
  in_wait,  // `wait` on this very Waitable runs it
  in_poll,  // `process_events` on this device runs it
};
// Starts mapping `buffer` (the first `size` bytes) for reading. `done` runs with "" or an error.
Waitable map_read_async(const DeviceHandles& handles, WGPUBuffer buffer, size_t size,
                        Delivery delivery, std::function<void(std::string error)> done);
// Delivered in `wait` (native).
Waitable queue_done_async(const DeviceHandles& handles,
                          std::function<void(std::string error)> done);
// Blocks until `waitable` (delivered in_wait) has completed and its callback has run (native only;
// throws in the browser, where nothing may block).
void wait(const DeviceHandles& handles, Waitable waitable);
// Runs this device's completions delivered in_poll whose work has finished (native; the browser's
// event loop runs every callback).
void process_events(const DeviceHandles& handles);

// Timestamp queries, for kernel timing (native only: the browser build throws). A query set of
// `count` timestamps; a compute pass whose start and end write queries `first` and `first + 1`.
WGPUQuerySet create_timestamp_queries(const DeviceHandles& handles, uint32_t count);
WGPUComputePassEncoder begin_timed_pass(WGPUCommandEncoder encoder, WGPUQuerySet queries,
                                        uint32_t first);

}  // namespace wgpt::gpu::api
