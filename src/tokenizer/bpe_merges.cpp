#include "tokenizer/bpe_merges.h"

#include <queue>

namespace wgpt::tokenizer {
namespace {

// A symbol of the word being merged, in a doubly linked list over the original positions.
struct Symbol {
  uint32_t id;
  int prev;
  int next;  // -1 at the ends
  bool alive;
};

// A pair that may merge: ordered by rank, then by position (leftmost first).
struct Candidate {
  uint32_t rank;
  int left;
  uint32_t left_id;
  uint32_t right_id;
  bool operator>(const Candidate& other) const {
    return rank != other.rank ? rank > other.rank : left > other.left;
  }
};

}  // namespace

void MergeTable::add(uint32_t left, uint32_t right, uint32_t result) {
  merges_.try_emplace(key(left, right), Merge{static_cast<uint32_t>(merges_.size()), result});
}

std::optional<MergeTable::Merge> MergeTable::find(uint32_t left, uint32_t right) const {
  const auto it = merges_.find(key(left, right));
  if (it == merges_.end()) return std::nullopt;
  return it->second;
}

std::vector<uint32_t> MergeTable::apply(std::vector<uint32_t> ids) const {
  if (ids.size() < 2) return ids;
  std::vector<Symbol> symbols(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    symbols[i] = {ids[i], static_cast<int>(i) - 1,
                  i + 1 < ids.size() ? static_cast<int>(i) + 1 : -1, true};
  }
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  const auto consider = [&](int left) {
    const int right = symbols[left].next;
    if (right < 0) return;
    if (const auto merge = find(symbols[left].id, symbols[right].id)) {
      queue.push({merge->rank, left, symbols[left].id, symbols[right].id});
    }
  };
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) consider(i);

  while (!queue.empty()) {
    const Candidate candidate = queue.top();
    queue.pop();
    Symbol& left = symbols[candidate.left];
    // Skip candidates made stale by an earlier merge of either symbol.
    if (!left.alive || left.next < 0 || left.id != candidate.left_id ||
        symbols[left.next].id != candidate.right_id) {
      continue;
    }
    Symbol& right = symbols[left.next];
    left.id = find(candidate.left_id, candidate.right_id)->result;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = candidate.left;
    if (left.prev >= 0) consider(left.prev);
    consider(candidate.left);
  }

  std::vector<uint32_t> merged;
  for (int i = 0; i >= 0; i = symbols[i].next) merged.push_back(symbols[i].id);
  return merged;
}

}  // namespace wgpt::tokenizer
