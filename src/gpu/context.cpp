#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>

#include "gpu/context_impl.h"
#include "gpu/kernel_directory.h"
#include "gpu/kernel_sources.h"
#include "gpu/kernel_specialization.h"
#include "gpu/subgroup_layout.h"

namespace wgpt::gpu {
namespace {

// Concurrent device creation or teardown wedges some drivers: both happen under one lock.
std::mutex& device_lifetime_mutex() {
  static std::mutex mutex;
  return mutex;
}

constexpr api::BufferUsageFlags kStorageUsage =
    WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
constexpr size_t kUniformCacheCapacity = 4096;
constexpr size_t kBindGroupCacheCapacity = 16384;

size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

size_t next_power_of_two(size_t value) {
  size_t power = 256;
  while (power < value) power *= 2;
  return power;
}

// The bytes a range covers: its size, or with size 0, the rest of its buffer (none past the end).
size_t range_bytes(const BufferRange& range) {
  const size_t total = range.buffer->size();
  return range.size ? range.size : total - std::min(range.offset, total);
}

// The kernels' names, each once, quoted: "'a', 'b'".
std::string join(const std::vector<const Pipeline*>& kernels) {
  std::string text;
  for (const Pipeline* kernel : kernels) {
    const std::string quoted = "'" + kernel->name + "'";
    if (text.find(quoted) != std::string::npos) continue;
    text += (text.empty() ? "" : ", ") + quoted;
  }
  return text;
}

}  // namespace

// ---- Impl -------------------------------------------------------------------------------------

Context::Impl::~Impl() {
  if (pass) wgpuComputePassEncoderRelease(pass);
  if (timestamps.queries) wgpuQuerySetRelease(timestamps.queries);
  timestamps.resolved = {};
  if (encoder) wgpuCommandEncoderRelease(encoder);
  for (auto& [key, uniform] : uniforms) wgpuBufferRelease(uniform.buffer);
  for (auto& [key, group] : bind_groups) wgpuBindGroupRelease(group);
  for (auto& [name, entry] : pipelines) {
    wgpuBindGroupLayoutRelease(entry.layout);
    wgpuComputePipelineRelease(entry.pipeline);
  }
  storage_pool.reset();
  staging_pool.reset();
  std::lock_guard lock(device_lifetime_mutex());
  api::release_device(handles);
}

void Context::Impl::check_usable() {
  if (errors->lost()) throw Error("the GPU device was lost: " + errors->lost_message());
  if (!deferred_error.empty()) throw Error(std::exchange(deferred_error, {}));
}

void Context::Impl::refuse_in_capture(std::string_view what) const {
  if (captured) {
    throw Error(std::string(what) +
                " cannot be captured: Context::capture replays dispatches only");
  }
}

void Context::Impl::raise_errors(const std::function<std::string()>& describe) {
  std::vector<std::string> messages = errors->take();
  if (errors->lost()) throw Error("the GPU device was lost: " + errors->lost_message());
  if (messages.empty()) return;
  std::string text = "WebGPU error " + describe() + ": " + messages.front();
  if (messages.size() > 1) text += " (and " + std::to_string(messages.size() - 1) + " more)";
  throw Error(text);
}

const Pipeline& Context::Impl::pipeline(std::string_view name) {
  if (auto found = pipelines.find(name); found != pipelines.end()) return found->second;
  std::string source;
  if (auto added = added_kernels.find(name); added != added_kernels.end()) {
    source = added->second;
  } else {
    const KernelSource* embedded = find_embedded_kernel(name);
    if (!embedded) throw Error("unknown kernel '" + std::string(name) + "'");
    source = embedded->wgsl;
  }
  source = specialize_kernel(name, source, handles.limits);
  Pipeline entry;
  entry.name = name;
  entry.bindings = parse_kernel_layout(name, source);
  std::string error = api::create_compute_pipeline(handles, source, &entry.pipeline);
  if (!error.empty() || !entry.pipeline) {
    throw Error("kernel '" + std::string(name) + "' failed to compile: " + error);
  }
  entry.layout = wgpuComputePipelineGetBindGroupLayout(entry.pipeline, 0);
  ++stats.pipelines_compiled;
  return pipelines.emplace(std::string(name), entry).first->second;
}

WGPUBuffer Context::Impl::create_buffer(size_t size, api::BufferUsageFlags usage) {
  WGPUBufferDescriptor descriptor{};
  descriptor.usage = usage;
  descriptor.size = size;
  WGPUBuffer buffer = wgpuDeviceCreateBuffer(handles.device, &descriptor);
  ++stats.buffers_created;
  stats.bytes_allocated += size;
  raise_errors([&] { return "creating a buffer of " + std::to_string(size) + " bytes"; });
  if (!buffer)
    throw Error("WebGPU: could not create a buffer of " + std::to_string(size) + " bytes");
  return buffer;
}

const Context::Impl::Uniform& Context::Impl::uniform_for(std::span<const uint32_t> params) {
  const std::string_view key(reinterpret_cast<const char*>(params.data()), params.size_bytes());
  if (auto found = uniforms.find(key); found != uniforms.end()) return found->second;
  if (uniforms.size() >= kUniformCacheCapacity) {
    // Commands already recorded keep their own references to these buffers.
    for (auto& [unused, uniform] : uniforms) wgpuBufferRelease(uniform.buffer);
    uniforms.clear();
  }
  // WGSL rounds a uniform struct's size up to 16 bytes; the binding must cover it.
  const size_t size = round_up(std::max<size_t>(params.size_bytes(), 16), 16);
  WGPUBuffer buffer = create_buffer(size, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
  std::vector<uint32_t> padded(size / 4, 0);
  std::copy(params.begin(), params.end(), padded.begin());
  wgpuQueueWriteBuffer(handles.queue, buffer, 0, padded.data(), size);
  return uniforms.emplace(std::string(key), Uniform{buffer, size}).first->second;
}

WGPUBindGroup Context::Impl::bind_group_for(WGPUBindGroupLayout layout,
                                            const std::vector<WGPUBindGroupEntry>& entries) {
  // The key: the layout, then each entry's binding, buffer, offset and size.
  std::vector<uint64_t>& key = bind_group_key;
  key.assign(1, reinterpret_cast<uint64_t>(layout));
  for (const WGPUBindGroupEntry& entry : entries) {
    key.insert(key.end(), {uint64_t{entry.binding}, reinterpret_cast<uint64_t>(entry.buffer),
                           entry.offset, entry.size});
  }
  const std::string_view key_bytes(reinterpret_cast<const char*>(key.data()),
                                   key.size() * sizeof(uint64_t));
  if (auto found = bind_groups.find(key_bytes); found != bind_groups.end()) {
    api::retain(found->second);
    return found->second;
  }
  if (bind_groups.size() >= kBindGroupCacheCapacity) {
    // Recorded commands and prepared dispatches keep their own references.
    for (auto& [unused, group] : bind_groups) wgpuBindGroupRelease(group);
    bind_groups.clear();
  }
  WGPUBindGroupDescriptor descriptor{};
  descriptor.layout = layout;
  descriptor.entryCount = entries.size();
  descriptor.entries = entries.data();
  WGPUBindGroup group = wgpuDeviceCreateBindGroup(handles.device, &descriptor);
  ++stats.bind_groups_created;
  api::retain(group);  // the cache's reference
  bind_groups.emplace(std::string(key_bytes), group);
  return group;
}

WGPUCommandEncoder Context::Impl::open_encoder() {
  if (!encoder) encoder = wgpuDeviceCreateCommandEncoder(handles.device, nullptr);
  return encoder;
}

WGPUComputePassEncoder Context::Impl::open_pass() {
  if (!pass) pass = wgpuCommandEncoderBeginComputePass(open_encoder(), nullptr);
  return pass;
}

void Context::Impl::close_pass() {
  if (!pass) return;
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  pass = nullptr;
}

void Context::Impl::submit() {
  close_pass();
  if (!encoder) return;
  WGPUCommandBuffer commands = wgpuCommandEncoderFinish(encoder, nullptr);
  wgpuCommandEncoderRelease(encoder);
  encoder = nullptr;
  wgpuQueueSubmit(handles.queue, 1, &commands);
  wgpuCommandBufferRelease(commands);
  ++stats.submits;
  recorded_buffers.clear();
  ++recording;
  std::vector<std::function<void()>> maps;
  maps.swap(pending_maps);
  for (const auto& map : maps) map();
  std::vector<const Pipeline*> kernels;
  kernels.swap(recorded_kernels);
  raise_errors([&] {
    return kernels.empty() ? std::string("in a submit")
                           : "in a submit of kernel(s) " + join(kernels);
  });
}

// ---- Buffer -----------------------------------------------------------------------------------

size_t Buffer::size() const { return slot_ ? slot_->size : 0; }
const void* Buffer::id() const { return slot_ ? slot_->handle : nullptr; }

// ---- Scope ------------------------------------------------------------------------------------

Scope::Scope(Context& context, Submits submits) : context_(context) {
  context_.begin_scope(submits);
}
Scope::~Scope() { context_.end_scope(); }

void Context::begin_scope(Submits submits) {
  if (impl_->scope_depth++ > 0) return;
  impl_->scope_opened = std::chrono::steady_clock::now();
  impl_->scope_submits = submits;
}

void Context::end_scope() {
  if (--impl_->scope_depth > 0) return;
  try {
    impl_->submit();
  } catch (const Error& error) {
    // A destructor may not throw: the next call on this context raises it.
    impl_->deferred_error = error.what();
  }
  impl_->stats.recording_nanoseconds +=
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - impl_->scope_opened)
                                .count());
}

