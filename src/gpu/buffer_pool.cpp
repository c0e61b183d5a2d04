#include "gpu/buffer_pool.h"

namespace wgpt::gpu {

BufferPool::~BufferPool() {
  for (auto& [size, buffers] : free_) {
    for (WGPUBuffer buffer : buffers) wgpuBufferRelease(buffer);
  }
}

WGPUBuffer BufferPool::take(size_t size) {
  std::lock_guard lock(mutex_);
  auto found = free_.find(size);
  if (found == free_.end() || found->second.empty()) return nullptr;
  WGPUBuffer buffer = *found->second.begin();
  found->second.erase(found->second.begin());
  return buffer;
}

void BufferPool::give_back(WGPUBuffer buffer, size_t size) {
  std::lock_guard lock(mutex_);
  free_[size].insert(buffer);
}

BufferSlot::~BufferSlot() {
  if (auto owner = pool.lock()) {
    owner->give_back(handle, size);
  } else {
    wgpuBufferRelease(handle);
  }
}

}  // namespace wgpt::gpu
