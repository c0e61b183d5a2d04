// Context::time_kernels: where a pass's GPU time goes, by kernel. With timestamp queries every
// timed dispatch runs in a compute pass of its own whose start and end the GPU stamps (in ns);
// without them every dispatch is submitted and waited for alone and its wall time counted.
#include <algorithm>
#include <chrono>
#include <cstring>

#include "gpu/context_impl.h"

namespace wgpt::gpu {
namespace {

// Timed dispatches between two collections: a query set holds at most 4096 timestamps.
constexpr uint32_t kTimedDispatches = 2048;

}  // namespace

void Context::Impl::record_timed(const PreparedState& prepared) {
  recorded_kernels.push_back(prepared.pipeline);
  note_recorded(prepared);
  ++stats.dispatches;
  if (!handles.limits.timestamp_query) {
    WGPUComputePassEncoder encoder_pass = open_pass();
    wgpuComputePassEncoderSetPipeline(encoder_pass, prepared.pipeline->pipeline);
    wgpuComputePassEncoderSetBindGroup(encoder_pass, 0, prepared.group, 0, nullptr);
    api::dispatch_workgroups(encoder_pass, prepared.workgroups.x, prepared.workgroups.y,
                             prepared.workgroups.z);
    return time_dispatch(prepared.pipeline->name);
  }
  if (!timestamps.queries) {
    timestamps.queries = api::create_timestamp_queries(handles, 2 * kTimedDispatches);
    auto slot = std::make_shared<BufferSlot>();  // no pool: released when the context goes
    slot->size = 2 * kTimedDispatches * sizeof(uint64_t);
    slot->handle =
        create_buffer(slot->size, WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc);
    timestamps.resolved = Buffer(std::move(slot));
    raise_errors([] { return std::string("creating timestamp queries"); });
  }
  if (timestamps.kernels.size() == kTimedDispatches) collect_timestamps();
  close_pass();
  const auto first = static_cast<uint32_t>(2 * timestamps.kernels.size());
  WGPUComputePassEncoder timed = api::begin_timed_pass(open_encoder(), timestamps.queries, first);
  wgpuComputePassEncoderSetPipeline(timed, prepared.pipeline->pipeline);
  wgpuComputePassEncoderSetBindGroup(timed, 0, prepared.group, 0, nullptr);
  api::dispatch_workgroups(timed, prepared.workgroups.x, prepared.workgroups.y,
                           prepared.workgroups.z);
  wgpuComputePassEncoderEnd(timed);
  wgpuComputePassEncoderRelease(timed);
  timestamps.kernels.push_back(prepared.pipeline->name);
  if (scope_depth == 0) submit();
}

void Context::Impl::time_dispatch(const std::string& kernel) {
  const auto start = std::chrono::steady_clock::now();
  submit_and_wait();
  KernelTiming& row = kernel_timings[kernel];
  row.kernel = kernel;
  ++row.dispatches;
  row.microseconds +=
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

void Context::Impl::collect_timestamps() {
  const std::vector<std::string> kernels = std::exchange(timestamps.kernels, {});
  if (kernels.empty()) return;
  close_pass();
  const size_t bytes = 2 * kernels.size() * sizeof(uint64_t);
  wgpuCommandEncoderResolveQuerySet(open_encoder(), timestamps.queries, 0,
                                    static_cast<uint32_t>(2 * kernels.size()),
                                    timestamps.resolved.slot_->handle, 0);
  const std::vector<std::byte> stamps = readback_many({{timestamps.resolved, 0, bytes}}).front();
  for (size_t i = 0; i < kernels.size(); ++i) {
    uint64_t start, end;  // nanoseconds
    std::memcpy(&start, stamps.data() + 16 * i, sizeof start);
    std::memcpy(&end, stamps.data() + 16 * i + 8, sizeof end);
    KernelTiming& row = kernel_timings[kernels[i]];
    row.kernel = kernels[i];
    ++row.dispatches;
    row.microseconds += end > start ? static_cast<double>(end - start) / 1000.0 : 0.0;
  }
}

void Context::time_kernels(bool on) {
#ifdef __EMSCRIPTEN__
  if (on) throw Error("kernel timing blocks, which the browser forbids");
#endif
  impl_->check_usable();
  if (on) {
    impl_->submit();  // what was recorded before is not timed
    impl_->timestamps.kernels.clear();
    impl_->kernel_timings.clear();
  } else {
    impl_->collect_timestamps();
  }
  impl_->timing_kernels = on;
}

std::vector<KernelTiming> Context::kernel_timings() {
  impl_->collect_timestamps();
  std::vector<KernelTiming> rows;
  for (const auto& [name, row] : impl_->kernel_timings) rows.push_back(row);
  std::sort(rows.begin(), rows.end(), [](const KernelTiming& a, const KernelTiming& b) {
    return a.microseconds > b.microseconds;
  });
  return rows;
}

bool Context::kernel_timings_exact() const { return impl_->handles.limits.timestamp_query; }

}  // namespace wgpt::gpu