// ---- Context ----------------------------------------------------------------------------------

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::~Context() = default;

void Context::create_async(ContextOptions options,
                           std::function<void(Result<std::shared_ptr<Context>>)> done) {
  // Shared, not unique: std::function needs a copyable callable.
  auto impl = std::make_shared<std::unique_ptr<Impl>>(std::make_unique<Impl>());
  (*impl)->prompt_attention = options.prompt_attention;
  if (!options.kernel_directory.empty()) {
    // Read before the device is asked for, so that a mistake in the folder costs no device.
    try {
      for (KernelFile& file : read_kernel_directory(options.kernel_directory)) {
        (*impl)->replaced_kernels.push_back(file.name);
        (*impl)->added_kernels.insert_or_assign(std::move(file.name), std::move(file.source));
      }
    } catch (const Error& error) {
      return done(error);
    }
  }
  api::ErrorSink* sink = (*impl)->errors.get();
  auto finish = [impl, done = std::move(done)](api::DeviceHandles handles, std::string error) {
    if (!error.empty()) return done(Error(error));
    (*impl)->handles = std::move(handles);
    done(std::shared_ptr<Context>(new Context(std::move(*impl))));
  };
  std::lock_guard lock(device_lifetime_mutex());
  api::create_device_async(options.backend, options.kernel_checks, sink, std::move(finish));
}

