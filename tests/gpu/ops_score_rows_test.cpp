// ops::score_rows on the GPU equals its CPU reference: the statistics within float rounding, and
// the same top-k set (the kernel's pairs come in no particular order), ties at the k-th value
// included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

struct ScoreRowsCase {
  size_t rows, vocab, k;
  float levels;  // > 0: logits rounded to that many values per unit, so the cut falls in ties
};

// Each row's (id, logit bits) pairs, sorted by logit (descending) and id.
std::vector<std::vector<std::pair<uint32_t, float>>> sorted_top(const Tensor& top) {
  const std::vector<uint32_t> words = top.to_u32();
  const size_t rows = top.dim(0), k = top.dim(1);
  std::vector<std::vector<std::pair<uint32_t, float>>> out(rows);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t i = 0; i < k; ++i) {
      out[r].emplace_back(words[(r * k + i) * 2], io::f32_from_bits(words[(r * k + i) * 2 + 1]));
    }
    std::sort(out[r].begin(), out[r].end(), [](const auto& a, const auto& b) {
      return a.second > b.second || (a.second == b.second && a.first < b.first);
    });
  }
  return out;
}

class GpuScoreRows : public ::testing::TestWithParam<ScoreRowsCase> {};

TEST_P(GpuScoreRows, MatchesCpu) {
  const ScoreRowsCase& c = GetParam();
  std::vector<float> values = test::random_floats(c.rows * c.vocab, 3, -6.0f, 6.0f);
  if (c.levels > 0) {
    for (float& x : values) x = std::round(x * c.levels) / c.levels;
  }
  std::vector<uint32_t> ids(c.rows);
  for (size_t r = 0; r < c.rows; ++r) ids[r] = static_cast<uint32_t>((r * 7919 + 5) % c.vocab);
  const Tensor logits = Tensor::from_floats(values, {c.rows, c.vocab});
  const Tensor targets = Tensor::from_u32(ids, {c.rows});
  const ops::RowScores cpu = ops::score_rows(logits, targets, c.k);
  const ops::RowScores gpu =
      ops::score_rows(logits.to_gpu(test::gpu_context()), targets.to_gpu(test::gpu_context()), c.k);
  EXPECT_TRUE(test::all_close(gpu.stats, cpu.stats, 2e-5f, 2e-6f));
  ASSERT_EQ(gpu.top.shape(), (Shape{c.rows, c.k, 2}));
  if (c.k == 0) return;
  const auto want = sorted_top(cpu.top);
  const auto got = sorted_top(gpu.top);
  for (size_t r = 0; r < c.rows; ++r) EXPECT_EQ(got[r], want[r]) << "row " << r;
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuScoreRows,
                         ::testing::Values(ScoreRowsCase{3, 1, 1, 0},        // a vocabulary of one
                                           ScoreRowsCase{5, 300, 0, 0},      // statistics only
                                           ScoreRowsCase{5, 300, 5, 0},      // the usual top 5
                                           ScoreRowsCase{4, 5003, 40, 0},    // odd width, many bins
                                           ScoreRowsCase{4, 5003, 5003, 0},  // the whole row
                                           ScoreRowsCase{6, 2001, 37, 2},    // the cut inside ties
                                           ScoreRowsCase{3, 700, 1, 1}));    // top 1 among ties

TEST(GpuScoreRows, RejectsBadArguments) {
  const Tensor logits = Tensor::from_floats(std::vector<float>(6, 0.0f), {2, 3});
  EXPECT_THROW(ops::score_rows(logits, Tensor::from_u32({0, 1}, {2}), 4), Error);
  EXPECT_THROW(ops::score_rows(logits, Tensor::from_u32({0, 3}, {2}), 1), Error);
  EXPECT_THROW(ops::score_rows(logits, Tensor::from_u32({0}, {1}), 1), Error);
}

}  // namespace
}  // namespace wgpt
