#include "gpu/subgroup_layout.h"

#include <cstring>
#include <iterator>
#include <string_view>
#include <vector>

namespace wgpt::gpu {

bool has_32_lane_subgroups(const Limits& limits) {
  return limits.subgroups && limits.subgroup_min_size == 32 && limits.subgroup_max_size == 32;
}

bool probe_consecutive_subgroups(Context& context) {
  struct Probe {
    std::string_view kernel;
    uint32_t threads;
  };
  // Enough workgroups to reach every compute unit of a large GPU a few times.
  constexpr uint32_t kWorkgroups = 512;
  const Probe probes[] = {{"subgroup_layout_64", 64}, {"subgroup_layout_256", 256}};
  Buffer buffers[std::size(probes)];
  std::vector<BufferRange> verdicts;
  {
    Scope scope(context);
    for (size_t i = 0; i < std::size(probes); ++i) {
      buffers[i] = context.create_storage(size_t{kWorkgroups} * probes[i].threads * 4);
      context.dispatch(probes[i].kernel, {}, {BufferRange(buffers[i])}, {kWorkgroups});
      verdicts.emplace_back(buffers[i]);
    }
  }
  for (const std::vector<std::byte>& words : context.readback_many(verdicts)) {
    for (size_t at = 0; at < words.size(); at += 4) {
      uint32_t verdict;
      std::memcpy(&verdict, words.data() + at, 4);
      if (verdict != 1) return false;
    }
  }
  return true;
}

}  // namespace wgpt::gpu
