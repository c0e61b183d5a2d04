#pragma once
// The batched decode step (`wgpt serve`'s engine): B sequences, each with its own KV cache and
// position, advance by one token in one pass over the weights. Everything in a block but the
// attention is row-wise, so the B rows go through the general ops that Model::forward runs for a
// prompt of B tokens (its fused blocks: the tiled GEMM reads each weight tile once for all rows);
// only three things are per row: the position embedding (ops::embedding with positions), the KV
// write (ops::kv_store_rows) and the attention (ops::decode_attention_rows, each row over its own
// cache to its own length). A row's numbers therefore do not depend on the other rows.
//
// The caches of all slots live in one pool per layer and kind, [slots, n_head, n_ctx, head_dim], so
// one dispatch reaches every row's cache; each slot's KvCache is a view of its block, so a prompt's
// prefill (Model::forward) and the probe (trace_step) run on a slot unchanged.

#include <cstdint>
#include <span>
#include <vector>

#include "wgpt/model.h"

namespace wgpt::model {

class BatchDecoder {
 public:
  // Whether `model` can take this path with `slots` caches: on the GPU, heads of at most 256
  // values, and pools within the device's buffer and binding limits, each slot's block at an
  // offset the device can bind.
  static bool supported(const Model& model, size_t slots);

  // Allocates the pools (uninitialised: only rows [0, length) of a cache are ever read). `model`
  // must outlive the decoder. Throws unless supported.
  BatchDecoder(const Model& model, size_t slots);
  BatchDecoder(const BatchDecoder&) = delete;
  BatchDecoder& operator=(const BatchDecoder&) = delete;

  size_t slots() const { return caches_.size(); }
  // Slot `slot`'s cache: empty it (clear()) for a new sequence, prefill it with Model::forward.
  KvCache& cache(size_t slot) { return caches_.at(slot); }

  // Records one step for rows r = 0 .. tokens.size() − 1: tokens[r] runs in slot slots[r] at
  // position cache(slots[r]).length(), whose key and value the step appends (the cache's length
  // advances). Returns the next position's logits of every row, [rows, vocab], on the GPU — nothing
  // is read back. Throws before recording anything on distinct-slot, context or vocabulary
  // violations.
  Tensor step(std::span<const uint32_t> slots, std::span<const uint32_t> tokens);

 private:
  const Model& model_;
  std::vector<Tensor> key_pools_, value_pools_;  // per layer
  std::vector<KvCache> caches_;
};

}  // namespace wgpt::model
