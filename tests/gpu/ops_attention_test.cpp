#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "emulated_subgroups.h"
#include "gpu/kernel_sources.h"
#include "gpu/validation_context.h"
#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

constexpr size_t kHeads = 3, kHeadDim = 16, kCtx = 40;

// The forms of the prompt's attention for adapters with subgroups, each of which the contexts
// below run under the plain kernel's name.
constexpr std::array<const char*, 2> kSubgroupForms = {"flash_attention_pairs",
                                                       "flash_attention_quarters"};

// The contexts a prompt's attention is checked in: the plain one, which takes flash_attention.wgsl
// (or its pairs form where the adapter has subgroups), and one per subgroup form whose
// "flash_attention" is that form, its subgroups emulated where the adapter has none (llvmpipe).
std::vector<std::pair<std::shared_ptr<gpu::Context>, const char*>> attention_contexts() {
  std::vector<std::pair<std::shared_ptr<gpu::Context>, const char*>> contexts = {
      {test::gpu_context(), "plain context"}};
  for (const char* form : kSubgroupForms) {
    auto context = test::context_with_emulated_subgroups(test::EmulatedLayout::consecutive);
    context->replace_kernel(
        "flash_attention", *test::with_emulated_subgroups(form, test::EmulatedLayout::consecutive));
    contexts.emplace_back(context, form);
  }
  return contexts;
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

// Scores in the hundreds, whose exponentials overflow a float unless the running maximum is
// subtracted, the later keys far larger than the earlier ones (so that maxima grow from tile to
// tile): every form keeps them finite and right.
TEST(GpuPackedCausalAttention, LargeScoresMatchCpu) {
  for (const auto& [context, name] : attention_contexts()) {
    SCOPED_TRACE(name);
    const size_t heads = 2, c = heads * 64, t = 90;
    // Queries and keys in [-6, 6], the later half of the keys four times that; values in [-1, 1].
    std::vector<float> values = test::random_floats(t * 3 * c, 21);
    for (size_t row = 0; row < t; ++row) {
      for (size_t e = 0; e < 2 * c; ++e) values[row * 3 * c + e] *= e >= c && row >= t / 2 ? 24 : 6;
    }
    const Tensor qkv = Tensor::from_floats(values, {t, 3 * c});
    const Tensor expected = ops::packed_causal_attention(qkv, 1, heads, 0.125f);
    const Tensor actual = ops::packed_causal_attention(qkv.to_gpu(context), 1, heads, 0.125f);
    EXPECT_TRUE(test::all_close(actual, expected, 1e-5f, 1e-4f));
  }
}

// Where the adapter has no subgroups, the subgroup forms as the build embeds them (real subgroup
// operations) are still compiled and validated, on Dawn's Null adapter under the plain kernel's
// name.
TEST(GpuPackedCausalAttention, TheSubgroupFormsCompileWithSubgroups) {
  if (test::gpu_context()->subgroups_consecutive()) {
    GTEST_SKIP() << "the adapter's subgroups run these forms in the tests above";
  }
  for (const char* form : kSubgroupForms) {
    SCOPED_TRACE(form);
    auto null_device = gpu::create_validation_context({16, 16, 16, 32});
    null_device->replace_kernel("flash_attention",
                                std::string(gpu::find_embedded_kernel(form)->wgsl));
    const Tensor qkv = Tensor::from_floats(test::random_floats(2 * 70 * 3 * 128, 5), {140, 384});
    EXPECT_NO_THROW({
      ops::packed_causal_attention(qkv.to_gpu(null_device), 2, 2, 0.125f);
      null_device->finish();
    });
  }
}

// WGPT_PROMPT_ATTENTION (gpu::ContextOptions::prompt_attention) chooses the kernel: auto the pairs
// form where the adapter's subgroups allow it, plain anywhere, and a subgroup form only where
// they allow it (elsewhere a prompt fails, named, rather than running something else).
TEST(GpuCausalAttention, TheContextChoosesTheKernel) {
  using gpu::PromptAttention;
  const bool subgroups = test::gpu_context()->subgroups_consecutive();
  auto automatic = gpu::Context::create({.prompt_attention = PromptAttention::automatic});
  EXPECT_EQ(ops::causal_attention_kernel(*automatic),
            subgroups ? "flash_attention_pairs" : "flash_attention");
  auto plain = gpu::Context::create({.prompt_attention = PromptAttention::plain});
  EXPECT_EQ(ops::causal_attention_kernel(*plain), "flash_attention");
  const Tensor qkv = Tensor::from_floats(test::random_floats(70 * 3 * 128, 7), {70, 384});
  for (auto [form, kernel] : {std::pair{PromptAttention::pairs, "flash_attention_pairs"},
                              {PromptAttention::quarters, "flash_attention_quarters"}}) {
    auto context = gpu::Context::create({.prompt_attention = form});
    EXPECT_EQ(context->prompt_attention(), form);
    if (subgroups) {
      EXPECT_EQ(ops::causal_attention_kernel(*context), kernel);
      EXPECT_TRUE(test::all_close(ops::packed_causal_attention(qkv.to_gpu(context), 1, 2, 0.125f),
                                  ops::packed_causal_attention(qkv, 1, 2, 0.125f), 1e-5f, 1e-4f));
    } else {
      EXPECT_THROW(ops::causal_attention_kernel(*context), Error);
      EXPECT_THROW(ops::packed_causal_attention(qkv.to_gpu(context), 1, 2, 0.125f), Error);
    }
  }
}

TEST(GpuCausalAttention, TheEnvironmentVariableNamesAForm) {
  using gpu::PromptAttention;
  test::Environment environment;
  environment.unset("WGPT_PROMPT_ATTENTION");
  EXPECT_EQ(gpu::prompt_attention_from_environment(), PromptAttention::automatic);
  for (auto form : {PromptAttention::automatic, PromptAttention::plain, PromptAttention::pairs,
                    PromptAttention::quarters}) {
    environment.set("WGPT_PROMPT_ATTENTION", std::string(gpu::to_string(form)));
    EXPECT_EQ(gpu::prompt_attention_from_environment(), form);
  }
  environment.set("WGPT_PROMPT_ATTENTION", "halves");
  EXPECT_THROW(gpu::prompt_attention_from_environment(), Error);
  EXPECT_THROW(gpu::parse_prompt_attention("Pairs"), Error);
}

}  // namespace
}  // namespace wgpt
