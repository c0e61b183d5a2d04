#include <gtest/gtest.h>

#include <cmath>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

constexpr size_t kVocab = 1000, kWidth = 67, kPositions = 64;

class GpuEmbedding : public ::testing::Test {
 protected:
  std::shared_ptr<gpu::Context> context = test::gpu_context();
  Tensor wte = Tensor::from_floats(test::random_floats(kVocab * kWidth, 1), {kVocab, kWidth});
  Tensor wpe =
      Tensor::from_floats(test::random_floats(kPositions * kWidth, 2), {kPositions, kWidth});
  Tensor ids = Tensor::from_u32({0, 999, 17, 500, 501, 3, 998, 0, 250}, {9});
};

TEST_F(GpuEmbedding, MatchesCpu) {
  Tensor gpu = ops::embedding(ids.to_gpu(context), wte.to_gpu(context), wpe.to_gpu(context), 5);
  EXPECT_TRUE(test::all_close(gpu, ops::embedding(ids, wte, wpe, 5), 0.0f, 0.0f));
}

TEST_F(GpuEmbedding, RowChunksMatchTheWholeTable) {
  // Uneven chunks, as a 147 MiB table split for a 128 MiB binding limit would be.
  std::vector<Tensor> chunks = {wte.rows(0, 501).to_gpu(context), wte.rows(501, 1).to_gpu(context),
                                wte.rows(502, 498).to_gpu(context)};
  Tensor gpu = ops::embedding(ids.to_gpu(context), chunks, wpe.to_gpu(context), 0);
  EXPECT_TRUE(test::all_close(gpu, ops::embedding(ids, wte, wpe, 0), 0.0f, 0.0f));
}

TEST_F(GpuEmbedding, IdPastTheTableGivesNaNRow) {
  Tensor bad = Tensor::from_u32({1, kVocab}, {2});
  std::vector<float> out =
      ops::embedding(bad.to_gpu(context), wte.to_gpu(context), wpe.to_gpu(context), 0).to_floats();
  EXPECT_FALSE(std::isnan(out[0]));
  for (size_t c = 0; c < kWidth; ++c) EXPECT_TRUE(std::isnan(out[kWidth + c])) << c;
}

}  // namespace
}  // namespace wgpt
