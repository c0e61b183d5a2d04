// Weights stored in 16 and 4 bits: the packed layouts of include/wgpt/tensor.h, and the values
// they give back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tensor/packing.h"
#include "test_support.h"
#include "wgpt/io.h"
#include "wgpt/tensor.h"

namespace wgpt {
namespace {

TEST(PackedTensor, StorageSizesFollowTheLayouts) {
  EXPECT_EQ(storage_bytes(DType::f32, 5), 20u);
  EXPECT_EQ(storage_bytes(DType::f16, 5), 12u);  // ceil(5 / 2) words
  EXPECT_EQ(storage_bytes(DType::bf16, 4), 8u);
  EXPECT_EQ(storage_bytes(DType::q4, 64), 40u);  // one block: 8 words of codes, scale, min
  EXPECT_EQ(storage_bytes(DType::q4, 65), 80u);
  EXPECT_EQ(parse_weight_dtype("bf16"), DType::bf16);
  EXPECT_THROW(parse_weight_dtype("f8"), Error);
}

TEST(PackedTensor, HalfFloatsPackTwoPerWordLowHalfFirst) {
  const std::vector<float> values = {1.0f, -2.0f, 0.5f};
  const Tensor f16 = Tensor::from_floats(values, {3}, DType::f16);
  ASSERT_EQ(f16.words().size(), 2u);
  EXPECT_EQ(f16.words()[0], 0xc0003c00u);  // 1.0 = 0x3c00 low, -2.0 = 0xc000 high
  EXPECT_EQ(f16.words()[1], 0x00003800u);  // 0.5, then an empty half
  EXPECT_EQ(f16.to_floats(), values);
  const Tensor bf16 = Tensor::from_floats(values, {3}, DType::bf16);
  EXPECT_EQ(bf16.words()[0], 0xc0003f80u);
  EXPECT_EQ(bf16.to_floats(), values);
}

TEST(PackedTensor, SixteenBitsRoundToNearestEven) {
  const std::vector<float> values = test::random_floats(101, 5, -3.0f, 3.0f);
  for (DType dtype : {DType::f16, DType::bf16}) {
    const std::vector<float> back = Tensor::from_floats(values, {101}, dtype).to_floats();
    for (size_t i = 0; i < values.size(); ++i) {
      const float expected = dtype == DType::f16 ? io::f16_to_f32(io::f32_to_f16(values[i]))
                                                 : io::bf16_to_f32(io::f32_to_bf16(values[i]));
      EXPECT_EQ(back[i], expected) << to_string(dtype) << " element " << i;
    }
  }
}

TEST(PackedTensor, Q4BlocksHoldTheFzmGroups) {
  // 150 values: two whole blocks and a partial one, quantized as the .fzm writer quantizes groups.
  const std::vector<float> values = test::random_floats(150, 7);
  const Tensor q4 = Tensor::from_floats(values, {3, 50}, DType::q4);
  ASSERT_EQ(q4.words().size(), 30u);
  const io::TensorFile file =
      io::load_fzm(io::fzm_bytes(std::vector{io::TensorData::from_floats("w", {3, 50}, values)}));
  const auto expected = file.at("w").floats();
  const std::vector<float> back = q4.to_floats();
  ASSERT_EQ(back.size(), expected.size());
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], expected[i]) << i;
  // The second block's codes and its (scale, min) words, as the layout says.
  const io::Q4Data& groups = *file.at("w").q4();
  uint32_t bits;
  std::memcpy(&bits, &groups.groups[1].scale, 4);
  EXPECT_EQ(q4.words()[18], bits);
  EXPECT_EQ(q4.words()[10] & 0xf, groups.codes[32] & 0xf);  // element 64: the low nibble
}

