#include <gtest/gtest.h>

#include <cmath>

#include "emulated_subgroups.h"
#include "gpu/kernel_sources.h"
#include "gpu/validation_context.h"
#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

constexpr size_t kHeads = 3, kHeadDim = 16, kCtx = 40;

// The contexts a prompt's attention is checked in: the plain one, which takes flash_attention.wgsl
// (or its pairs form where the adapter has subgroups), and one whose "flash_attention" is
// flash_attention_pairs.wgsl, its subgroups emulated where the adapter has none (llvmpipe).
std::vector<std::pair<std::shared_ptr<gpu::Context>, const char*>> attention_contexts() {
  auto pairs = test::context_with_emulated_subgroups(test::EmulatedLayout::consecutive);
  pairs->replace_kernel(
      "flash_attention",
      *test::with_emulated_subgroups("flash_attention_pairs", test::EmulatedLayout::consecutive));
  return {{test::gpu_context(), "plain context"}, {pairs, "the pairs form"}};
}

TEST(GpuHeads, SplitAndMergeMatchCpu) {
  auto context = test::gpu_context();
  for (size_t t : {1, 7, 257}) {
    size_t cols = kHeads * kHeadDim;
    Tensor qkv = Tensor::from_floats(test::random_floats(t * 3 * cols, 1), {t, 3 * cols});
    ops::Heads cpu = ops::split_heads(qkv, kHeads);
    ops::Heads gpu = ops::split_heads(qkv.to_gpu(context), kHeads);
    EXPECT_TRUE(test::all_close(gpu.q, cpu.q, 0.0f, 0.0f)) << t;
    EXPECT_TRUE(test::all_close(gpu.k, cpu.k, 0.0f, 0.0f)) << t;
    EXPECT_TRUE(test::all_close(gpu.v, cpu.v, 0.0f, 0.0f)) << t;
    EXPECT_TRUE(test::all_close(ops::merge_heads(gpu.v), ops::merge_heads(cpu.v), 0.0f, 0.0f));
  }
}

// Attention of q against the first kv_len rows of a cache, as the model runs it.
Tensor attend(const Tensor& q, const Tensor& k_cache, const Tensor& v_cache, size_t kv_len) {
  size_t offset = kv_len - q.dim(1);
  Tensor scores = ops::attention_scores(q, k_cache, kv_len, 1.0f / std::sqrt(float(kHeadDim)));
  return ops::merge_heads(ops::attention_values(ops::causal_softmax(scores, offset), v_cache));
}

TEST(GpuKvCache, PrefillThenDecodeMatchesCpu) {
  auto context = test::gpu_context();
  Tensor cpu_k = Tensor::zeros({kHeads, kCtx, kHeadDim});
  Tensor cpu_v = Tensor::zeros({kHeads, kCtx, kHeadDim});
  Tensor gpu_k = cpu_k.to_gpu(context);
  Tensor gpu_v = cpu_v.to_gpu(context);
  size_t position = 0;
  uint32_t seed = 1;
  for (size_t t : {7, 1, 1, 5, 1}) {  // a prefill, decode steps, and a second chunk of prompt
    Shape shape{kHeads, t, kHeadDim};
    Tensor q = Tensor::from_floats(test::random_floats(numel(shape), seed++), shape);
    Tensor k = Tensor::from_floats(test::random_floats(numel(shape), seed++), shape);
    Tensor v = Tensor::from_floats(test::random_floats(numel(shape), seed++), shape);
    ops::kv_append(cpu_k, k, position);
    ops::kv_append(cpu_v, v, position);
    ops::kv_append(gpu_k, k.to_gpu(context), position);
    ops::kv_append(gpu_v, v.to_gpu(context), position);
    position += t;
    EXPECT_TRUE(test::all_close(gpu_k, cpu_k, 0.0f, 0.0f)) << position;
    EXPECT_TRUE(test::all_close(gpu_v, cpu_v, 0.0f, 0.0f)) << position;
    Tensor gpu = attend(q.to_gpu(context), gpu_k, gpu_v, position);
    EXPECT_TRUE(test::all_close(gpu, attend(q, cpu_k, cpu_v, position), 1e-6f, 1e-5f)) << position;
  }
}

TEST(GpuKvCache, LongPrefillUsesTheTiledPath) {
  // t = 33 > the gemv range: scores and values run through the tiled GEMM with strided heads.
  auto context = test::gpu_context();
  size_t t = 33;
  Shape cache_shape{kHeads, kCtx, kHeadDim};
  Tensor k_cache = Tensor::from_floats(test::random_floats(numel(cache_shape), 1), cache_shape);
  Tensor v_cache = Tensor::from_floats(test::random_floats(numel(cache_shape), 2), cache_shape);
  Tensor q =
      Tensor::from_floats(test::random_floats(kHeads * t * kHeadDim, 3), {kHeads, t, kHeadDim});
  Tensor gpu = attend(q.to_gpu(context), k_cache.to_gpu(context), v_cache.to_gpu(context), 35);
  EXPECT_TRUE(test::all_close(gpu, attend(q, k_cache, v_cache, 35), 1e-6f, 1e-5f));
}

