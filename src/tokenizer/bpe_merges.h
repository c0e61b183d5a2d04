#pragma once
// The BPE merge step on token ids: a word starts as one token per byte, and the adjacent pair with
// the lowest merge rank is merged (leftmost first among equal ranks) until no pair has a merge.
// This is HF tokenizers' order, and for merge lists learned by BPE training also GPT-2's.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace wgpt::tokenizer {

class MergeTable {
 public:
  struct Merge {
    uint32_t rank;
    uint32_t result;  // the id of the merged token
  };

  // Later duplicates of a pair keep the first (lowest) rank.
  void add(uint32_t left, uint32_t right, uint32_t result);
  std::optional<Merge> find(uint32_t left, uint32_t right) const;

  // Applies all merges to `symbols` (O(n log n) in the word length, so long runs stay cheap).
  std::vector<uint32_t> apply(std::vector<uint32_t> symbols) const;

 private:
  static uint64_t key(uint32_t left, uint32_t right) { return (uint64_t{left} << 32) | right; }
  std::unordered_map<uint64_t, Merge> merges_;
};

}  // namespace wgpt::tokenizer
