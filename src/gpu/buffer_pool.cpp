#include "gpu/buffer_pool.h"

namespace wgpt::gpu {

BufferPool::~BufferPool() {
  for (auto& [size, buffers] : free_) {
    for (WGPUBuffer buffer : buffers) wgpuBufferRelease(buffer);
  }
}

WGPUBuffer BufferPool::take(size_t size) {
  return take_if(size, [](WGPUBuffer) { return true; });
}

WGPUBuffer BufferPool::take_if(size_t size, const std::function<bool(WGPUBuffer)>& usable) {
  std::lock_guard lock(mutex_);
  auto found = free_.find(size);
  if (found == free_.end()) return nullptr;
  for (auto buffer = found->second.begin(); buffer != found->second.end(); ++buffer) {
    if (!usable(*buffer)) continue;
    WGPUBuffer taken = *buffer;
    found->second.erase(buffer);
    return taken;
  }
  return nullptr;
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