TEST(PackedTensor, ViewsStartOnAWordOrABlock) {
  const Tensor f16 = Tensor::from_floats(test::random_floats(12, 1), {6, 2}, DType::f16);
  const Tensor rows = f16.rows(2, 3);
  EXPECT_EQ(rows.byte_offset(), 8u);
  const std::vector<float> all = f16.to_floats();
  EXPECT_EQ(rows.to_floats(), std::vector<float>(all.begin() + 4, all.begin() + 10));
  EXPECT_THROW(f16.reshape({12}).view(3, {2}), Error);
  const Tensor q4 = Tensor::from_floats(test::random_floats(256, 2), {4, 64}, DType::q4);
  EXPECT_EQ(q4.rows(1, 2).byte_offset(), 40u);
  EXPECT_THROW(q4.reshape({256}).view(32, {64}), Error);
}

TEST(PackedTensor, Q4RefusesNonFiniteValuesAndFloatsNeedsF32) {
  EXPECT_THROW(Tensor::from_floats({1.0f, NAN}, {2}, DType::q4), Error);
  EXPECT_THROW(Tensor::from_floats({1.0f}, {1}, DType::f16).floats(), Error);
  EXPECT_THROW(Tensor::from_words({1, 2}, {5}, DType::f16), Error);  // 5 halves need 3 words
}

TEST(PackedTensor, ColumnStripsPutEachStripsRowsOneAfterAnother) {
  // f16 [3, 16]: two strips of 8 columns; a strip row is four words.
  std::vector<uint32_t> rows(24);
  for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
  const std::vector<uint32_t> strips = packing::to_column_strips(rows, DType::f16, 3, 16);
  // Row r's words of strip s were words 8r + 4s .. 8r + 4s + 3; they go to 4 · (3s + r).
  EXPECT_EQ(strips, (std::vector<uint32_t>{0, 1, 2, 3, 8,  9,  10, 11, 16, 17, 18, 19,  //
                                           4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23}));
  EXPECT_EQ(packing::from_column_strips(strips, DType::f16, 3, 16), rows);
}

TEST(PackedTensor, Q4ColumnStripsKeepCodesByStripAndPairsAfterThem) {
  // q4 [2, 128]: two blocks a row; 32 code words, then four (scale, minimum) pairs.
  std::vector<uint32_t> rows(40);
  for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
  const std::vector<uint32_t> strips = packing::to_column_strips(rows, DType::q4, 2, 128);
  // Row 1's second block is words 30..39: code word 3 (strip 8 + 3 = 11) goes to 11 · 2 + 1; its
  // pair (block column 1, row 1) to 32 + 2 · (1 · 2 + 1).
  EXPECT_EQ(strips[23], 33u);
  EXPECT_EQ(strips[38], 38u);
  EXPECT_EQ(strips[39], 39u);
  EXPECT_EQ(strips[0], 0u);   // row 0's first code word
  EXPECT_EQ(strips[1], 20u);  // row 1's
  EXPECT_EQ(strips[32], 8u);  // row 0's first pair
  EXPECT_EQ(packing::from_column_strips(strips, DType::q4, 2, 128), rows);
}

TEST(PackedTensor, ColumnStripsNeedWholeStripsOfAMatrix) {
  EXPECT_TRUE(fits_column_strips(DType::f32, {5, 16}));
  EXPECT_FALSE(fits_column_strips(DType::f16, {5, 12}));
  EXPECT_FALSE(fits_column_strips(DType::q4, {5, 96}));  // q4 needs whole blocks a row
  EXPECT_FALSE(fits_column_strips(DType::u32, {5, 16}));
  EXPECT_FALSE(fits_column_strips(DType::f16, {80}));
  EXPECT_THROW(packing::to_column_strips(std::vector<uint32_t>(30), DType::f16, 5, 12), Error);
  EXPECT_THROW(packing::to_column_strips(std::vector<uint32_t>(39), DType::f16, 5, 16), Error);
  EXPECT_TRUE(packing::to_column_strips({}, DType::f16, 0, 16).empty());  // no rows: no words
}

}  // namespace
}  // namespace wgpt
