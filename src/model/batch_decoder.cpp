#include "wgpt/batch_decoder.h"

#include <algorithm>
#include <string>

#include "model/fused_block.h"
#include "wgpt/ops.h"

namespace wgpt::model {
namespace {

constexpr size_t kMaxHeadDim = 256;  // decode_attention_rows' kernel

size_t slot_bytes(const Config& c) { return c.n_head * c.n_ctx * c.head_dim() * sizeof(float); }

void check_rows(const Config& c, const std::vector<KvCache>& caches, size_t max_rows,
                std::span<const uint32_t> slots, std::span<const uint32_t> tokens) {
  if (slots.empty() || slots.size() != tokens.size() || slots.size() > max_rows) {
    throw Error("a batched step needs one slot per token and at most " + std::to_string(max_rows) +
                " rows, got " + std::to_string(slots.size()) + " slots for " +
                std::to_string(tokens.size()) + " tokens");
  }
  std::vector<size_t> rows_of(caches.size(), 0);
  for (size_t r = 0; r < slots.size(); ++r) {
    if (slots[r] >= caches.size()) {
      throw Error("a batched step's row " + std::to_string(r) + " names slot " +
                  std::to_string(slots[r]) + ", outside the " + std::to_string(caches.size()) +
                  " slots");
    }
    if (caches[slots[r]].length() + ++rows_of[slots[r]] > c.n_ctx) {
      throw Error("the model's context of " + std::to_string(c.n_ctx) +
                  " tokens has no room for row " + std::to_string(r) + " in slot " +
                  std::to_string(slots[r]));
    }
    if (tokens[r] >= c.vocab_size) {
      throw Error("token id " + std::to_string(tokens[r]) + " is outside the vocabulary of " +
                  std::to_string(c.vocab_size));
    }
  }
}

}  // namespace

bool BatchDecoder::supported(const Model& model, size_t slots) {
  if (!model.on_gpu() || slots == 0) return false;
  const Config& c = model.config();
  const gpu::Limits& limits = model.context()->limits();
  const size_t alignment = std::max<size_t>(limits.min_storage_buffer_offset_alignment, 4);
  const double pool_bytes = static_cast<double>(slot_bytes(c)) * static_cast<double>(slots);
  return c.head_dim() <= kMaxHeadDim && slot_bytes(c) % alignment == 0 &&
         pool_bytes <= static_cast<double>(limits.max_storage_buffer_binding_size) &&
         pool_bytes <= static_cast<double>(limits.max_buffer_size);
}

BatchDecoder::BatchDecoder(const Model& model, size_t slots) : model_(model) {
  if (!supported(model, slots)) {
    throw Error("this model cannot use the batched GPU decode path with " + std::to_string(slots) +
                " slots");
  }
  const Config& c = model.config();
  const Shape pool_shape = {slots, c.n_head, c.n_ctx, c.head_dim()};
  const Shape cache_shape = {c.n_head, c.n_ctx, c.head_dim()};
  const size_t per_slot = numel(cache_shape);
  caches_.resize(slots);
  for (size_t layer = 0; layer < c.n_layer; ++layer) {
    key_pools_.push_back(Tensor::empty_gpu(model.context(), pool_shape));
    value_pools_.push_back(Tensor::empty_gpu(model.context(), pool_shape));
    for (size_t s = 0; s < slots; ++s) {
      caches_[s].keys.push_back(key_pools_.back().view(s * per_slot, cache_shape));
      caches_[s].values.push_back(value_pools_.back().view(s * per_slot, cache_shape));
    }
  }
  zeros_ =
      Tensor::from_u32(std::vector<uint32_t>(max_rows(), 0), {max_rows()}).to_gpu(model.context());
}

BatchDecoder::~BatchDecoder() = default;

struct BatchDecoder::Plan {
  Tensor ids, slots, positions;  // u32 [rows], rewritten every step
  std::vector<gpu::PreparedDispatch> dispatches;
  BatchStep outputs;  // [rows, ...]
};

std::vector<uint32_t> BatchDecoder::positions_of(std::span<const uint32_t> slots,
                                                 std::span<const uint32_t> tokens) const {
  check_rows(model_.config(), caches_, max_rows(), slots, tokens);
  // A slot's rows take its next positions in order.
  std::vector<uint32_t> next(caches_.size());
  for (size_t s = 0; s < caches_.size(); ++s) next[s] = static_cast<uint32_t>(caches_[s].length());
  std::vector<uint32_t> positions(slots.size());
  for (size_t r = 0; r < slots.size(); ++r) positions[r] = next[slots[r]]++;
  return positions;
}

BatchStep BatchDecoder::record_step(const Tensor& ids, const Tensor& row_slots,
                                    const Tensor& row_positions) {
  const Config& c = model_.config();
  const Weights& w = model_.weights();
  const float scale = c.attention_scale();
  Tensor x = ops::embedding(ids, w.token_embedding, w.position_embedding, row_positions);
  for (size_t layer = 0; layer < c.n_layer; ++layer) {
    Tensor& keys = key_pools_[layer];
    Tensor& values = value_pools_[layer];
    x = fused_block(w.layers[layer], c, model_.precision(), true, x, [&](const Tensor& qkv) {
      ops::kv_store_rows(qkv, keys, values, row_slots, row_positions);
      return ops::decode_attention_rows(qkv, keys, values, row_slots, row_positions, scale);
    });
  }
  // The tied LM head, as Model::head, its rows independent of each other too.
  Tensor logits = ops::matmul_transposed_chunks(
      ops::layernorm(x, w.final_gamma, w.final_beta, c.layer_norm_epsilon), w.token_embedding, 1.0f,
      true);
  Tensor best = ops::score_rows(logits, zeros_.rows(0, ids.shape()[0]), 1).top;
  return {std::move(logits), std::move(best)};
}

BatchStep BatchDecoder::step_general(std::span<const uint32_t> slots,
                                     std::span<const uint32_t> tokens) {
  const std::vector<uint32_t> positions = positions_of(slots, tokens);
  const std::shared_ptr<gpu::Context>& context = model_.context();
  gpu::Scope scope(*context);  // the step records into one submit
  // Into pooled buffers, as Model::forward's ids: a step of the same size binds the same buffers.
  auto upload = [&](std::span<const uint32_t> values) {
    Tensor tensor = Tensor::empty_gpu(context, {values.size()}, DType::u32);
    context->write(tensor.buffer(), tensor.byte_offset(), std::as_bytes(values));
    return tensor;
  };
  BatchStep outputs = record_step(upload(tokens), upload(slots), upload(positions));
  for (uint32_t slot : slots) ++caches_[slot].length_;
  return outputs;
}

BatchDecoder::Plan& BatchDecoder::plan_for(size_t rows) {
  if (auto found = plans_.find(rows); found != plans_.end()) return *found->second;
  const std::shared_ptr<gpu::Context>& context = model_.context();
  auto plan = std::make_unique<Plan>();
  for (Tensor* input : {&plan->ids, &plan->slots, &plan->positions}) {
    *input = Tensor::empty_gpu(context, {rows}, DType::u32);
  }
  plan->dispatches = context->capture(
      [&] { plan->outputs = record_step(plan->ids, plan->slots, plan->positions); });
  return *plans_.emplace(rows, std::move(plan)).first->second;
}

BatchStep BatchDecoder::step(std::span<const uint32_t> slots, std::span<const uint32_t> tokens) {
  const std::vector<uint32_t> positions = positions_of(slots, tokens);
  const size_t rows = slots.size();
  // Steps of continuing sequences alone (at most a row per slot) keep to buckets of at most the
  // slots; steps with prompts' rows grow up to max_rows().
  size_t bucket = 1;
  while (bucket < rows) bucket *= 2;
  bucket = std::min(bucket, rows <= caches_.size() ? caches_.size() : max_rows());
  Plan& plan = plan_for(bucket);
  const std::shared_ptr<gpu::Context>& context = model_.context();
  gpu::Scope scope(*context);  // the step records into one submit
  // The padding rows repeat row 0 (its position too: they store the key and value it stores).
  auto write = [&](const Tensor& tensor, std::span<const uint32_t> values) {
    std::vector<uint32_t> padded(values.begin(), values.end());
    padded.resize(bucket, values[0]);
    context->write(tensor.buffer(), tensor.byte_offset(), std::as_bytes(std::span(padded)));
  };
  write(plan.ids, tokens);
  write(plan.slots, slots);
  write(plan.positions, positions);
  for (const gpu::PreparedDispatch& dispatch : plan.dispatches) context->dispatch(dispatch);
  for (uint32_t slot : slots) ++caches_[slot].length_;
  return {plan.outputs.logits.rows(0, rows), plan.outputs.best.rows(0, rows)};
}

}  // namespace wgpt::model