std::shared_ptr<Context> Context::create(ContextOptions options) {
#ifdef __EMSCRIPTEN__
  (void)options;
  throw Error("Context::create blocks, which the browser forbids: use Context::create_async");
#else
  std::optional<Result<std::shared_ptr<Context>>> outcome;
  create_async(options,
               [&](Result<std::shared_ptr<Context>> result) { outcome = std::move(result); });
  if (!outcome) throw Error("WebGPU: device creation did not complete");
  return outcome->value();
#endif
}

const AdapterInfo& Context::adapter_info() const { return impl_->handles.info; }
const Limits& Context::limits() const { return impl_->handles.limits; }
Stats Context::stats() const { return impl_->stats; }
PromptAttention Context::prompt_attention() const { return impl_->prompt_attention; }

bool Context::subgroups_consecutive() {
  if (!impl_->subgroups_consecutive) {
    bool consecutive = false;
    if (has_32_lane_subgroups(limits())) {
      try {
        consecutive = probe_consecutive_subgroups(*this);
      } catch (const Error&) {
        // A device whose probe fails takes the barrier reductions.
      }
    }
    impl_->subgroups_consecutive = consecutive;
  }
  return *impl_->subgroups_consecutive;
}

Buffer Context::create_storage(size_t bytes) {
  impl_->check_usable();
  const size_t size = round_up(std::max<size_t>(bytes, 4), 4);
  if (size > impl_->handles.limits.max_buffer_size) {
    throw Error("a buffer of " + std::to_string(size) + " bytes exceeds the device's limit of " +
                std::to_string(impl_->handles.limits.max_buffer_size));
  }
  auto slot = std::make_shared<BufferSlot>();
  slot->handle = impl_->storage_pool->take(size);
  if (!slot->handle) slot->handle = impl_->create_buffer(size, kStorageUsage);
  slot->size = size;
  slot->pool = impl_->storage_pool;
  return Buffer(std::move(slot));
}

