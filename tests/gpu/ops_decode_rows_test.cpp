// The ops of a batched decode step (one row per sequence, each at its own slot and position):
// the embedding with per-row positions, kv_store_rows and decode_attention_rows against their CPU
// references (the attention's is causal_attention on each row's own cache).
#include <gtest/gtest.h>

#include <cmath>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

TEST(GpuEmbeddingRows, PerRowPositionsMatchCpu) {
  auto context = test::gpu_context();
  const size_t vocab = 300, width = 67, positions = 50;
  Tensor wte = Tensor::from_floats(test::random_floats(vocab * width, 1), {vocab, width});
  Tensor wpe = Tensor::from_floats(test::random_floats(positions * width, 2), {positions, width});
  Tensor ids = Tensor::from_u32({5, 299, 0, 17, 42}, {5});
  Tensor at = Tensor::from_u32({49, 0, 7, 7, 20}, {5});
  Tensor cpu = ops::embedding(ids, {wte}, wpe, at);
  // Two chunks of the token table, as a table split for the binding limit.
  std::vector<Tensor> chunks = {wte.rows(0, 100).to_gpu(context),
                                wte.rows(100, 200).to_gpu(context)};
  Tensor gpu = ops::embedding(ids.to_gpu(context), chunks, wpe.to_gpu(context), at.to_gpu(context));
  EXPECT_TRUE(test::all_close(gpu, cpu, 0.0f, 0.0f));
  // Row 2 is the prompt embedding of token 0 at position 7.
  Tensor prompt = ops::embedding(Tensor::from_u32({0}, {1}), wte, wpe, 7);
  EXPECT_TRUE(test::all_close(cpu.rows(2, 1), prompt, 0.0f, 0.0f));
  // A position past the table: the CPU throws, the GPU writes a NaN row.
  Tensor past = Tensor::from_u32({50, 3, 3, 3, 3}, {5});
  EXPECT_THROW(ops::embedding(ids, {wte}, wpe, past), Error);
  std::vector<float> out =
      ops::embedding(ids.to_gpu(context), chunks, wpe.to_gpu(context), past.to_gpu(context))
          .to_floats();
  for (size_t c = 0; c < width; ++c) EXPECT_TRUE(std::isnan(out[c])) << c;
  EXPECT_FALSE(std::isnan(out[width]));
}

// Pools of 5 slots of odd geometry, rows in 4 of them at positions on both sides of the kernel's
// tile of 64 keys.
struct Pools {
  static constexpr size_t kSlots = 5, kHeads = 3, kCtx = 150;
  size_t head_dim;
  size_t c() const { return kHeads * head_dim; }
  Shape shape() const { return {kSlots, kHeads, kCtx, head_dim}; }
  Tensor keys, values;
  explicit Pools(size_t hd)
      : head_dim(hd),
        keys(Tensor::from_floats(test::random_floats(numel(shape()), 11), shape())),
        values(Tensor::from_floats(test::random_floats(numel(shape()), 12), shape())) {}
};

void expect_rows_match_cpu(size_t head_dim) {
  auto context = test::gpu_context();
  Pools cpu(head_dim);
  Tensor gpu_keys = cpu.keys.to_gpu(context), gpu_values = cpu.values.to_gpu(context);
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  const Tensor slots = Tensor::from_u32({3, 0, 4, 1}, {4});
  const Tensor positions = Tensor::from_u32({0, 149, 64, 63}, {4});
  const Tensor qkv =
      Tensor::from_floats(test::random_floats(4 * 3 * cpu.c(), 13), {4, 3 * cpu.c()});
  ops::kv_store_rows(qkv, cpu.keys, cpu.values, slots, positions);
  ops::kv_store_rows(qkv.to_gpu(context), gpu_keys, gpu_values, slots.to_gpu(context),
                     positions.to_gpu(context));
  EXPECT_TRUE(test::all_close(gpu_keys, cpu.keys, 0.0f, 0.0f));
  EXPECT_TRUE(test::all_close(gpu_values, cpu.values, 0.0f, 0.0f));
  const Tensor expected =
      ops::decode_attention_rows(qkv, cpu.keys, cpu.values, slots, positions, scale);
  const Tensor actual =
      ops::decode_attention_rows(qkv.to_gpu(context), gpu_keys, gpu_values, slots.to_gpu(context),
                                 positions.to_gpu(context), scale);
  EXPECT_TRUE(test::all_close(actual, expected, 1e-5f, 1e-4f)) << "head_dim " << head_dim;

  // A row's numbers do not depend on the batch: row 1 alone gives its row of the batch exactly.
  const Tensor alone =
      ops::decode_attention_rows(qkv.rows(1, 1).to_gpu(context), gpu_keys, gpu_values,
                                 Tensor::from_u32({0}, {1}).to_gpu(context),
                                 Tensor::from_u32({149}, {1}).to_gpu(context), scale);
  EXPECT_TRUE(test::all_close(alone, actual.rows(1, 1), 0.0f, 0.0f));
}

TEST(GpuDecodeAttentionRows, MatchesCpuForOddHeads) { expect_rows_match_cpu(12); }
TEST(GpuDecodeAttentionRows, MatchesCpuForWideHeads) { expect_rows_match_cpu(132); }

TEST(GpuDecodeAttentionRows, RowsOutsideThePoolsAreRefused) {
  auto context = test::gpu_context();
  Pools cpu(8);
  const Tensor qkv =
      Tensor::from_floats(test::random_floats(2 * 3 * cpu.c(), 14), {2, 3 * cpu.c()});
  const Tensor bad_slot = Tensor::from_u32({5, 0}, {2}), shared = Tensor::from_u32({1, 1}, {2});
  const Tensor positions = Tensor::from_u32({3, 4}, {2}), past = Tensor::from_u32({150, 4}, {2});
  EXPECT_THROW(ops::kv_store_rows(qkv, cpu.keys, cpu.values, bad_slot, positions), Error);
  EXPECT_THROW(ops::kv_store_rows(qkv, cpu.keys, cpu.values, shared, positions), Error);
  EXPECT_THROW(ops::decode_attention_rows(qkv, cpu.keys, cpu.values, Tensor::from_u32({0, 1}, {2}),
                                          past, 1.0f),
               Error);
  // On the GPU the bad row is NaN and the good one is not.
  const std::vector<float> out =
      ops::decode_attention_rows(qkv.to_gpu(context), cpu.keys.to_gpu(context),
                                 cpu.values.to_gpu(context), bad_slot.to_gpu(context),
                                 positions.to_gpu(context), 1.0f)
          .to_floats();
  for (size_t i = 0; i < cpu.c(); ++i) {
    EXPECT_TRUE(std::isnan(out[i])) << i;
    EXPECT_FALSE(std::isnan(out[cpu.c() + i])) << i;
  }
}

}  // namespace
}  // namespace wgpt