TEST(GpuCausalAttention, PromptsMatchCpu) {
  // Heads of 64 (the kernel's), a first prompt and one continuing a cache, each ending inside a
  // block of 64 query rows and a tile of 64 keys.
  for (const auto& [context, name] : attention_contexts()) {
    SCOPED_TRACE(name);
    const size_t heads = 3, head_dim = 64, ctx = 160, c = heads * head_dim;
    Tensor cpu_k =
        Tensor::from_floats(test::random_floats(heads * ctx * head_dim, 1), {heads, ctx, head_dim});
    Tensor cpu_v =
        Tensor::from_floats(test::random_floats(heads * ctx * head_dim, 2), {heads, ctx, head_dim});
    Tensor gpu_k = cpu_k.to_gpu(context);
    Tensor gpu_v = cpu_v.to_gpu(context);
    ASSERT_TRUE(ops::causal_attention_supported(gpu_k));
    size_t offset = 0;
    uint32_t seed = 3;
    for (size_t t : {70, 1, 19}) {
      Tensor qkv = Tensor::from_floats(test::random_floats(t * 3 * c, seed++), {t, 3 * c});
      ops::kv_store(qkv, cpu_k, cpu_v, offset);
      ops::kv_store(qkv.to_gpu(context), gpu_k, gpu_v, offset);
      EXPECT_TRUE(test::all_close(gpu_k, cpu_k, 0.0f, 0.0f)) << offset;
      EXPECT_TRUE(test::all_close(gpu_v, cpu_v, 0.0f, 0.0f)) << offset;
      Tensor expected = ops::causal_attention(qkv, cpu_k, cpu_v, offset, 0.125f);
      Tensor actual = ops::causal_attention(qkv.to_gpu(context), gpu_k, gpu_v, offset, 0.125f);
      EXPECT_TRUE(test::all_close(actual, expected, 1e-5f, 1e-4f))
          << "t " << t << " after " << offset;
      offset += t;
    }
    // Heads of another width take the unfused path.
    EXPECT_FALSE(ops::causal_attention_supported(Tensor::empty_gpu(context, {2, 8, 16})));
  }
}

TEST(GpuPackedCausalAttention, SequencesMatchCpu) {
  // Heads of 64, sequences of 70 rows (a block of 64 query rows and a part of one; keys past a
  // tile of 32), one of a single row, and one sequence alone.
  for (const auto& [context, name] : attention_contexts()) {
    SCOPED_TRACE(name);
    const size_t heads = 3, c = heads * 64;
    uint32_t seed = 11;
    for (auto [sequences, t] : {std::pair<size_t, size_t>{3, 70}, {4, 1}, {1, 33}}) {
      Tensor qkv = Tensor::from_floats(test::random_floats(sequences * t * 3 * c, seed++),
                                       {sequences * t, 3 * c});
      Tensor expected = ops::packed_causal_attention(qkv, sequences, heads, 0.125f);
      Tensor actual = ops::packed_causal_attention(qkv.to_gpu(context), sequences, heads, 0.125f);
      EXPECT_TRUE(test::all_close(actual, expected, 1e-5f, 1e-4f))
          << sequences << " sequences of " << t;
    }
    EXPECT_TRUE(ops::packed_causal_attention_supported(context.get(), 64));
    EXPECT_FALSE(ops::packed_causal_attention_supported(context.get(), 16));
    EXPECT_TRUE(ops::packed_causal_attention_supported(nullptr, 16));
    EXPECT_THROW(ops::packed_causal_attention(Tensor::empty_gpu(context, {6, 3 * 32}), 2, 2, 1.0f),
                 Error);  // heads of 16
  }
}

// Where the adapter has no subgroups, the pairs form as the build embeds it (real subgroup
// operations) is still compiled and validated, on Dawn's Null adapter under the plain kernel's
// name.
TEST(GpuPackedCausalAttention, ThePairsFormCompilesWithSubgroups) {
  if (test::gpu_context()->subgroups_consecutive()) {
    GTEST_SKIP() << "the adapter's subgroups run the pairs form in the tests above";
  }
  auto null_device = gpu::create_validation_context({16, 16, 16, 32});
  null_device->replace_kernel(
      "flash_attention", std::string(gpu::find_embedded_kernel("flash_attention_pairs")->wgsl));
  const Tensor qkv = Tensor::from_floats(test::random_floats(2 * 70 * 3 * 128, 5), {140, 384});
  EXPECT_NO_THROW({
    ops::packed_causal_attention(qkv.to_gpu(null_device), 2, 2, 0.125f);
    null_device->finish();
  });
}

}  // namespace
}  // namespace wgpt