Buffer Context::upload(std::span<const std::byte> bytes, size_t min_size) {
  impl_->check_usable();
  // Never from the pool: a pooled buffer may still be read by recorded, unsubmitted commands, and
  // a queue write lands before all of them. A new buffer starts as zeros.
  const size_t size = round_up(std::max({bytes.size(), min_size, size_t{4}}), 4);
  auto slot = std::make_shared<BufferSlot>();
  slot->handle = impl_->create_buffer(size, kStorageUsage);
  slot->size = size;
  slot->pool = impl_->storage_pool;
  // No commands can refer to a buffer created just now, so its write needs no flush of what is
  // recorded (unlike write()): uploads inside a scope keep the scope one submit.
  impl_->queue_write(slot->handle, size, 0, bytes);
  return Buffer(std::move(slot));
}

void Context::write(const Buffer& buffer, size_t offset, std::span<const std::byte> bytes) {
  impl_->check_usable();
  impl_->refuse_in_capture("a queue write");
  if (!buffer.valid() || offset + bytes.size() > buffer.size() || offset % 4 != 0) {
    throw Error("write of " + std::to_string(bytes.size()) + " bytes at offset " +
                std::to_string(offset) + " does not fit a buffer of " +
                std::to_string(buffer.size()) + " bytes (offsets must be multiples of 4)");
  }
  if (bytes.empty()) return;
  // A queue write lands before the next submit's commands: where recorded commands use this
  // buffer, submit them first, so that they still see the old contents. A buffer fresh from the
  // pool that they used through an earlier slot, and that nothing but the caller holds (so no
  // prepared dispatch binds it), takes another device buffer instead; a write to any other buffer
  // leaves the recording open. So a council records every expert's step, each writing its token
  // ids into a pooled buffer, before one submit.
  if (impl_->encoder && impl_->recorded_buffers.contains(buffer.slot_->handle)) {
    if (buffer.slot_->recorded_in != impl_->recording && buffer.slot_.use_count() == 1) {
      impl_->take_unrecorded(*buffer.slot_);
    } else {
      impl_->submit();
    }
  }
  impl_->queue_write(buffer.slot_->handle, buffer.size(), offset, bytes);
}

void Context::Impl::queue_write(WGPUBuffer buffer, size_t buffer_size, size_t offset,
                                std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  if (bytes.size() % 4 == 0) {
    wgpuQueueWriteBuffer(handles.queue, buffer, offset, bytes.data(), bytes.size());
    return;
  }
  std::vector<std::byte> padded(round_up(bytes.size(), 4), std::byte{0});
  std::copy(bytes.begin(), bytes.end(), padded.begin());
  const size_t end = std::min(buffer_size, offset + padded.size());
  wgpuQueueWriteBuffer(handles.queue, buffer, offset, padded.data(), end - offset);
}

void Context::add_kernel(std::string_view name, std::string source) {
  const bool taken = impl_->added_kernels.contains(name) || find_embedded_kernel(name);
  if (taken) throw Error("a kernel named '" + std::string(name) + "' already exists");
  impl_->added_kernels.emplace(name, std::move(source));
}

void Context::replace_kernel(std::string_view name, std::string source) {
  if (impl_->pipelines.contains(name)) {
    throw Error("kernel '" + std::string(name) +
                "' is compiled already: replace it before its use");
  }
  impl_->added_kernels.insert_or_assign(std::string(name), std::move(source));
}

const std::vector<std::string>& Context::replaced_kernels() const {
  return impl_->replaced_kernels;
}

void Context::dispatch(std::string_view name, std::span<const uint32_t> params,
                       std::initializer_list<BufferRange> buffers, Workgroups workgroups) {
  dispatch(name, params, std::vector<BufferRange>(buffers), workgroups);
}

void Context::dispatch(std::string_view name, std::span<const uint32_t> params,
                       const std::vector<BufferRange>& buffers, Workgroups workgroups) {
  dispatch(prepare(name, params, buffers, workgroups));
}

PreparedDispatch Context::prepare(std::string_view name, std::span<const uint32_t> params,
                                  const std::vector<BufferRange>& buffers, Workgroups workgroups) {
  impl_->check_usable();
  PreparedDispatch prepared;
  prepared.state_ = impl_->bind(name, params, buffers, workgroups);
  return prepared;
}

