#include <gtest/gtest.h>

#include "wgpt/tensor.h"

namespace wgpt {
namespace {

TEST(Tensor, FromFloatsKeepsShapeAndValues) {
  Tensor t = Tensor::from_floats({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.numel(), 6u);
  EXPECT_EQ(t.dim(-1), 3u);
  EXPECT_EQ(t.dtype(), DType::f32);
  EXPECT_EQ(t.device(), Device::cpu);
  EXPECT_EQ(t.to_floats(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t.describe(), "f32[2, 3] on cpu");
}

TEST(Tensor, ValuesThatDoNotFillTheShapeThrow) {
  EXPECT_THROW(Tensor::from_floats({1, 2, 3}, {2, 2}), Error);
  EXPECT_THROW(Tensor::from_u32({1}, {2}), Error);
}

TEST(Tensor, ViewsShareStorage) {
  Tensor t = Tensor::from_floats({0, 1, 2, 3, 4, 5}, {3, 2});
  Tensor middle = t.rows(1, 1);
  EXPECT_EQ(middle.shape(), (Shape{1, 2}));
  EXPECT_EQ(middle.to_floats(), (std::vector<float>{2, 3}));
  middle.floats()[0] = 20;
  EXPECT_EQ(t.to_floats()[2], 20);
  EXPECT_EQ(t.view(3, {3}).to_floats(), (std::vector<float>{3, 4, 5}));
  EXPECT_EQ(middle.view(1, {1}).offset(), 3u);
}

TEST(Tensor, ViewsOutsideTheTensorThrow) {
  Tensor t = Tensor::zeros({3, 2});
  EXPECT_THROW(t.view(5, {2}), Error);
  EXPECT_THROW(t.rows(2, 2), Error);
  EXPECT_THROW(t.dim(2), Error);
  EXPECT_EQ(Tensor::zeros({0, 4}).rows(0, 0).numel(), 0u);
}

TEST(Tensor, ReshapeKeepsElements) {
  Tensor t = Tensor::from_u32({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor r = t.reshape({3, 2});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(r.to_u32(), t.to_u32());
  EXPECT_THROW(t.reshape({4, 2}), Error);
}

TEST(Tensor, WrongDtypeAccessThrows) {
  EXPECT_THROW(Tensor::zeros({2}, DType::u32).floats(), Error);
  EXPECT_THROW(Tensor::zeros({2}).u32s(), Error);
  EXPECT_THROW(Tensor::zeros({2}).buffer(), Error);
}

}  // namespace
}  // namespace wgpt
