#pragma once
// The state behind gpu::Context: device handles, caches, pools and the open recording.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpu/buffer_pool.h"
#include "gpu/kernel_layout.h"
#include "gpu/webgpu_api.h"
#include "wgpt/gpu.h"

namespace wgpt::gpu {

struct Pipeline {
  std::string name;  // the kernel's
  WGPUComputePipeline pipeline = nullptr;
  WGPUBindGroupLayout layout = nullptr;
  KernelLayout bindings;
};

struct PreparedState {
  const Pipeline* pipeline = nullptr;  // owned by the context's pipeline cache
  WGPUBindGroup group = nullptr;
  Workgroups workgroups;
  std::vector<Buffer> buffers;  // kept alive, and out of the pool, while the state lives
  ~PreparedState();
};

// Lookups by a string_view (a kernel's name, a key's bytes) without building a std::string: every
// dispatch looks up its pipeline, uniform block and bind group.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};
template <class Value>
using StringMap = std::unordered_map<std::string, Value, StringHash, std::equal_to<>>;

struct Context::Impl {
  api::DeviceHandles handles;
  // Heap-allocated so the device's callbacks keep a stable address.
  std::unique_ptr<api::ErrorSink> errors = std::make_unique<api::ErrorSink>();
  Stats stats;
  std::optional<bool> subgroups_consecutive;  // once Context::subgroups_consecutive has probed
  PromptAttention prompt_attention = PromptAttention::automatic;  // as ContextOptions asked

  StringMap<std::string> added_kernels;
  std::vector<std::string> replaced_kernels;  // from ContextOptions::kernel_directory
  StringMap<Pipeline> pipelines;              // never erased: prepared dispatches point into it
  std::shared_ptr<BufferPool> storage_pool = std::make_shared<BufferPool>();
  std::shared_ptr<BufferPool> staging_pool = std::make_shared<BufferPool>();
  // Uniform blocks keyed by their bytes: the same parameters reuse one buffer.
  struct Uniform {
    WGPUBuffer buffer;
    size_t size;
  };
  StringMap<Uniform> uniforms;
  // Bind groups keyed by their layout and entries (buffer handles, offsets, sizes). Storage
  // buffers live as long as the context (the pool keeps them), so a handle names one buffer for
  // good, and the pool hands the same buffers to a pass that repeats (BufferPool::take).
  StringMap<WGPUBindGroup> bind_groups;
  // bind_group_for's key, kept between calls so that a lookup allocates nothing.
  std::vector<uint64_t> bind_group_key;

  // The open recording: one encoder and one compute pass until the outermost scope closes.
  int scope_depth = 0;
  std::chrono::steady_clock::time_point scope_opened;  // of the outermost scope
  WGPUCommandEncoder encoder = nullptr;
  WGPUComputePassEncoder pass = nullptr;
  Submits scope_submits = Submits::once;  // as the outermost scope asked
  size_t dispatches_per_submit = Context::kDefaultDispatchesPerSubmit;
  std::vector<const Pipeline*> recorded_kernels;  // since the last submit, for error messages
  // The device buffers the recorded commands bind or copy: a queue write to one of them must
  // submit the commands first (Context::write). `recording` counts submits from 1; a slot that
  // bound its buffer in the open recording says so in BufferSlot::recorded_in.
  std::unordered_set<WGPUBuffer> recorded_buffers;
  uint64_t recording = 1;
  std::string deferred_error;   // raised by the next call (scopes close noexcept)
  api::Waitable last_readback;  // what a synchronous readback waits on
  // Asynchronous readbacks recorded in a scope: their copies are in the open recording, and each
  // maps its staging buffer once the submit that holds them is made (submit()).
  std::vector<std::function<void()>> pending_maps;
  // Where dispatches go while Context::capture runs, instead of into the pass.
  std::vector<PreparedDispatch>* captured = nullptr;
  // Context::time_kernels: while on, each dispatch is timed (kernel_timing.cpp).
  bool timing_kernels = false;
  std::map<std::string, KernelTiming, std::less<>> kernel_timings;
  // Timestamp queries, where the adapter has them: a pair per timed dispatch since the last
  // collection, resolved into `resolved` and read back when the set is full or rows are asked for.
  struct Timestamps {
    WGPUQuerySet queries = nullptr;
    Buffer resolved;
    std::vector<std::string> kernels;  // the kernel of each pair, in order
  } timestamps;

  ~Impl();
  const Pipeline& pipeline(std::string_view name);
  WGPUBuffer create_buffer(size_t size, api::BufferUsageFlags usage);
  const Uniform& uniform_for(std::span<const uint32_t> params);
  // A bind group for `entries` of `layout`, from the cache or created (a new reference either way).
  WGPUBindGroup bind_group_for(WGPUBindGroupLayout layout,
                               const std::vector<WGPUBindGroupEntry>& entries);
  WGPUCommandEncoder open_encoder();
  WGPUComputePassEncoder open_pass();
  // Ends the open compute pass, if any, so that copies can be recorded after its dispatches.
  void close_pass();
  // Ends the pass, finishes and submits everything recorded (plus whatever was added to the
  // encoder after the pass), then reports WebGPU errors as a wgpt::Error naming the kernels.
  void submit();
  // Throws the WebGPU errors reported since the last call, if any, as one wgpt::Error that says
  // where they arose: describe() (called only when there is an error), e.g. "in a submit".
  void raise_errors(const std::function<std::string()>& describe);
  // Checks a dispatch against its kernel and the device limits and builds its bind group.
  std::shared_ptr<PreparedState> bind(std::string_view name, std::span<const uint32_t> params,
                                      const std::vector<BufferRange>& buffers,
                                      Workgroups workgroups);
  void record(const PreparedState& prepared);
  void note_recorded(const PreparedState& prepared);
  void note_recorded(BufferSlot& slot);
  void take_unrecorded(BufferSlot& slot);
  // A queue write of `bytes` (padded to 4 bytes within the buffer's size), with no flush: it lands
  // before every command of the next submit.
  void queue_write(WGPUBuffer buffer, size_t buffer_size, size_t offset,
                   std::span<const std::byte> bytes);
  void readback_many_async(const std::vector<BufferRange>& regions, api::Delivery delivery,
                           std::function<void(Result<std::vector<std::vector<std::byte>>>)> done);
  std::vector<std::vector<std::byte>> readback_many(const std::vector<BufferRange>& regions);
  // Submits what is recorded and waits until the GPU has finished it (native only).
  void submit_and_wait();
  // Kernel timing: a dispatch in a timed pass of its own (timestamps), or submitted and waited for
  // alone (host timing); and the timestamps recorded since the last collection, added to the rows.
  void record_timed(const PreparedState& prepared);
  void time_dispatch(const std::string& kernel);
  void collect_timestamps();
  void check_usable();
  // Throws while Context::capture runs: `what` (a queue write, a copy, ...) would not be replayed.
  void refuse_in_capture(std::string_view what) const;
};

}  // namespace wgpt::gpu