void Context::dispatch(const PreparedDispatch& prepared) {
  if (!prepared.valid()) throw Error("dispatch of an empty PreparedDispatch");
  impl_->check_usable();
  if (impl_->captured) return impl_->captured->push_back(prepared);
  impl_->record(*prepared.state_);
}

std::vector<PreparedDispatch> Context::capture(const std::function<void()>& record) {
  impl_->check_usable();
  impl_->refuse_in_capture("a capture");
  std::vector<PreparedDispatch> dispatches;
  impl_->captured = &dispatches;
  try {
    record();
  } catch (...) {
    impl_->captured = nullptr;
    throw;
  }
  impl_->captured = nullptr;
  return dispatches;
}

std::shared_ptr<PreparedState> Context::Impl::bind(std::string_view name,
                                                   std::span<const uint32_t> params,
                                                   const std::vector<BufferRange>& buffers,
                                                   Workgroups workgroups) {
  const Pipeline& entry = pipeline(name);
  // Built only for an error message: a dispatch that passes its checks allocates no text.
  auto kernel = [&] { return "kernel '" + std::string(name) + "'"; };
  if (entry.bindings.has_params != !params.empty()) {
    throw Error(kernel() +
                (entry.bindings.has_params ? " needs parameters" : " takes no parameters"));
  }
  if (buffers.size() != entry.bindings.storage_buffers) {
    throw Error(kernel() + " takes " + std::to_string(entry.bindings.storage_buffers) +
                " storage buffer(s), " + std::to_string(buffers.size()) + " given");
  }
  const Limits& limits = handles.limits;
  const uint32_t max_groups = limits.max_workgroups_per_dimension;
  if (workgroups.x > max_groups || workgroups.y > max_groups || workgroups.z > max_groups) {
    throw Error(kernel() + ": workgroup count exceeds the device's limit of " +
                std::to_string(max_groups) + " per dimension");
  }
  auto state = std::make_shared<PreparedState>();
  state->pipeline = &entry;
  state->workgroups = workgroups;
  state->buffers.reserve(buffers.size());
  std::vector<WGPUBindGroupEntry> entries;
  entries.reserve(buffers.size() + 1);
  if (!params.empty()) {
    WGPUBindGroupEntry uniform{};
    uniform.binding = 0;
    const Uniform& block = uniform_for(params);
    uniform.buffer = block.buffer;
    uniform.size = block.size;
    entries.push_back(uniform);
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const BufferRange& range = buffers[i];
    auto which = [&] { return kernel() + ", binding " + std::to_string(i + 1); };
    if (!range.buffer || !range.buffer->valid()) throw Error(which() + ": no buffer");
    const size_t total = range.buffer->size();
    const size_t size = range_bytes(range);
    if (range.offset >= total || range.offset + size > total) {
      throw Error(which() + ": range [" + std::to_string(range.offset) + ", " +
                  std::to_string(range.offset + size) + ") is outside the buffer of " +
                  std::to_string(total) + " bytes");
    }
    if (range.offset % limits.min_storage_buffer_offset_alignment != 0 || size % 4 != 0) {
      throw Error(which() + ": offset " + std::to_string(range.offset) + " is not a multiple of " +
                  std::to_string(limits.min_storage_buffer_offset_alignment) +
                  " or size is not a multiple of 4");
    }
    if (size > limits.max_storage_buffer_binding_size) {
      throw Error(which() + ": " + std::to_string(size) +
                  " bytes exceed the device's binding limit of " +
                  std::to_string(limits.max_storage_buffer_binding_size));
    }
    WGPUBindGroupEntry storage{};
    storage.binding = static_cast<uint32_t>(i + 1);
    storage.buffer = range.buffer->slot_->handle;
    storage.offset = range.offset;
    storage.size = size;
    entries.push_back(storage);
    state->buffers.push_back(*range.buffer);
  }
  state->group = bind_group_for(entry.layout, entries);
  return state;
}

void Context::Impl::record(const PreparedState& prepared) {
  if (timing_kernels) return record_timed(prepared);
  WGPUComputePassEncoder encoder_pass = open_pass();
  wgpuComputePassEncoderSetPipeline(encoder_pass, prepared.pipeline->pipeline);
  wgpuComputePassEncoderSetBindGroup(encoder_pass, 0, prepared.group, 0, nullptr);
  api::dispatch_workgroups(encoder_pass, prepared.workgroups.x, prepared.workgroups.y,
                           prepared.workgroups.z);
  recorded_kernels.push_back(prepared.pipeline);
  note_recorded(prepared);
  ++stats.dispatches;
  if (scope_depth == 0 || (scope_submits == Submits::in_parts && dispatches_per_submit > 0 &&
                           recorded_kernels.size() >= dispatches_per_submit)) {
    submit();
  }
}

