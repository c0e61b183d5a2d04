// Counter-based random words, as include/wgpt/counter_hash.h computes them on the host: word i of the
// stream keyed by (key_lo, key_hi) is mix32(mix32(i ^ key_lo) ^ key_hi), mix32 = Chris Wellons'
// lowbias32 (u32 arithmetic wraps, as the CPU's uint32_t).

fn mix32(word: u32) -> u32 {
  var h = word;
  h ^= h >> 16u;
  h *= 0x7feb352du;
  h ^= h >> 15u;
  h *= 0x846ca68bu;
  h ^= h >> 16u;
  return h;
}

fn counter_word(key_lo: u32, key_hi: u32, i: u32) -> u32 {
  return mix32(mix32(i ^ key_lo) ^ key_hi);
}
