#pragma once
// Device buffers kept for reuse. Creating a buffer costs far more than a dispatch, so storage
// buffers are pooled by exact size and readback staging buffers by power-of-two size.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "gpu/webgpu_api.h"

namespace wgpt::gpu {

class BufferPool {
 public:
  ~BufferPool();
  // A free buffer of exactly `size` bytes, or nullptr: the one of lowest address, so that a
  // sequence of takes and returns that repeats (a forward pass run again) gets the same buffers in
  // the same places whatever order the previous run returned them in, and its cached bind groups
  // (Context::Impl::bind) apply again.
  WGPUBuffer take(size_t size);
  // The free buffer of lowest address that `usable` accepts, or nullptr.
  WGPUBuffer take_if(size_t size, const std::function<bool(WGPUBuffer)>& usable);
  void give_back(WGPUBuffer buffer, size_t size);

 private:
  std::mutex mutex_;
  std::unordered_map<size_t, std::set<WGPUBuffer>> free_;
};

// What a gpu::Buffer shares: the device buffer, returned to its pool when the last copy goes.
struct BufferSlot {
  WGPUBuffer handle = nullptr;
  size_t size = 0;
  std::weak_ptr<BufferPool> pool;
  // The recording (Context::Impl::recording) whose commands last bound or copied it through this
  // slot; 0 for none.
  uint64_t recorded_in = 0;
  ~BufferSlot();
};

}  // namespace wgpt::gpu
