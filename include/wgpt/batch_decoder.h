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
//
// Plans: validating and binding the step's general dispatches (8 to 12 per block) costs the host
// milliseconds at any B, so a step replays a plan instead — the same pass captured once
// (gpu::Context::capture) over buffers of its own: the rows' ids, slots and positions, rewritten
// by one queue write each per step, and every intermediate. A plan serves a bucket of row counts:
// B rows run in the next power of two (at most the slots), the padding rows repeating row 0 — its
// token, slot and position — so they write the bits row 0 writes (rows are invariant) and their
// outputs go unread. So at most log2(max_rows()) + 2 plans ever exist, and a row's numbers are the
// general step's, bit for bit.

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "wgpt/model.h"

namespace wgpt::model {

// What a step leaves on the GPU for its rows (nothing is read back): the next position's logits
// [rows, vocab] and each row's greedy token, best u32 [rows, 2] = (id, logit bits) of the row's
// first maximum (ops::score_rows' top 1).
struct BatchStep {
  Tensor logits;
  Tensor best;
};

class BatchDecoder {
 public:
  // Whether `model` can take this path with `slots` caches: on the GPU, heads of at most 256
  // values, and pools within the device's buffer and binding limits, each slot's block at an
  // offset the device can bind.
  static bool supported(const Model& model, size_t slots);

  // Allocates the pools (uninitialised: only rows [0, length) of a cache are ever read). `model`
  // must outlive the decoder. Throws unless supported.
  BatchDecoder(const Model& model, size_t slots);
  ~BatchDecoder();
  BatchDecoder(const BatchDecoder&) = delete;
  BatchDecoder& operator=(const BatchDecoder&) = delete;

  size_t slots() const { return caches_.size(); }
  // The most rows one step takes: every slot's next token, or prompts' rows up to a fixed bound
  // (kPromptRows) that keeps a plan's intermediates (its logits are [rows, vocab]) moderate.
  static constexpr size_t kPromptRows = 256;
  size_t max_rows() const { return std::max(slots(), kPromptRows); }
  // Slot `slot`'s cache: empty it (clear()) for a new sequence, prefill it with Model::forward
  // or with rows of a step.
  KvCache& cache(size_t slot) { return caches_.at(slot); }

  // Records one step for rows r = 0 .. tokens.size() − 1 (at most max_rows()): tokens[r] runs
  // in slot slots[r] at that slot's next position — cache(slots[r]).length() plus the rows of the
  // same slot before r — whose key and value the step appends (the cache's length advances by
  // the slot's rows). A row attends to its slot's keys up to its own position, those of the
  // step's earlier rows included, so a slot's rows are its tokens run one after another. Replays
  // the plan of the rows' bucket, capturing it first if it is new. The tensors returned are views
  // of the plan's own outputs, which its next step overwrites: read them before stepping again.
  // Throws before recording anything on row-count, slot, context or vocabulary violations.
  BatchStep step(std::span<const uint32_t> slots, std::span<const uint32_t> tokens);
  // The same step through the general ops, each validated and bound afresh (the pass every plan
  // captures): the same bits as step(), in fresh tensors. For tests and `wgpt bench`.
  BatchStep step_general(std::span<const uint32_t> slots, std::span<const uint32_t> tokens);
  // Plans captured so far.
  size_t plans() const { return plans_.size(); }

 private:
  struct Plan;
  // The step's pass over rows whose ids, slots and positions are in these u32 tensors.
  BatchStep record_step(const Tensor& ids, const Tensor& row_slots, const Tensor& row_positions);
  // Checks the rows and returns their positions.
  std::vector<uint32_t> positions_of(std::span<const uint32_t> slots,
                                     std::span<const uint32_t> tokens) const;
  Plan& plan_for(size_t rows);
  const Model& model_;
  std::vector<Tensor> key_pools_, value_pools_;  // per layer
  std::vector<KvCache> caches_;
  Tensor zeros_;  // u32 [max_rows()]: score_rows' targets (its surprisal goes unused)
  std::map<size_t, std::unique_ptr<Plan>> plans_;  // by the bucket's row count
};

}  // namespace wgpt::model
