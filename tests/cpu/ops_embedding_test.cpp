#include <gtest/gtest.h>

#include "wgpt/ops.h"

namespace wgpt {
namespace {

// 4 tokens × width 2: row r is (r, 10r); 3 positions: row p is (100p, 1000p).
Tensor token_table() { return Tensor::from_floats({0, 0, 1, 10, 2, 20, 3, 30}, {4, 2}); }
Tensor position_table() { return Tensor::from_floats({0, 0, 100, 1000, 200, 2000}, {3, 2}); }

TEST(OpsEmbedding, AddsTokenAndPositionRows) {
  Tensor ids = Tensor::from_u32({3, 1}, {2});
  Tensor out = ops::embedding(ids, token_table(), position_table(), 1);
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_EQ(out.to_floats(), (std::vector<float>{103, 1030, 201, 2010}));
}

TEST(OpsEmbedding, RowChunksGiveTheSameResult) {
  Tensor table = token_table();
  Tensor ids = Tensor::from_u32({0, 3, 2}, {3});
  std::vector<Tensor> chunks = {table.rows(0, 1), table.rows(1, 2), table.rows(3, 1)};
  EXPECT_EQ(ops::embedding(ids, chunks, position_table(), 0).to_floats(),
            ops::embedding(ids, table, position_table(), 0).to_floats());
}

TEST(OpsEmbedding, PerRowPositions) {
  // Row i at positions[i]: a batched decode step's rows, each of its own sequence.
  Tensor ids = Tensor::from_u32({3, 1, 3}, {3});
  Tensor positions = Tensor::from_u32({2, 0, 1}, {3});
  EXPECT_EQ(ops::embedding(ids, {token_table()}, position_table(), positions).to_floats(),
            (std::vector<float>{203, 2030, 1, 10, 103, 1030}));
  EXPECT_THROW(
      ops::embedding(ids, {token_table()}, position_table(), Tensor::from_u32({0, 3, 0}, {3})),
      Error);  // past wpe
  EXPECT_THROW(
      ops::embedding(ids, {token_table()}, position_table(), Tensor::from_u32({0, 1}, {2})),
      Error);  // one position per id
}

TEST(OpsEmbedding, RejectsBadInputs) {
  Tensor wte = token_table(), wpe = position_table();
  EXPECT_THROW(ops::embedding(Tensor::from_u32({4}, {1}), wte, wpe, 0), Error);     // id past table
  EXPECT_THROW(ops::embedding(Tensor::from_u32({0, 1}, {2}), wte, wpe, 2), Error);  // past wpe
  EXPECT_THROW(ops::embedding(Tensor::zeros({1}), wte, wpe, 0), Error);             // f32 ids
  EXPECT_THROW(ops::embedding(Tensor::from_u32({0}, {1}), Tensor::zeros({4, 3}), wpe, 0), Error);
}

}  // namespace
}  // namespace wgpt
