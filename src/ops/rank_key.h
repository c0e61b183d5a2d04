#pragma once
// The order-preserving u32 of a float, by which sampling and scoring rank logits on the host as
// their kernels do (src/kernels/lib/sample_common.wgsl): a larger float has a larger key, −0 below
// +0, so sorting keys sorts values and ties between equal values go to the lower id.

#include <cstdint>
#include <cstring>

namespace wgpt::ops::detail {

inline uint32_t rank_key(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

}  // namespace wgpt::ops::detail
