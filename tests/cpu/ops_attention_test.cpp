#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "wgpt/ops.h"

namespace wgpt {
namespace {

std::vector<float> iota(size_t n, float first = 0) {
  std::vector<float> values(n);
  std::iota(values.begin(), values.end(), first);
  return values;
}

TEST(OpsHeads, SplitSeparatesQkvIntoHeads) {
  // t = 2, C = 4, 2 heads of 2: token 0 is 0..11, token 1 is 12..23.
  Tensor qkv = Tensor::from_floats(iota(24), {2, 12});
  ops::Heads heads = ops::split_heads(qkv, 2);
  EXPECT_EQ(heads.q.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(heads.q.to_floats(), (std::vector<float>{0, 1, 12, 13, 2, 3, 14, 15}));
  EXPECT_EQ(heads.k.to_floats(), (std::vector<float>{4, 5, 16, 17, 6, 7, 18, 19}));
  EXPECT_EQ(heads.v.to_floats(), (std::vector<float>{8, 9, 20, 21, 10, 11, 22, 23}));
}

TEST(OpsHeads, MergeUndoesSplit) {
  Tensor qkv = Tensor::from_floats(iota(3 * 12), {3, 12});
  ops::Heads heads = ops::split_heads(qkv, 2);
  Tensor merged = ops::merge_heads(heads.k);
  EXPECT_EQ(merged.shape(), (Shape{3, 4}));
  EXPECT_EQ(merged.to_floats(), (std::vector<float>{4, 5, 6, 7, 16, 17, 18, 19, 28, 29, 30, 31}));
}

TEST(OpsHeads, SplitRejectsWidthsThatDoNotDivide) {
  EXPECT_THROW(ops::split_heads(Tensor::zeros({2, 13}), 2), Error);
  EXPECT_THROW(ops::split_heads(Tensor::zeros({2, 12}), 3), Error);
}

TEST(OpsKvCache, AppendWritesOnlyItsRows) {
  // 2 heads, n_ctx 3, head_dim 2; append 1 position at row 1.
  Tensor cache = Tensor::from_floats(std::vector<float>(12, -1), {2, 3, 2});
  Tensor x = Tensor::from_floats({1, 2, 3, 4}, {2, 1, 2});
  ops::kv_append(cache, x, 1);
  EXPECT_EQ(cache.to_floats(), (std::vector<float>{-1, -1, 1, 2, -1, -1, -1, -1, 3, 4, -1, -1}));
  EXPECT_THROW(ops::kv_append(cache, x, 3), Error);
  EXPECT_THROW(ops::kv_append(cache, Tensor::zeros({2, 1, 3}), 0), Error);
}

TEST(OpsKvCache, ScoresUseOnlyTheFirstKvLenRows) {
  // 1 head, head_dim 2, n_ctx 3 with rows k0 = (1, 0), k1 = (0, 1), and a poisoned unused row.
  Tensor k_cache = Tensor::from_floats({1, 0, 0, 1, 1e30f, 1e30f}, {1, 3, 2});
  Tensor q = Tensor::from_floats({2, 3}, {1, 1, 2});
  Tensor scores = ops::attention_scores(q, k_cache, 2, 0.5f);
  EXPECT_EQ(scores.shape(), (Shape{1, 1, 2}));
  EXPECT_EQ(scores.to_floats(), (std::vector<float>{1, 1.5f}));
  EXPECT_THROW(ops::attention_scores(q, k_cache, 4, 1.0f), Error);
}

TEST(OpsKvCache, ValuesUseOnlyTheFirstKvLenRows) {
  Tensor v_cache = Tensor::from_floats({1, 2, 3, 4, 1e30f, 1e30f}, {1, 3, 2});
  Tensor probs = Tensor::from_floats({0.25f, 0.75f}, {1, 1, 2});
  Tensor out = ops::attention_values(probs, v_cache);
  EXPECT_EQ(out.shape(), (Shape{1, 1, 2}));
  EXPECT_EQ(out.to_floats(), (std::vector<float>{2.5f, 3.5f}));
  EXPECT_THROW(ops::attention_values(probs, Tensor::zeros({2, 3, 2})), Error);
}

TEST(OpsKvCache, StoreRowsIsKvStoreIntoEachRowsSlot) {
  // Pools of 3 slots × 2 heads × 5 positions × 2; rows in slots 2 and 0 at positions 4 and 1.
  const Shape pool_shape = {3, 2, 5, 2}, cache_shape = {2, 5, 2};
  Tensor keys = Tensor::zeros(pool_shape), values = Tensor::zeros(pool_shape);
  Tensor qkv = Tensor::from_floats(iota(24, 1), {2, 12});
  ops::kv_store_rows(qkv, keys, values, Tensor::from_u32({2, 0}, {2}),
                     Tensor::from_u32({4, 1}, {2}));
  Tensor expected_keys = Tensor::zeros(pool_shape), expected_values = Tensor::zeros(pool_shape);
  for (size_t r = 0; r < 2; ++r) {
    const size_t slot = r == 0 ? 2 : 0, position = r == 0 ? 4 : 1;
    Tensor k = expected_keys.view(slot * 20, cache_shape),
           v = expected_values.view(slot * 20, cache_shape);
    ops::kv_store(qkv.rows(r, 1), k, v, position);
  }
  EXPECT_EQ(keys.to_floats(), expected_keys.to_floats());
  EXPECT_EQ(values.to_floats(), expected_values.to_floats());
  EXPECT_EQ(keys.to_floats()[(2 * 2 * 5 + 4) * 2], 5.0f);  // row 0's first key value, slot 2 head 0
  // A slot outside the pools, a position past them, or one slot twice is refused.
  EXPECT_THROW(ops::kv_store_rows(qkv, keys, values, Tensor::from_u32({3, 0}, {2}),
                                  Tensor::from_u32({0, 0}, {2})),
               Error);
  EXPECT_THROW(ops::kv_store_rows(qkv, keys, values, Tensor::from_u32({1, 0}, {2}),
                                  Tensor::from_u32({5, 0}, {2})),
               Error);
  EXPECT_THROW(ops::kv_store_rows(qkv, keys, values, Tensor::from_u32({1, 1}, {2}),
                                  Tensor::from_u32({0, 1}, {2})),
               Error);
}

TEST(OpsCausalAttention, EqualsTheUnfusedAttention) {
  // A prompt of 5 after 3 cached positions: kv_store's rows equal split_heads + kv_append's, and
  // the fused attention equals scores, causal softmax, values and merged heads.
  const size_t heads = 2, head_dim = 4, ctx = 10, t = 5, offset = 3, c = heads * head_dim;
  std::vector<float> values(t * 3 * c);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.37f * static_cast<float>(i));
  Tensor qkv = Tensor::from_floats(values, {t, 3 * c});
  std::vector<float> earlier(heads * ctx * head_dim);
  for (size_t i = 0; i < earlier.size(); ++i) earlier[i] = std::cos(0.21f * static_cast<float>(i));
  Tensor fused_k = Tensor::from_floats(earlier, {heads, ctx, head_dim});
  Tensor fused_v = Tensor::from_floats(earlier, {heads, ctx, head_dim});
  Tensor split_k = Tensor::from_floats(earlier, {heads, ctx, head_dim});
  Tensor split_v = Tensor::from_floats(earlier, {heads, ctx, head_dim});
  ops::kv_store(qkv, fused_k, fused_v, offset);
  ops::Heads split = ops::split_heads(qkv, heads);
  ops::kv_append(split_k, split.k, offset);
  ops::kv_append(split_v, split.v, offset);
  EXPECT_EQ(fused_k.to_floats(), split_k.to_floats());
  EXPECT_EQ(fused_v.to_floats(), split_v.to_floats());
  const float scale = 0.5f;
  Tensor fused = ops::causal_attention(qkv, fused_k, fused_v, offset, scale);
  Tensor scores = ops::attention_scores(split.q, split_k, offset + t, scale);
  Tensor unfused =
      ops::merge_heads(ops::attention_values(ops::causal_softmax(scores, offset), split_v));
  ASSERT_EQ(fused.shape(), unfused.shape());
  const std::vector<float> a = fused.to_floats(), b = unfused.to_floats();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6f) << i;
  EXPECT_THROW(ops::causal_attention(qkv, fused_k, fused_v, ctx - t + 1, scale), Error);
  EXPECT_THROW(ops::kv_store(Tensor::zeros({t, 3 * c + 1}), fused_k, fused_v, 0), Error);
}

TEST(OpsPackedCausalAttention, EachSequenceEqualsItsOwnCausalAttention) {
  // Three sequences of 5 rows: each equals causal_attention over a cache holding only its keys.
  const size_t heads = 2, head_dim = 4, t = 5, sequences = 3, c = heads * head_dim;
  std::vector<float> values(sequences * t * 3 * c);
  for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.29f * static_cast<float>(i));
  const Tensor qkv = Tensor::from_floats(values, {sequences * t, 3 * c});
  const float scale = 0.5f;
  const std::vector<float> packed =
      ops::packed_causal_attention(qkv, sequences, heads, scale).to_floats();
  ASSERT_EQ(packed.size(), sequences * t * c);
  for (size_t s = 0; s < sequences; ++s) {
    const Tensor own = qkv.rows(s * t, t);
    Tensor k = Tensor::zeros({heads, t, head_dim}), v = Tensor::zeros({heads, t, head_dim});
    ops::kv_store(own, k, v, 0);
    const std::vector<float> alone = ops::causal_attention(own, k, v, 0, scale).to_floats();
    for (size_t i = 0; i < alone.size(); ++i) {
      EXPECT_EQ(packed[s * t * c + i], alone[i]) << "sequence " << s << ", element " << i;
    }
  }
  EXPECT_THROW(ops::packed_causal_attention(qkv, 2, heads, scale), Error);  // 15 rows in 2
  EXPECT_THROW(ops::packed_causal_attention(qkv, 0, heads, scale), Error);
  EXPECT_THROW(ops::packed_causal_attention(qkv, sequences, 3, scale), Error);  // C = 8 in 3
  EXPECT_THROW(ops::packed_causal_attention(Tensor::zeros({15, 3 * c + 1}), 3, heads, scale),
               Error);
}

}  // namespace
}  // namespace wgpt
