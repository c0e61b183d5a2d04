#pragma once
// The hashes of wgpt's counter-based random streams (ops::dropout's masks, the sampler's draws): a
// key folded from 64-bit values on the host, then 32-bit mixing that a WGSL kernel repeats word
// for word (src/kernels/lib/counter_hash.wgsl; WGSL has no 64-bit integers).

#include <cstdint>

namespace wgpt::ops {

// SplitMix64's finalizer: a bijection of 64-bit words with full avalanche.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Chris Wellons' lowbias32, a bijection of 32-bit words with good avalanche.
inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// Counter i of the stream keyed by `key`: mix32(mix32(i ^ key_lo) ^ key_hi).
inline uint32_t counter_word(uint64_t key, uint32_t i) {
  return mix32(mix32(i ^ static_cast<uint32_t>(key)) ^ static_cast<uint32_t>(key >> 32));
}

}  // namespace wgpt::ops
