#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "ops_parity.h"
#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

// Leaves one pooled buffer per output of `cpu`, of its size and filled with NaNs, in the pool:
// the op's outputs get them back, garbage and all. Then checks the op overwrote every element.
void expect_recycled_outputs_are_clean(const std::function<std::vector<Tensor>()>& gpu_op,
                                       const std::vector<Tensor>& cpu, float atol) {
  auto context = test::gpu_context();
  std::set<const void*> garbage_ids;
  {
    std::vector<gpu::Buffer> garbage;
    for (const Tensor& expected : cpu) {
      size_t bytes = expected.numel() * 4;
      garbage.push_back(context->create_storage(bytes));
      context->write(garbage.back(), 0, std::vector<std::byte>(bytes, std::byte{0xff}));
      garbage_ids.insert(garbage.back().id());
    }
    for (const gpu::Buffer& buffer : garbage) {
      std::vector<std::byte> back = context->readback(buffer, 0, 4);
      float first;
      std::memcpy(&first, back.data(), 4);
      EXPECT_TRUE(std::isnan(first)) << "the garbage did not land";
    }
  }  // released to the pool
  std::vector<Tensor> outputs = gpu_op();
  ASSERT_EQ(outputs.size(), cpu.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_TRUE(garbage_ids.count(outputs[i].buffer().id()))
        << "output " << i << " is not recycled";
    EXPECT_TRUE(test::all_close(outputs[i], cpu[i], atol, 1e-5f)) << "output " << i;
  }
}

// Sizes are distinct from every other test's so that the garbage buffer is the one reused.
TEST(GpuPool, CausalSoftmaxWritesMaskedZeros) {
  auto context = test::gpu_context();
  Tensor x = Tensor::from_floats(test::random_floats(2 * 9 * 11, 1), {2, 9, 11});
  expect_recycled_outputs_are_clean(
      [&] { return std::vector<Tensor>{ops::causal_softmax(x.to_gpu(context), 2)}; },
      {ops::causal_softmax(x, 2)}, 1e-6f);
}

TEST(GpuPool, ChunkedEmbeddingWritesEveryRow) {
  auto context = test::gpu_context();
  Tensor wte = Tensor::from_floats(test::random_floats(50 * 13, 1), {50, 13});
  Tensor wpe = Tensor::from_floats(test::random_floats(8 * 13, 2), {8, 13});
  Tensor ids = Tensor::from_u32({49, 0, 25, 24, 26}, {5});
  std::vector<Tensor> chunks = {wte.rows(0, 25).to_gpu(context), wte.rows(25, 25).to_gpu(context)};
  expect_recycled_outputs_are_clean(
      [&] {
        return std::vector<Tensor>{
            ops::embedding(ids.to_gpu(context), chunks, wpe.to_gpu(context), 3)};
      },
      {ops::embedding(ids, wte, wpe, 3)}, 0.0f);
}

TEST(GpuPool, ChunkedLmHeadWritesEveryColumn) {
  auto context = test::gpu_context();
  Tensor table = Tensor::from_floats(test::random_floats(93 * 40, 1), {93, 40});
  Tensor x = Tensor::from_floats(test::random_floats(40, 2), {1, 40});
  std::vector<Tensor> chunks = {table.rows(0, 60).to_gpu(context),
                                table.rows(60, 33).to_gpu(context)};
  expect_recycled_outputs_are_clean(
      [&] { return std::vector<Tensor>{ops::matmul_transposed_chunks(x.to_gpu(context), chunks)}; },
      {ops::matmul(x, table, {.transpose_b = true})}, 2e-5f);
}

TEST(GpuPool, TiledMatmulWritesEdgeTiles) {
  auto context = test::gpu_context();
  Tensor a = Tensor::from_floats(test::random_floats(67 * 21, 1), {67, 21});
  Tensor b = Tensor::from_floats(test::random_floats(21 * 71, 2), {21, 71});
  expect_recycled_outputs_are_clean(
      [&] { return std::vector<Tensor>{ops::matmul(a.to_gpu(context), b.to_gpu(context))}; },
      {ops::matmul(a, b)}, 2e-5f);
}

TEST(GpuPool, SplitHeadsWritesAllThreeOutputs) {
  auto context = test::gpu_context();
  Tensor qkv = Tensor::from_floats(test::random_floats(5 * 3 * 14, 1), {5, 42});
  ops::Heads cpu = ops::split_heads(qkv, 2);
  expect_recycled_outputs_are_clean(
      [&] {
        ops::Heads heads = ops::split_heads(qkv.to_gpu(context), 2);
        return std::vector<Tensor>{heads.q, heads.k, heads.v};
      },
      {cpu.q, cpu.k, cpu.v}, 0.0f);
}

}  // namespace
}  // namespace wgpt