void Context::Impl::note_recorded(const PreparedState& prepared) {
  for (const Buffer& buffer : prepared.buffers) note_recorded(*buffer.slot_);
}

void Context::Impl::note_recorded(BufferSlot& slot) {
  recorded_buffers.insert(slot.handle);
  slot.recorded_in = recording;
}

// Its contents are a pooled buffer's, undefined until written, so another buffer serves as well.
void Context::Impl::take_unrecorded(BufferSlot& slot) {
  WGPUBuffer other = storage_pool->take_if(
      slot.size, [this](WGPUBuffer buffer) { return !recorded_buffers.contains(buffer); });
  if (!other) other = create_buffer(slot.size, kStorageUsage);
  storage_pool->give_back(std::exchange(slot.handle, other), slot.size);
}

void Context::copy(const BufferRange& from, const BufferRange& to) {
  impl_->check_usable();
  impl_->refuse_in_capture("a copy");
  if (!from.buffer || !from.buffer->valid() || !to.buffer || !to.buffer->valid()) {
    throw Error("copy: no buffer");
  }
  const size_t size = range_bytes(from);
  if ((from.offset | to.offset | size) % 4 != 0) {
    throw Error("copy: offsets and size must be multiples of 4 bytes");
  }
  if (from.offset + size > from.buffer->size() || to.offset + size > to.buffer->size() ||
      (to.size != 0 && to.size != size)) {
    throw Error("copy: " + std::to_string(size) + " bytes from offset " +
                std::to_string(from.offset) + " to offset " + std::to_string(to.offset) +
                " do not fit the buffers of " + std::to_string(from.buffer->size()) + " and " +
                std::to_string(to.buffer->size()) + " bytes");
  }
  if (size == 0) return;
  impl_->close_pass();  // a copy is recorded between passes, in order with the dispatches
  impl_->note_recorded(*from.buffer->slot_);
  impl_->note_recorded(*to.buffer->slot_);
  wgpuCommandEncoderCopyBufferToBuffer(impl_->open_encoder(), from.buffer->slot_->handle,
                                       from.offset, to.buffer->slot_->handle, to.offset, size);
  if (impl_->scope_depth == 0) impl_->submit();
}

PreparedState::~PreparedState() {
  if (group) wgpuBindGroupRelease(group);
}

void Context::readback_many_async(
    const std::vector<BufferRange>& regions,
    std::function<void(Result<std::vector<std::vector<std::byte>>>)> done) {
  impl_->check_usable();
  impl_->readback_many_async(regions, api::Delivery::in_poll, std::move(done));
}

