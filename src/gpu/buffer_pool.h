#pragma once
// Device buffers kept for reuse. Creating a buffer costs far more than a dispatch, so storage
// buffers are pooled by exact size and readback staging buffers by power-of-two size.

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "gpu/webgpu_api.h"

namespace wgpt::gpu {

class BufferPool {
 public:
  ~BufferPool();
  // A free buffer of exactly `size` bytes, or nullptr.
  WGPUBuffer take(size_t size);
  void give_back(WGPUBuffer buffer, size_t size);

 private:
  std::mutex mutex_;
  std::unordered_map<size_t, std::vector<WGPUBuffer>> free_;
};

// What a gpu::Buffer shares: the device buffer, returned to its pool when the last copy goes.
struct BufferSlot {
  WGPUBuffer handle = nullptr;
  size_t size = 0;
  std::weak_ptr<BufferPool> pool;
  ~BufferSlot();
};

}  // namespace wgpt::gpu