void Context::Impl::readback_many_async(
    const std::vector<BufferRange>& regions, api::Delivery delivery,
    std::function<void(Result<std::vector<std::vector<std::byte>>>)> done) {
  refuse_in_capture("a readback");
  // Copies need 4-byte alignment: copy the aligned span around each region and trim on the host.
  struct Slice {
    size_t staging_offset, skip, size;
  };
  std::vector<Slice> slices;
  size_t total = 0;
  for (const BufferRange& range : regions) {
    if (!range.buffer || !range.buffer->valid()) throw Error("readback: no buffer");
    const size_t buffer_size = range.buffer->size();
    const size_t size = range_bytes(range);
    if (range.offset + size > buffer_size) {
      throw Error("readback: range [" + std::to_string(range.offset) + ", " +
                  std::to_string(range.offset + size) + ") is outside the buffer of " +
                  std::to_string(buffer_size) + " bytes");
    }
    const size_t start = range.offset / 4 * 4;
    const size_t end = round_up(range.offset + size, 4);
    slices.push_back({total, range.offset - start, size});
    total += end - start;
  }
  const size_t staging_size = next_power_of_two(std::max<size_t>(total, 4));
  WGPUBuffer staging = staging_pool->take(staging_size);
  if (!staging) {
    staging = create_buffer(staging_size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
  }
  // Any recorded dispatches go first, in the same submit, so the copies see their writes.
  close_pass();
  WGPUCommandEncoder encoder = open_encoder();
  for (size_t i = 0; i < regions.size(); ++i) {
    const size_t start = regions[i].offset / 4 * 4;
    const size_t length = round_up(slices[i].skip + slices[i].size, 4);
    if (length == 0) continue;
    wgpuCommandEncoderCopyBufferToBuffer(encoder, regions[i].buffer->slot_->handle, start, staging,
                                         slices[i].staging_offset, length);
  }
  Impl* impl = this;
  auto on_mapped = [impl, staging, staging_size, total, slices = std::move(slices),
                    done = std::move(done)](std::string error) {
    if (!error.empty()) {
      impl->staging_pool->give_back(staging, staging_size);
      return done(Error(error));
    }
    const auto* mapped = static_cast<const std::byte*>(
        wgpuBufferGetConstMappedRange(staging, 0, round_up(std::max<size_t>(total, 4), 4)));
    std::vector<std::vector<std::byte>> out;
    out.reserve(slices.size());
    for (const Slice& slice : slices) {
      const std::byte* begin = mapped + slice.staging_offset + slice.skip;
      out.emplace_back(begin, begin + slice.size);
    }
    wgpuBufferUnmap(staging);
    impl->staging_pool->give_back(staging, staging_size);
    done(std::move(out));
  };
  auto map = [impl, staging, total, delivery, on_mapped = std::move(on_mapped)]() mutable {
    ++impl->stats.fence_waits;
    impl->last_readback =
        api::map_read_async(impl->handles, staging, round_up(std::max<size_t>(total, 4), 4),
                            delivery, std::move(on_mapped));
  };
  // Inside a scope an asynchronous readback waits for the scope's submit, so that the steps of a
  // decode recorded together, each with its readback, go to the GPU as one command buffer.
  if (scope_depth > 0 && delivery == api::Delivery::in_poll) {
    pending_maps.push_back(std::move(map));
    return;
  }
  try {
    submit();
  } catch (...) {
    staging_pool->give_back(staging, staging_size);
    throw;
  }
  map();
}

std::vector<std::vector<std::byte>> Context::readback_many(
    const std::vector<BufferRange>& regions) {
#ifdef __EMSCRIPTEN__
  (void)regions;
  throw Error("synchronous readback blocks, which the browser forbids: use readback_many_async");
#else
  impl_->check_usable();
  return impl_->readback_many(regions);
#endif
}

std::vector<std::vector<std::byte>> Context::Impl::readback_many(
    const std::vector<BufferRange>& regions) {
  std::optional<Result<std::vector<std::vector<std::byte>>>> outcome;
  readback_many_async(regions, api::Delivery::in_wait,
                      [&](auto result) { outcome = std::move(result); });
  api::wait(handles, last_readback);
  if (!outcome) throw Error("readback: the mapping completed without a result");
  return outcome->value();
}

void Context::readback_async(const Buffer& buffer, size_t offset, size_t size,
                             std::function<void(Result<std::vector<std::byte>>)> done) {
  readback_many_async({BufferRange(buffer, offset, size)},
                      [done = std::move(done)](Result<std::vector<std::vector<std::byte>>> result) {
                        if (!result.ok()) return done(result.error());
                        done(std::move(result.value().front()));
                      });
}

std::vector<std::byte> Context::readback(const Buffer& buffer, size_t offset, size_t size) {
  return std::move(readback_many({BufferRange(buffer, offset, size)}).front());
}

void Context::finish() {
#ifdef __EMSCRIPTEN__
  throw Error("Context::finish blocks, which the browser forbids");
#else
  impl_->check_usable();
  impl_->submit_and_wait();
#endif
}

void Context::Impl::submit_and_wait() {
#ifdef __EMSCRIPTEN__
  throw Error("waiting for the GPU blocks, which the browser forbids");
#else
  refuse_in_capture("waiting for the GPU");
  submit();
  std::string error;
  api::wait(handles, api::queue_done_async(handles, [&](std::string e) { error = e; }));
  if (!error.empty()) throw Error(error);
  raise_errors([] { return std::string("while finishing"); });
#endif
}

void Context::poll() { api::process_events(impl_->handles); }

void Context::set_dispatches_per_submit(size_t n) { impl_->dispatches_per_submit = n; }
size_t Context::dispatches_per_submit() const { return impl_->dispatches_per_submit; }

}  // namespace wgpt::gpu
